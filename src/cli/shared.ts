import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Spill } from '../ops/deps.ts';
import { restoreSpilled, spillGames } from '../storage/recovery.ts';
import type { SqliteStore } from '../storage/sqlite.ts';
import { int, table } from './format.ts';
import { resolveJudge } from './judge-choice.ts';
import { openCheckedStore, type OpenOptions } from './open-db.ts';
import { checkTurns } from './validate.ts';

export const dbArg = {
  db: {
    type: 'string',
    description: 'SQLite database file (default ./arena.db)',
    default: './arena.db',
    valueHint: 'FILE',
  },
} as const;
export const jsonArg = {
  json: { type: 'boolean', description: 'print one JSON array instead of a table' },
} as const;
/** --judge and --turn of the commands that read one judge's results (withJudge). */
export const judgeTurnArgs = {
  judge: {
    type: 'string',
    description: 'judge name (e.g. gpt-4 or openai/gpt-4; human = expert votes; default: the only judge)',
  },
  turn: { type: 'string', description: '1 or 2 (default: both)' },
} as const;

export { openCheckedStore as openStore };

export function print(s: string): void {
  process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);
}

/** `rows` as a table (format.ts), each row's columns as `columns` spells them. */
export function printTable<R>(rows: readonly R[], columns: (r: R) => object): void {
  print(table(rows.map((r) => columns(r))));
}

/** A line on stderr (progress, notes, warnings), apart from the output on stdout. */
export function log(m: string): void {
  process.stderr.write(`${m}\n`);
}

export function printJson(v: unknown): void {
  process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
}

/** Commands report their exit status here; only main.ts exits the process. */
export const exitStatus = { code: 0 };

/** Open the database, run `fn`, and close it whatever happens. */
export async function withStore<T>(
  file: string,
  opts: OpenOptions,
  fn: (store: SqliteStore) => Promise<T>,
): Promise<T> {
  const store = openCheckedStore(file, opts);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The database file and its -wal and -shm, removed: what an import that failed into a new file leaves behind. */
export function removeDatabase(db: string): void {
  for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
}

/** withStore for an import: a database file it created is removed again when `fn` fails. */
export async function withImportStore<T>(db: string, fn: (store: SqliteStore) => Promise<T>): Promise<T> {
  const created = db !== ':memory:' && !existsSync(db);
  try {
    return await withStore(db, {}, fn);
  } catch (e) {
    if (created) removeDatabase(db);
    throw e;
  }
}

/** One judge's results read: the database opened read-only, --judge resolved, --turn checked. */
export function withJudge<T>(
  args: { db: string; judge?: string | undefined; turn?: string | undefined },
  fn: (store: SqliteStore, judge: string, t: { turn?: number }) => Promise<T>,
): Promise<T> {
  const turn = int(args.turn, 'turn');
  return withStore(args.db, { readonly: true }, async (store) => {
    const judge = await resolveJudge(store, args.judge);
    await checkTurns(store, turn !== undefined ? [turn] : []);
    return fn(store, judge, turn !== undefined ? { turn } : {});
  });
}

/**
 * The spill of a job that plays into `db`, once the verdicts earlier runs paid for but could not store (a full
 * disk) are stored from its recovery files (a dry run stores nothing and spills nothing).
 */
export async function recovered(
  store: SqliteStore,
  db: string,
  o: { dryRun?: boolean; log?: (m: string) => void },
): Promise<Spill> {
  if (o.dryRun) return noSpill;
  for (const r of await restoreSpilled(store, db, tmpdir()))
    (o.log ?? log)(`stored ${r.games} verdict(s) an earlier run paid for but could not store (${r.file})`);
  return (games, run) => spillGames(db, tmpdir(), games, run);
}

export const noSpill: Spill = () => Promise.reject(new Error('a dry run stores nothing'));
