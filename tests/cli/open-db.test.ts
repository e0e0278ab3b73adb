// Opening the database (issue 12, item 11): what is wrong with which file, never a stack trace; read-only commands
// open read-only, so a published copy (VACUUM INTO) is served and read without a byte changing.
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { arenaOk, playOwn, REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';

const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');

/** exit 1, one line `arena: <file> ...`, no stack */
async function fails(args: string[], file: string, says: RegExp) {
  const r = await runArena(args);
  expect(r.code, r.stderr).toBe(1);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]!.startsWith(`arena: ${file}`), lines[0]).toBe(true);
  expect(lines[0]).toMatch(says);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('the database file', { timeout: 180_000 }, () => {
  let dir: string;
  let db: string;
  beforeAll(async () => {
    dir = tmpDir();
    db = join(dir, 'arena.db');
    await playOwn(db, 'mock/longer', 'arena-sage,arena-echo', ['--turns', '1']);
  }, 180_000);

  it('`--db README.md` (not a database) is named, for reading and writing commands alike', async () => {
    const readme = join(REPO_ROOT, 'README.md');
    const before = sha(readme);
    await fails(['standings', '--db', readme, '--judge', 'gpt-4'], readme, /is not an SQLite database/);
    await fails(
      ['import', 'questions', 'questions/arena.jsonl', '--db', readme],
      readme,
      /is not an SQLite database/,
    );
    await fails(
      ['run', '--db', readme, '--judge', 'mock/a', '--models', 'a,b'],
      readme,
      /is not an SQLite database/,
    );
    expect(sha(readme)).toBe(before);
  });

  it('a directory given as --db is named', async () => {
    const d = join(tmpDir(), 'folder');
    mkdirSync(d);
    await fails(['runs', '--db', d], d, /is a directory/);
  });

  it('a truncated copy is named as truncated', async () => {
    const t = join(tmpDir(), 'truncated.db');
    copyFileSync(db, t);
    truncateSync(t, Math.floor(statSync(t).size / 2) + 100);
    await fails(['standings', '--db', t, '--judge', 'mock/longer'], t, /is truncated/);
    truncateSync(t, Math.floor(statSync(t).size / 4096 / 2) * 4096);
    await fails(['standings', '--db', t, '--judge', 'mock/longer'], t, /is truncated|is corrupted/);
  });

  it('a corrupted copy (garbage over its pages) is named as corrupted', async () => {
    const c = join(tmpDir(), 'corrupt.db');
    copyFileSync(db, c);
    const bytes = readFileSync(c);
    const pageSize = bytes.readUInt16BE(16);
    for (let p = 1; p < bytes.length / pageSize; p += 2)
      for (let i = 0; i < pageSize; i += 7) bytes[p * pageSize + i] = (p * 31 + i) & 255;
    writeFileSync(c, bytes);
    await fails(
      ['standings', '--db', c, '--judge', 'mock/longer'],
      c,
      /is corrupted|is not an SQLite database/,
    );
    await fails(
      ['run', '--db', c, '--judge', 'mock/a', '--models', 'arena-sage,arena-echo'],
      c,
      /is corrupted|is not an SQLite database/,
    );
  });

  it('a database locked by another process is named as locked', async () => {
    const l = join(tmpDir(), 'locked.db');
    copyFileSync(db, l);
    const holder = new Database(l);
    holder.pragma('journal_mode = DELETE');
    holder.exec('BEGIN EXCLUSIVE');
    try {
      await fails(
        ['import', 'questions', 'questions/arena.jsonl', '--db', l],
        l,
        /is locked by another process/,
      );
      await fails(['standings', '--db', l, '--judge', 'mock/longer'], l, /is locked by another process/);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('read-only commands open a published copy read-only: not a byte changes, no -wal or -shm appears', async () => {
    const pubDir = tmpDir();
    const pub = join(pubDir, 'published.db');
    const src = new Database(db, { readonly: true });
    src.exec(`VACUUM INTO '${pub.replace(/'/g, "''")}'`);
    src.close();
    const before = sha(pub);
    for (const args of [
      ['standings', '--judge', 'mock/longer'],
      ['judges'],
      ['runs'],
      ['ratings', '--judge', 'mock/longer'],
      ['intervals', '--judge', 'mock/longer', '--rounds', '20'],
      ['cost'],
    ]) {
      await arenaOk([...args, '--db', pub]);
    }
    expect(sha(pub)).toBe(before);
    expect(readdirSync(pubDir)).toEqual(['published.db']);
  });

  it('a database missing for a read-only command is named and not created', async () => {
    const m = join(tmpDir(), 'missing.db');
    await fails(['judges', '--db', m], m, /no such database/);
    expect(existsSync(m)).toBe(false);
  });
});
