// What a command checks before it touches anything: the port to listen on (from --port or $PORT), a 0-byte
// database file that a read command must not write the schema into, and a database written by a newer mt-arena
// (its schema has migrations this version does not know). Each is one clear line, no stack; nothing is written.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { arenaOk, runArena, tmpDir } from '../support/cli.ts';

const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');

async function refused(args: string[], says: RegExp, env: Record<string, string> = {}) {
  // $PORT is read when the command module loads: a process of its own
  const r = await runArena(args, { env, spawn: true });
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr.split('\n')[0]).toMatch(says);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('checks before a command starts', { timeout: 120_000 }, () => {
  it('`serve --port 99999` and `PORT=-5 arena serve` are refused with the value and its source', async () => {
    const db = join(tmpDir(), 'none.db');
    await refused(
      ['serve', '--db', db, '--port', '99999'],
      /^arena: --port 99999: a port is an integer from 0 to 65535/,
    );
    await refused(['serve', '--db', db], /^arena: PORT=-5: a port is an integer from 0 to 65535/, {
      PORT: '-5',
    });
    expect(existsSync(db)).toBe(false);
  });

  it('a read command on a 0-byte file leaves it 0 bytes, with no -wal or -shm beside it', async () => {
    const db = join(tmpDir(), 'empty.db');
    writeFileSync(db, '');
    await refused(
      ['standings', '--db', db, '--judge', 'mock/longer'],
      /is empty \(0 bytes\), not an mt-arena database/,
    );
    expect(statSync(db).size).toBe(0);
    expect([existsSync(`${db}-wal`), existsSync(`${db}-shm`)]).toEqual([false, false]);
  });

  it('a database from a newer mt-arena is named as such by read and write commands, and left as it is', async () => {
    const dir = tmpDir();
    const db = join(dir, 'newer.db');
    writeFileSync(
      join(dir, 'q.jsonl'),
      `${JSON.stringify({ question_id: 1, category: 'writing', turns: ['x'] })}\n`,
    );
    await arenaOk(['import', 'questions', join(dir, 'q.jsonl'), '--db', db]);
    const s = new Database(db);
    s.prepare('insert into __drizzle_migrations (hash, created_at) values (?, ?)').run(
      'from-the-future',
      9e12,
    );
    s.pragma('wal_checkpoint(TRUNCATE)');
    s.close();
    const before = sha(db);
    await refused(
      ['standings', '--db', db, '--judge', 'mock/longer'],
      /newer\.db was written by a newer mt-arena \(its schema has 1 migration/,
    );
    await refused(
      ['import', 'questions', join(dir, 'q.jsonl'), '--db', db],
      /was written by a newer mt-arena/,
    );
    expect(sha(db)).toBe(before);
  });
});
