// preparedReportRead: one statement reused (no compile on a page's first visit after a restart), returning what
// drizzle's read returns; a database without the table reads none.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import * as schema from '../../db/schema.ts';
import { drizzleStore, type AnyDb } from '../../src/storage/drizzle-store.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import type { StoredReport } from '../../src/storage/report-store.ts';
import { tmpDir } from '../support/cli.ts';

const row = (view: string, params: string, body: string): StoredReport => ({
  view,
  params,
  digest: `d-${view}`,
  version: 2,
  body,
  builtAt: 1_700_000_000_000,
  ms: 12,
});

/** How many statements `store`'s connection prepares while `fn` runs. */
async function prepares(store: SqliteStore, fn: () => Promise<unknown>): Promise<number> {
  const db = store.sqlite;
  const prepare = db.prepare.bind(db);
  let n = 0;
  db.prepare = ((s: string) => (n++, prepare(s))) as typeof db.prepare;
  try {
    await fn();
  } finally {
    db.prepare = prepare;
  }
  return n;
}

describe('stored reports on SQLite', () => {
  it('reads by key with one statement prepared once, returning what drizzle returns', async () => {
    const store = openSqliteStore(join(tmpDir('arena-report-read-'), 'arena.db'));
    const rows = [
      row('leaderboard', 'bootstrap/1000|gpt-4', '{"rows":[1,2]}'),
      row('leaderboard', 'bootstrap/1000|human', '{"rows":[]}'),
      row('judge-board', '', '"\u00e9\u{1f600}"'),
    ];
    await store.reports.put(rows);
    const keys = [
      { view: 'leaderboard', params: 'bootstrap/1000|gpt-4' },
      { view: 'judge-board', params: '' },
      { view: 'leaderboard', params: 'nope' },
    ];
    const byKey = (rs: StoredReport[]) => [...rs].sort((a, b) => (a.params < b.params ? -1 : 1));
    const first = await store.reports.get(keys);
    // drizzle's read over the same connection, without the prepared statement
    const drizzled = await drizzleStore({
      db: drizzle({ client: store.sqlite, schema }) as unknown as AnyDb,
      maxParams: 30000,
      atomic: async () => undefined,
    }).reports.get(keys);
    expect(byKey(first)).toEqual(byKey([rows[0]!, rows[2]!]));
    expect(byKey(drizzled)).toEqual(byKey(first));
    expect(await prepares(store, () => store.reports.get(keys))).toBe(0);
    expect(await prepares(store, () => store.reports.get([keys[1]!]))).toBe(0);
    expect(await store.reports.get([])).toEqual([]);
    await store.close();
  });

  it('a database opened read-only before its reports table was made reads no report', async () => {
    const file = join(tmpDir('arena-report-read-'), 'old.db');
    new Database(file).exec('CREATE TABLE x (a)').close();
    const store = openSqliteStore(file, { readonly: true });
    expect(await store.reports.get([{ view: 'leaderboard', params: '' }])).toEqual([]);
    await store.close();
  });
});
