// Imports are bounded: an over-long line, gzip past the size or ratio limit are located errors saying how much was
// read, with memory and CPU bounded and the database unchanged; files built as a hostile upload would be.
import { spawnSync } from 'node:child_process';
import { createWriteStream, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { IMPORT_LIMITS, readJsonlFile } from '../../src/importers/lines.ts';
import { ARENA_BIN, REPO_ROOT, arenaOk, tmpDir } from '../support/cli.ts';
import { sqlCount } from '../support/stored-game.ts';

const dir = tmpDir('arena-bounds-');

/** `chunks` copies of `chunk`, gzipped to `path` as a stream (never held whole) */
async function gzipOf(path: string, chunk: Buffer, chunks: number, head = ''): Promise<void> {
  async function* gen() {
    if (head) yield Buffer.from(head);
    for (let i = 0; i < chunks; i++) yield chunk;
  }
  await pipeline(Readable.from(gen()), createGzip({ level: 1 }), createWriteStream(path));
}

/** `arena import judgments` under /usr/bin/time: exit code, stderr, peak RSS and CPU seconds */
function importTimed(db: string, file: string) {
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', 'maxrss_kb=%M cpu_s=%U+%S', process.execPath, ARENA_BIN, 'import', 'judgments', file, '--db', db],
    // the bundle when it is fresh (bin/arena.mjs), as a user runs it: a third of the CPU of the sources through tsx
    { cwd: REPO_ROOT, encoding: 'utf8' },
  );
  const m = /maxrss_kb=(\d+) cpu_s=([\d.]+)\+([\d.]+)/.exec(r.stderr)!;
  return { code: r.status, stderr: r.stderr, rssMiB: Number(m[1]) / 1024, cpuS: Number(m[2]) + Number(m[3]) };
}

describe('bounded imports', () => {
  const db = join(dir, 'arena.db');
  const questions = join(dir, 'question.jsonl');
  writeFileSync(questions, JSON.stringify({ question_id: 1, category: 'writing', turns: ['q?'] }) + '\n');

  it('a line longer than the limit is a located error, in plain and gzip files, with what was read', async () => {
    const plain = join(dir, 'long.jsonl');
    writeFileSync(plain, `{"a": 1}\n\n{"b": "${'x'.repeat(5000)}"}\n`);
    const limits = { maxLineBytes: 4096 };
    await expect(readJsonlFile(plain, limits)).rejects.toThrow(
      `${plain}:3: line is longer than 4 KB (the import limit for one line); 2 complete line(s)`,
    );
    const gz = join(dir, 'long.jsonl.gz');
    writeFileSync(gz, gzipSync(`{"a": 1}\n\n{"b": "${'x'.repeat(5000)}"}\n`));
    await expect(readJsonlFile(gz, limits)).rejects.toThrow(
      /long\.jsonl\.gz:3: line is longer than 4 KB.*of gzip read/,
    );
    // at the limit it is read
    expect(await readJsonlFile(plain, { maxLineBytes: 5010 })).toHaveLength(2);
  });

  it('gzip data past the size limit or the ratio limit is refused, saying how much came out of how much', async () => {
    const gz = join(dir, 'big.jsonl.gz');
    const line = Buffer.from(`{"question_id": 1, "text": "${'ab'.repeat(200)}"}\n`);
    await gzipOf(gz, line, 3000); // ~1.2 MB of lines
    await expect(
      readJsonlFile(gz, { maxDecompressedBytes: 500_000, maxRatio: 1e9, ratioFromBytes: 0 }),
    ).rejects.toThrow(
      /big\.jsonl\.gz:\d+: the gzip data decompresses to more than 500 KB \(the import limit\); \d+ complete line\(s\), [\d.]+ (KB|MiB) from \d+ (B|KB) of gzip read/,
    );
    await expect(readJsonlFile(gz, { maxRatio: 20, ratioFromBytes: 100_000 })).rejects.toThrow(
      /the gzip data expands more than 20:1 .*like a decompression bomb/,
    );
    // within the limits: every line
    expect(await readJsonlFile(gz)).toHaveLength(3000);
  });

  it('one 600 MiB line in a small .gz: refused early with bounded memory, not a false "invalid UTF-8"', async () => {
    await arenaOk(['import', 'questions', questions, '--db', db]);
    const gz = join(dir, 'one-line_pair.jsonl.gz');
    await gzipOf(gz, Buffer.alloc(1 << 20, 'a'), 600, '{"question_id": 1, "g1_judgment": "');
    const compressed = statSync(gz).size;
    expect(compressed).toBeLessThan(4 << 20);
    const r = importTimed(db, gz);
    console.log(
      `600 MiB line in ${(compressed / 1e3).toFixed(0)} KB of gzip: exit ${r.code}, peak RSS ${r.rssMiB.toFixed(0)} MiB, CPU ${r.cpuS.toFixed(1)} s`,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/invalid UTF-8/);
    expect(r.stderr).toMatch(
      /one-line_pair\.jsonl\.gz:1: the gzip data expands more than 100:1 .* 0 complete line\(s\)/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /); // one clear line, no stack trace
    expect(r.rssMiB).toBeLessThan(400);
    expect(sqlCount(db, 'SELECT count(*) AS n FROM games')).toBe(0);
  }, 180_000);

  it('100 MiB of newlines in a small .gz: refused, not 100 million empty lines read and exit 0', async () => {
    const gz = join(dir, 'newlines_pair.jsonl.gz');
    await gzipOf(gz, Buffer.alloc(1 << 20, '\n'), 100);
    const r = importTimed(db, gz);
    console.log(
      `100 MiB of newlines in ${(statSync(gz).size / 1e3).toFixed(0)} KB of gzip: exit ${r.code}, CPU ${r.cpuS.toFixed(1)} s`,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/newlines_pair\.jsonl\.gz:\d+: the gzip data expands more than 100:1/);
    expect(sqlCount(db, 'SELECT count(*) AS n FROM games')).toBe(0);
  }, 180_000);

  it('a line past the default limit in a plain file is refused at the limit', async () => {
    const plain = join(dir, 'huge_pair.jsonl');
    writeFileSync(plain, `{"question_id": 1, "g1_judgment": "${'a'.repeat(IMPORT_LIMITS.maxLineBytes)}"}\n`);
    const r = importTimed(db, plain);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /huge_pair\.jsonl:1: line is longer than 64 MiB \(the import limit for one line\); 0 complete line\(s\), [\d.]+ MiB read/,
    );
    expect(sqlCount(db, 'SELECT count(*) AS n FROM games')).toBe(0);
  }, 180_000);
});
