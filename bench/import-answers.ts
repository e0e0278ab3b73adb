// Bench: peak memory of `arena import answers` on a generated large answers file (issue 12, item 10).
//
//   node --import tsx bench/import-answers.ts [--mb 200]
//
// Generates a FastChat model_answer file of about --mb megabytes over the project's 24 questions (both turns),
// then measures, each in its own process under /usr/bin/time:
//  - arena: `arena import answers` into a fresh database that holds the questions (peak RSS);
//  - baseline: the least any importer that keeps the parsed answers until one commit must hold: a bare node
//    process that reads the same file line by line and keeps every parsed line (peak RSS), measured in the same run.
// Prints both, the ratio arena/baseline and arena's peak per MB of file. No pass/fail.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({ options: { mb: { type: 'string', default: '200' } } });
const dir = mkdtempSync(join(tmpdir(), 'arena-bench-import-'));
try {
  const questions = readFileSync(join(ROOT, 'questions', 'arena.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { question_id: number; turns: string[] });
  const turns = questions.reduce((n, q) => n + q.turns.length, 0);
  const text = 'word '.repeat(Math.floor((Number(values.mb) * 1e6) / turns / 5));
  const file = join(dir, 'big-model.jsonl');
  const fd = openSync(file, 'w');
  for (const q of questions)
    writeSync(
      fd,
      `${JSON.stringify({ question_id: q.question_id, answer_id: `a${q.question_id}`, model_id: 'big-model', choices: [{ index: 0, turns: q.turns.map(() => text) }] })}\n`,
    );
  closeSync(fd);
  const mb = statSync(file).size / 1e6;

  const peak = (args: string[]): number => {
    const r = spawnSync('/usr/bin/time', ['-f', 'maxrss_kb=%M', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    if (r.status !== 0) throw new Error(`${args.join(' ')} failed:\n${r.stderr}`);
    return Number(/maxrss_kb=(\d+)/.exec(r.stderr)![1]) / 1024;
  };
  const db = join(dir, 'arena.db');
  const arena = join(ROOT, 'bin', 'arena.mjs');
  const q = spawnSync(
    process.execPath,
    [arena, 'import', 'questions', join(ROOT, 'questions', 'arena.jsonl'), '--db', db],
    { encoding: 'utf8' },
  );
  if (q.status !== 0) throw new Error(q.stderr);
  const ours = peak([process.execPath, arena, 'import', 'answers', file, '--db', db]);
  const keep = `const rl=require('node:readline').createInterface({input:require('node:fs').createReadStream(process.argv[1])});const kept=[];rl.on('line',(l)=>kept.push(JSON.parse(l)));rl.on('close',()=>console.log(kept.length))`;
  const base = peak([process.execPath, '-e', keep, file]);
  console.log(`answers file: ${mb.toFixed(0)} MB (${questions.length} answers, ${turns} turns)`);
  console.log(
    `arena import answers: peak RSS ${ours.toFixed(0)} MiB (${(ours / mb).toFixed(2)} MiB per MB of file)`,
  );
  console.log(`baseline (read line by line, keep every parsed line): peak RSS ${base.toFixed(0)} MiB`);
  console.log(`ratio arena/baseline: ${(ours / base).toFixed(2)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
