// Answers files are read as a stream (issue #12, item 10): the same rows and located errors as reading the
// file whole, without holding its bytes, text and lines at once. Peak memory is measured on the real CLI.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answersFrom, parseAnswers, parseQuestions } from '../../src/importers/formats.ts';
import { readJsonlFile } from '../../src/importers/lines.ts';
import { ARENA_BIN, REPO_ROOT, arenaOk, tmpDir } from '../support/cli.ts';

const dir = tmpDir('arena-stream-');
const OWN = join(REPO_ROOT, 'questions');
const turnsOf = new Map(
  parseQuestions('arena.jsonl', readFileSync(join(OWN, 'arena.jsonl'))).map((q) => [q.id, q.turns.length]),
);

describe('streamed JSONL answers', () => {
  it('give the same answers as parsing the whole file, for every sample file and with CRLF, a BOM and blank lines', async () => {
    for (const f of readdirSync(join(OWN, 'answers'))) {
      const path = join(OWN, 'answers', f);
      expect(answersFrom(path, await readJsonlFile(path), turnsOf)).toEqual(
        parseAnswers(path, readFileSync(path), turnsOf),
      );
    }
    const lines = readFileSync(join(OWN, 'answers', 'arena-echo.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    const odd = join(dir, 'arena-echo.jsonl');
    writeFileSync(odd, `\ufeff${lines.join('\r\n\r\n')}`);
    expect(answersFrom(odd, await readJsonlFile(odd), turnsOf)).toEqual(
      parseAnswers(odd, readFileSync(odd), turnsOf),
    );
  });

  it('name the line of invalid UTF-8 and of malformed JSON', async () => {
    const lines = readFileSync(join(OWN, 'answers', 'arena-echo.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(
      bad,
      Buffer.concat([Buffer.from(`${lines[0]}\n${lines[1]}\n`), Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a])]),
    );
    await expect(readJsonlFile(bad)).rejects.toThrow(`${bad}:3: invalid UTF-8`);
    writeFileSync(bad, `${lines[0]}\n{"question_id": \n`);
    await expect(readJsonlFile(bad)).rejects.toThrow(
      new RegExp(`${bad.replace(/[.]/g, '\\.')}:2: malformed JSON`),
    );
  });

  it('arena import answers of a 60 MB file: peak RSS measured', async () => {
    const db = join(dir, 'big.db');
    await arenaOk(['import', 'questions', join(OWN, 'arena.jsonl'), '--db', db]);
    const big = join(dir, 'big-model.jsonl');
    const text = 'word '.repeat(250_000); // 1.25 MB a turn
    writeFileSync(
      big,
      [...turnsOf]
        .map(([id, n]) =>
          JSON.stringify({
            question_id: id,
            answer_id: `a${id}`,
            model_id: 'big-model',
            choices: [{ index: 0, turns: Array.from({ length: n }, () => text) }],
          }),
        )
        .join('\n') + '\n',
    );
    const r = spawnSync(
      '/usr/bin/time',
      ['-f', 'maxrss_kb=%M', process.execPath, ARENA_BIN, 'import', 'answers', big, '--db', db],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
    const kb = Number(/maxrss_kb=(\d+)/.exec(r.stderr)![1]);
    console.log(
      `arena import answers of a ${(readFileSync(big).length / 1e6).toFixed(0)} MB file: peak RSS ${(kb / 1024).toFixed(0)} MiB`,
    );
    expect(r.stdout).toMatch(/24 answers/);
  }, 180_000);
});
