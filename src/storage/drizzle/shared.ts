// What every drizzle group shares: the database handle and its adapter's options, and the helpers that keep
// statements under the bound-parameter limit.
import { eq, inArray, isNotNull, notInArray, sql, type SQL } from 'drizzle-orm';
import type { BaseSQLiteDatabase, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as t from '../../../db/schema.ts';
import type { ReportKey, StoredReport } from '../report-store.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDb = BaseSQLiteDatabase<'sync' | 'async', any, typeof t>;
/** A query built but not yet run; the adapter runs a list of them atomically. */
export type Query = { run(): unknown } & object;

/** An INSERT's conflict clause (or none): added to the insert of given values. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OnConflict = (insert: any) => Query & { toSQL(): { sql: string; params: unknown[] } };

/** A games row as drizzle inserts it. */
export type GameRow = typeof t.games.$inferInsert;

export interface DrizzleStoreOptions {
  db: AnyDb;
  /** run the queries all-or-nothing (a better-sqlite3 transaction, a D1 batch) */
  atomic(queries: Query[]): Promise<void>;
  /** the most bound parameters one statement may carry (D1: 100) */
  maxParams: number;
  /**
   * The driver's own insert of played games, returning which rows were new (a statement prepared once); without
   * it, drizzle builds and SQLite compiles a multi-row INSERT per group commit (bench/README.md).
   */
  insertGameRows?(rows: GameRow[]): Promise<boolean[]>;
  /** The driver's own INSERT of many rows for `atomic`; without it, multi-row INSERTs under maxParams. */
  insertRows?<T extends SQLiteTable>(table: T, rows: T['$inferInsert'][], conflict: OnConflict): Query;
  /** The driver's own read of stored reports by key; without it, a statement compiled anew on every read. */
  readReports?(keys: ReportKey[]): StoredReport[];
  /** Run a read, handing out its rows one by one as arrays of values (better-sqlite3's raw iterate). */
  eachRow?(sql: string, params: unknown[]): Iterable<unknown[]>;
  close?(): Promise<void>;
}

/** `column IN (the ids)` as one JSON parameter (json_each): any number of ids under D1's parameter limit. */
export const inJson = (
  column: typeof t.games.runId | typeof t.games.id | typeof t.attempts.gameId | typeof t.attempts.runId,
  ids: string[],
): SQL => sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;

/** SQL expressions (over the row being read) as drizzle selections, by name. */
export const sqlFields = <K extends string>(exprs: Record<K, string>) =>
  Object.fromEntries(Object.entries(exprs).map(([k, v]) => [k, sql.raw(v as string)])) as Record<
    K,
    SQL<number>
  >;

/** Split rows into statements that stay under the bound-parameter limit (one parameter per column of a row). */
export function chunk<T extends object>(rows: T[], maxParams: number): T[][] {
  return rows.length ? slices(rows, Math.floor(maxParams / Object.keys(rows[0]!).length)) : [];
}

export function slices<T>(items: T[], size: number): T[][] {
  const n = Math.max(1, size);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += n) out.push(items.slice(i, i + n));
  return out;
}

/** `questionId` restricted to tournament questions, or to one labelled set's items */
export function inSet(
  db: AnyDb,
  column: typeof t.games.questionId | typeof t.answers.questionId | typeof t.votes.questionId,
  set: string | undefined,
): SQL {
  if (set !== undefined)
    return inArray(
      column,
      db.select({ id: t.questions.id }).from(t.questions).where(eq(t.questions.set, set)),
    );
  return notInArray(
    column,
    db.select({ id: t.questions.id }).from(t.questions).where(isNotNull(t.questions.set)),
  );
}
