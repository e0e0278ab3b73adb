// The SQLite store's preparedInsert on other tables: values encoded by column, left-out values defaulted as
// drizzle's insert does, an SQL default refused at open rather than written as NULL.
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import type { AnyDb } from '../../src/storage/drizzle-store.ts';
import { preparedInsert } from '../../src/storage/sqlite.ts';

const withDefaults = sqliteTable('t', {
  id: text('id').primaryKey(),
  n: integer('n').notNull().default(0),
  m: text('m').$defaultFn(() => 'made'),
  j: text('j', { mode: 'json' }).$type<{ a: number }>(),
  flag: integer('flag', { mode: 'boolean' }),
});

function open(ddl: string) {
  const sqlite = new Database(':memory:');
  sqlite.exec(ddl);
  return { sqlite, db: drizzle({ client: sqlite }) as unknown as AnyDb };
}

describe('preparedInsert', () => {
  it('stores what drizzle would: defaults for left-out values, JSON stringified, NULL kept NULL, booleans as 0/1', async () => {
    const ddl =
      'CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL DEFAULT 0, m TEXT, j TEXT, flag INTEGER)';
    const rows = [
      { id: 'a' },
      { id: 'b', n: 5, m: 'given', j: { a: 1 }, flag: true },
      { id: 'c', j: null, flag: false },
    ];
    const prepared = open(ddl);
    expect(preparedInsert(prepared.sqlite, prepared.db, withDefaults)(rows)).toEqual([true, true, true]);
    // the same rows through drizzle's own insert
    const plain = open(ddl);
    await plain.db.insert(withDefaults as never).values(rows as never);
    const dump = (s: Database.Database) =>
      s.prepare('SELECT id, n, m, j, typeof(j), flag FROM t ORDER BY id').raw().all();
    expect(dump(prepared.sqlite)).toEqual(dump(plain.sqlite));
    expect(dump(prepared.sqlite)).toEqual([
      ['a', 0, 'made', null, 'null', null],
      ['b', 5, 'given', '{"a":1}', 'text', 1],
      ['c', 0, 'made', null, 'null', 0],
    ]);
  });

  it('says which rows were new: an id already stored, or twice in one batch, is not', () => {
    const { sqlite, db } = open(
      'CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL DEFAULT 0, m TEXT, j TEXT, flag INTEGER)',
    );
    const insert = preparedInsert(sqlite, db, withDefaults);
    expect(insert([{ id: 'a' }])).toEqual([true]);
    expect(insert([{ id: 'a' }, { id: 'b' }, { id: 'b' }])).toEqual([false, true, false]);
  });

  it('a failing row rolls back its whole batch, and the next batch goes in', () => {
    const { sqlite, db } = open(
      'CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL CHECK (n < 10), m TEXT, j TEXT, flag INTEGER)',
    );
    const insert = preparedInsert(sqlite, db, withDefaults);
    expect(() => insert([{ id: 'x' }, { id: 'y', n: 99 }])).toThrow(/CHECK constraint failed/);
    expect(sqlite.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
    expect(sqlite.inTransaction).toBe(false);
    expect(insert([{ id: 'x' }])).toEqual([true]);
  });

  it('refuses, at open, a column whose default is SQL (it cannot be bound)', () => {
    const sqlDefault = sqliteTable('t', {
      id: text('id').primaryKey(),
      at: integer('at').default(sql`(unixepoch())`),
    });
    const { sqlite, db } = open('CREATE TABLE t (id TEXT PRIMARY KEY, at INTEGER DEFAULT (unixepoch()))');
    expect(() => preparedInsert(sqlite, db, sqlDefault)).toThrow(
      'storage: t.at has an SQL default, which the prepared insert cannot bind',
    );
  });
});
