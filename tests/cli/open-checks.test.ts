// What a command checks before touching anything: the port (--port or $PORT), a 0-byte database a read command must
// not write a schema into, a database from a newer mt-arena. One clear line each, nothing written.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../src/storage/sqlite.ts';
import { arenaOk, runArena, tmpDir } from '../support/cli.ts';

const JOURNAL = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as {
  entries: { tag: string; when: number }[];
};

/** A database as an mt-arena with only the first `n` of our migrations wrote it (a copy of them, journal cut). */
function schemaOfFirst(n: number, file: string): Database.Database {
  const dir = join(tmpDir(), 'migrations');
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  writeFileSync(
    join(dir, 'meta', '_journal.json'),
    JSON.stringify({ ...JOURNAL, entries: JOURNAL.entries.slice(0, n) }),
  );
  const s = new Database(file);
  migrate(drizzle({ client: s }), { migrationsFolder: dir });
  return s;
}

function settle(s: Database.Database): void {
  s.pragma('wal_checkpoint(TRUNCATE)');
  s.close();
}

const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');

async function refused(args: string[], says: RegExp, env: Record<string, string> = {}) {
  const r = await runArena(args, { env });
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

  it('a database from an older mt-arena (its first 3 migrations) is upgraded on open, saying both versions', async () => {
    const latest = `version ${JOURNAL.entries.length}, ${JOURNAL.entries.at(-1)!.tag}`;
    for (const cmd of [['migrate'], ['runs']]) {
      const db = join(tmpDir(), 'older.db');
      const s = schemaOfFirst(3, db);
      s.prepare(
        "insert into questions (id, category, turns, source) values (1, 'writing', '[\"Write a haiku.\"]', 'q.jsonl')",
      ).run();
      settle(s);
      const r = await runArena([...cmd, '--db', db]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(
        `arena: ${db}: upgraded its schema from version 3 (${JOURNAL.entries[2]!.tag}) to ${latest}\n`,
      );
      if (cmd[0] === 'migrate') expect(r.stdout).toContain(`schema version ${JOURNAL.entries.length} (`);
      const after = new Database(db, { readonly: true });
      expect(after.prepare('select count(*) n from __drizzle_migrations').get()).toEqual({
        n: JOURNAL.entries.length,
      });
      expect(after.prepare('select turns from questions').all()).toEqual([{ turns: '["Write a haiku."]' }]);
      after.close();
      // once upgraded, nothing more to say
      const again = await runArena([...cmd, '--db', db]);
      expect([again.code, again.stderr]).toEqual([0, '']);
    }
  });

  it('a migration id this version does not know, in place of its last one, is named with both versions; unchanged', async () => {
    const db = join(tmpDir(), 'branch.db');
    const s = schemaOfFirst(JOURNAL.entries.length - 1, db);
    s.prepare('insert into __drizzle_migrations (hash, created_at) values (?, ?)').run(
      'f00dfeedcafe0123456789',
      JOURNAL.entries.at(-1)!.when + 1,
    );
    settle(s);
    const before = sha(db);
    const says = new RegExp(
      `branch\\.db was written by a newer mt-arena \\(its schema has 1 migration\\(s\\) this version does not know: f00dfeedcafe of .*this version's schema is version ${JOURNAL.entries.length}, ${JOURNAL.entries.at(-1)!.tag}\\).*upgrade`,
    );
    await refused(['runs', '--db', db], says);
    await refused(['run', '--db', db, '--judge', 'mock/longer', '--models', 'a,b'], says);
    expect(sha(db)).toBe(before);
  });

  it('an SQLite file of another program (tables, no migration record) is refused by a write command, unchanged', async () => {
    const db = join(tmpDir(), 'notes.db');
    const s = new Database(db);
    s.exec('create table notes (id integer primary key, body text)');
    settle(s);
    const before = sha(db);
    await refused(
      ['import', 'questions', 'questions/arena.jsonl', '--db', db],
      /notes\.db is an SQLite database but not an mt-arena one \(its tables: notes\)/,
    );
    expect(sha(db)).toBe(before);
  });
});
