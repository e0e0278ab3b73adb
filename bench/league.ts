/**
 * The scale bench: `arena reports --rebuild` on a league of N models (MT-Bench's 80 questions, both turns,
 * pairwise-all, both orders: N(N-1)/2 x 320 games; 30 models = 139,200, 100 models = 1,584,000).
 *
 *   node --import tsx bench/league.ts --models 30 [--db FILE] [--repeats 1] [--dir MTBENCH_DIR]
 *
 * The league is made once per database file (kept, so a later call measures the rebuild alone): the release's
 * questions, references and judge prompts are imported, and N models' answers, each one of the six released
 * models' answers with the model's name appended (so every prompt, and every game id, is its own). The games are
 * played by `runTournament` with the free in-process judge `mock/random`, a few questions per run so that a
 * plan's prompts stay in memory only for those questions: the rows are what `arena run` writes.
 *
 * Measured: the real command `node bin/arena.mjs reports --rebuild --db FILE` (dist/ when fresh: run
 * `node scripts/build-cli.mjs` first) under /usr/bin/time, after the stored reports are deleted, so that every
 * report is computed: its wall time, CPU and peak RSS. Goal at 30 models: <= 30 s and <= 500 MB.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { runTournament } from '../src/engine/run.ts';
import { importFiles, mtbenchSources } from '../src/importers/import.ts';
import { mockJudge } from '../src/judges/mock.ts';
import { openSqliteStore } from '../src/storage/sqlite.ts';
import { distFresh } from '../bin/dist-fresh.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHARED = fileURLToPath(new URL('../../shared/mt_bench', import.meta.url));
const { values } = parseArgs({
  options: {
    models: { type: 'string', default: '30' },
    db: { type: 'string' },
    repeats: { type: 'string', default: '1' },
    dir: { type: 'string', default: process.env.MTBENCH_DIR ?? (existsSync(SHARED) ? SHARED : '') },
  },
});
const n = Number(values.models);
const dir = values.dir!;
if (!dir || !existsSync('/usr/bin/time')) {
  process.stderr.write('bench/league: needs an MT-Bench release (--dir or MTBENCH_DIR) and /usr/bin/time\n');
  process.exit(1);
}
const db = values.db ?? join(tmpdir(), `arena-league-${n}.db`);
const say = (m: string) => process.stdout.write(`${m}\n`);

/** Import the release's questions, references and prompts, and n models' answers; play the league. */
async function makeLeague(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-league-'));
  const src = mtbenchSources(dir);
  const released = src.answers!.map((f) => readFileSync(f, 'utf8').trim().split('\n'));
  const models = Array.from({ length: n }, (_, k) => `m${String(k).padStart(3, '0')}`);
  const answers = models.map((m, k) => {
    const lines = released[k % released.length]!.map((l) => {
      const a = JSON.parse(l) as { model_id: string; choices: { turns: string[] }[] };
      a.model_id = m;
      for (const c of a.choices) c.turns = c.turns.map((t) => `${t}\n\n(${m})`);
      return JSON.stringify(a);
    });
    mkdirSync(join(work, 'answers'), { recursive: true });
    const file = join(work, 'answers', `${m}.jsonl`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  });
  const store = openSqliteStore(db);
  try {
    await importFiles(store, { ...src, answers, judgments: [], votes: [] });
    const questions = (await store.catalog.questions()).map((q) => q.id);
    // a few questions per run: a plan holds its games' prompts in memory until they are stored
    const per = Math.max(1, Math.floor(20_000 / (models.length * (models.length - 1) * 2)));
    const t0 = performance.now();
    let played = 0;
    for (let k = 0; k < questions.length; k += per) {
      const r = await runTournament({
        store,
        judge: mockJudge('random'),
        mode: 'pairwise-all',
        models,
        questionIds: questions.slice(k, k + per),
        concurrency: 64,
      });
      played += r.played;
      process.stderr.write(`\rleague: ${played} games played`);
    }
    process.stderr.write('\n');
    say(`league: ${n} models, ${played} games played in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await store.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The rebuild from no stored reports, under /usr/bin/time: wall, CPU, peak RSS. */
async function rebuild(): Promise<{ wallS: number; cpuS: number; peakMiB: number; line: string }> {
  const raw = new Database(db);
  raw.prepare('DELETE FROM reports').run();
  raw.close();
  const timeFile = join(tmpdir(), `bench-league-time-${process.pid}.txt`);
  const t0 = performance.now();
  const child = spawn(
    '/usr/bin/time',
    ['-o', timeFile, '-f', '%U %S %M', 'node', 'bin/arena.mjs', 'reports', '--rebuild', '--db', db],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const wallS = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`bench/league: the rebuild exited with ${code}\n${err.slice(-3000)}`);
  const [u, s, m] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  rmSync(timeFile, { force: true });
  return { wallS, cpuS: u! + s!, peakMiB: m! / 1024, line: out.trim() };
}

const fresh = !existsSync(db);
if (fresh) await makeLeague();
// a league made by older code gets this code's migrations (its indexes) here, not in the timed rebuild
await openSqliteStore(db).close();
const raw = new Database(db, { readonly: true });
const games = (raw.prepare('SELECT count(*) AS n FROM games').get() as { n: number }).n;
raw.close();
say(
  `${fresh ? 'made' : 'reusing'} ${db}: ${games} games; arena from ${distFresh(ROOT) ? 'dist/' : 'src/ (tsx)'}`,
);
for (let r = 0; r < Number(values.repeats); r++) {
  const load = loadavg()[0]!.toFixed(1);
  const x = await rebuild();
  say(
    `rebuild: wall ${x.wallS.toFixed(1)} s, cpu ${x.cpuS.toFixed(1)} s, peak RSS ${x.peakMiB.toFixed(0)} MiB` +
      ` (load average ${load}; ${x.line})`,
  );
}
