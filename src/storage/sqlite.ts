import Database from 'better-sqlite3';
import {
  getTableColumns,
  getTableName,
  is,
  Param,
  Placeholder,
  SQL,
  sql,
  type Column,
  type Table,
} from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { randomUUID } from 'node:crypto';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as schema from '../../db/schema.ts';
import { ArenaError } from '../core/types.ts';
import { databaseFileOf } from './same-file.ts';
import { keysJson, REPORTS_BY_KEYS } from './drizzle/reports.ts';
import type { ReportKey, StoredReport } from './report-store.ts';
import {
  drizzleStore,
  STORE_GROUPS,
  type AnyDb,
  type DrizzleStore,
  type GameRow,
  type OnConflict,
  type Query,
} from './drizzle-store.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../db/migrations', import.meta.url));

export interface SqliteStore extends DrizzleStore {
  readonly sqlite: Database.Database;
  /**
   * A token that changes whenever the database may have changed (`PRAGMA data_version`, `total_changes()`, this
   * connection): microseconds to read, where the site's data fingerprint is a pass over the games' index.
   */
  dataVersion(): string;
}

/** a number per connection opened by this process: a reopened file's counters start again */
let connections = 0;

/** The Store on an embedded SQLite file, WAL journal (a committed game survives a crash); migrations on open. */
export function openSqliteStore(
  file: string,
  opts: {
    readonly?: boolean;
    /** how long opening waits for another process's write lock (default 5 s) */
    startupWaitMs?: number;
    /** how long one call keeps retrying a statement that found the database locked (default 10 min) */
    busyRetryMs?: number;
  } = {},
): SqliteStore {
  const sqlite = new Database(file, {
    readonly: opts.readonly ?? false,
    fileMustExist: opts.readonly ?? false,
  });
  // start-up may wait for a lock (nothing else runs yet); a lock still held after that is reported by file name
  sqlite.pragma(`busy_timeout = ${opts.startupWaitMs ?? 5000}`);
  try {
    if (!opts.readonly) {
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma('synchronous = NORMAL');
      sqlite.exec('BEGIN IMMEDIATE');
      sqlite.exec('ROLLBACK');
    }
  } catch (e) {
    sqlite.close();
    if (isBusy(e)) throw lockedError(file, opts.startupWaitMs ?? 5000, e);
    throw e;
  }
  const db = drizzle({ client: sqlite, schema });
  if (!opts.readonly) migrate(db, { migrationsFolder: MIGRATIONS_DIR });
  // from here on a lock never blocks the event loop: a busy statement fails at once and is retried on a timer
  sqlite.pragma('busy_timeout = 0');
  const insertGameRows = opts.readonly
    ? undefined
    : preparedInsert(sqlite, db as unknown as AnyDb, schema.games);
  const store = drizzleStore({
    db: db as unknown as AnyDb,
    maxParams: 30000,
    readReports: preparedReportRead(sqlite),
    eachRow: (sql, params) =>
      sqlite
        .prepare(sql)
        .raw()
        .iterate(...params) as Iterable<unknown[]>,
    ...(insertGameRows ? { insertGameRows: async (rows: GameRow[]) => insertGameRows(rows) } : {}),
    insertRows: (table, rows, conflict) => {
      const insert = preparedInsert(sqlite, db as unknown as AnyDb, table, conflict);
      return { run: () => insert(rows) };
    },
    atomic: async (queries: Query[]) => {
      sqlite
        .transaction(() => {
          for (const q of queries) q.run();
        })
        .immediate();
    },
    close: async () => {
      if (!sqlite.open) return;
      // the WAL folded into the file, so that the last connection's close removes -wal and -shm (and one closing
      // beside a reader that stays leaves an empty WAL)
      if (!opts.readonly) walCheckpoint(sqlite);
      sqlite.close();
      if (opts.readonly) removeIdleWal(file);
    },
  });
  const connection = ++connections;
  const changes = sqlite.prepare('SELECT total_changes()').pluck();
  const dataVersion = () =>
    `${connection}:${String(sqlite.pragma('data_version', { simple: true }))}:${String(changes.get())}`;
  return Object.assign(retryWhenBusy(store, file, opts.busyRetryMs), { sqlite, dataVersion }) as SqliteStore;
}

/** Stored reports by key, prepared on first use (a read-only database from before the table has none). */
function preparedReportRead(sqlite: Database.Database): (keys: ReportKey[]) => StoredReport[] {
  let stmt: Database.Statement<[string], StoredReport> | undefined;
  return (keys) => (stmt ??= sqlite.prepare<[string], StoredReport>(REPORTS_BY_KEYS)).all(keysJson(keys));
}

/**
 * `INSERT … ON CONFLICT DO NOTHING` of one row into `table`, prepared once, run per row in one immediate
 * transaction; true where the row was new. Statement and column order come from drizzle (the schema stays the
 * one source), values encoded as drizzle would, but null stays NULL (drizzle's prepared inserts store 'null').
 */
export function preparedInsert<T extends Table>(
  sqlite: Database.Database,
  db: AnyDb,
  table: T,
  conflict: OnConflict = (q) => q.onConflictDoNothing(),
): (rows: T['$inferInsert'][]) => boolean[] {
  const columns = getTableColumns(table);
  const keys = Object.keys(columns);
  const built = conflict(
    db.insert(table as never).values(Object.fromEntries(keys.map((k) => [k, sql.placeholder(k)])) as never),
  ).toSQL();
  // each parameter is a Param holding its Placeholder (the row's key) and its column (the encoder)
  const params = built.params.map((p) => (is(p, Param) && is(p.value, Placeholder) ? p : undefined));
  if (params.length !== keys.length || params.some((p) => !p))
    throw new Error(`storage: cannot prepare the insert into ${getTableName(table)} (${built.sql})`);
  const order = params.map((p) => (p!.value as Placeholder).name as string);
  const encoders = params.map((p) => p!.encoder as Column);
  // a value left out takes its column's default, as drizzle's insert gives it: $defaultFn or a literal
  // .default(); an SQL default cannot be bound, so such a column is refused here, at open
  const defaults = encoders.map((c) => {
    if (c.defaultFn) return c.defaultFn as () => unknown;
    if (c.default === undefined) return () => null;
    if (is(c.default, SQL))
      throw new Error(
        `storage: ${getTableName(table)}.${c.name} has an SQL default, which the prepared insert cannot bind`,
      );
    return () => c.default;
  });
  const stmt = sqlite.prepare(built.sql);
  const args = new Array<unknown>(order.length);
  return sqlite.transaction((rows: T['$inferInsert'][]) =>
    rows.map((r) => {
      const row = r as Record<string, unknown>;
      for (let i = 0; i < order.length; i++) {
        const given = row[order[i]!];
        const v = given === undefined ? defaults[i]!() : given;
        args[i] = v === null || v === undefined ? null : encoders[i]!.mapToDriverValue(v);
      }
      return stmt.run(args).changes === 1;
    }),
  ).immediate;
}

const isBusy = (e: unknown) => e instanceof Database.SqliteError && /^SQLITE_(BUSY|LOCKED)/.test(e.code);

function lockedError(file: string, waitedMs: number, cause: unknown): ArenaError {
  return new ArenaError(
    `${file}: the database is locked by another process (waited ${(waitedMs / 1000).toFixed(1)} s for its write lock); stop the process that holds it, or try again when it is done`,
    { file },
    { cause },
  );
}

/** what retryWhenBusy hands out as it is (dataVersion reads no table: it never waits for a lock) */
const SYNC: ReadonlySet<PropertyKey> = new Set(['close', 'constructor', 'dataVersion']);

/**
 * Every Store call retried while SQLite answers SQLITE_BUSY, on a timer with jittered backoff, so that a write
 * waits out another process's transaction without blocking the event loop. Each call is one statement or one
 * transaction, so a busy call changed nothing and retrying it is safe.
 */
function retryWhenBusy<S extends DrizzleStore>(store: S, file: string, limitMs = 600_000): S {
  const retried =
    (fn: (...args: unknown[]) => unknown, self: object) =>
    async (...args: unknown[]) => {
      const t0 = Date.now();
      for (let delay = 5; ; delay = Math.min(250, delay * 2)) {
        try {
          return await fn.apply(self, args);
        } catch (e) {
          if (!isBusy(e)) throw e;
          if (Date.now() - t0 > limitMs) throw lockedError(file, Date.now() - t0, e);
          await new Promise((r) => setTimeout(r, delay * (0.5 + Math.random())));
        }
      }
    };
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(t, key, receiver) {
        const v = Reflect.get(t, key, receiver);
        if (typeof v !== 'function' || SYNC.has(key)) return v;
        return retried(v as (...args: unknown[]) => unknown, t);
      },
    });
  const groups = new Map<PropertyKey, object>(STORE_GROUPS.map((g) => [g, wrap(store[g])]));
  const top = wrap(store);
  return new Proxy(store, {
    get(target, key, receiver) {
      return groups.get(key) ?? Reflect.get(top, key, receiver);
    },
  });
}

/** An in-memory Store (tests, previews): the SQLite store on ':memory:'. */
export function openMemoryStore(): SqliteStore {
  return openSqliteStore(':memory:');
}

/**
 * Copy the database to `file` atomically (VACUUM INTO a temporary file, then rename). `file` must not be the
 * database itself; a WAL left beside an older copy is checkpointed and truncated first, else SQLite would apply
 * its stale frames to the new copy.
 */
export function copyDatabase(store: SqliteStore, file: string): void {
  const own = databaseFileOf(file, store.sqlite.name);
  if (own)
    throw new ArenaError(
      `${file} is the database being copied (${own}); a copy renamed over it would destroy it: choose another file`,
      { file },
    );
  const tmp = `${file}.tmp-${randomUUID()}`; // one per copy: two copies to one file never share it
  rmSync(tmp, { force: true });
  try {
    store.sqlite.prepare('VACUUM INTO ?').run(tmp);
    markPublished(tmp, resolve(store.sqlite.name));
    checkpointTarget(file);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** The copy says it is one, and of which database (`published_copy`; `arena serve --annotate` refuses it). */
function markPublished(copy: string, source: string): void {
  const db = new Database(copy, { fileMustExist: true });
  try {
    db.transaction(() => {
      db.prepare('DELETE FROM published_copy').run();
      db.prepare('INSERT INTO published_copy (source, published_at) VALUES (?, ?)').run(source, Date.now());
    })();
  } finally {
    db.close();
  }
}

/** The database a published copy at `file` was copied from (its `published_copy`, read-only), or undefined. */
export function publishedFrom(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const has = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'published_copy'")
      .get();
    const row = has
      ? (db.prepare('SELECT source FROM published_copy LIMIT 1').get() as { source: string })
      : undefined;
    return row?.source;
  } finally {
    db.close();
  }
}

/** A checkpoint that truncates the WAL, as far as readers allow; never an error (a busy reader keeps its frames). */
function walCheckpoint(sqlite: Database.Database): void {
  try {
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
  } catch {
    // the close that follows is what matters
  }
}

/**
 * A read-only connection cannot remove the -wal and -shm that opening a WAL database creates; a writable one that
 * reads and closes can, when it is the last connection.
 */
function removeIdleWal(file: string): void {
  if (file === ':memory:' || !existsSync(`${file}-wal`)) return;
  try {
    const w = new Database(file, { fileMustExist: true });
    try {
      w.pragma('busy_timeout = 0');
      w.pragma('schema_version');
    } finally {
      w.close();
    }
  } catch {
    // a read-only file or folder, or a writer holding it: the files stay
  }
}

/** Fold the WAL of the copy at `file` (if any) into it and truncate the WAL to 0 bytes; throws if it cannot. */
function checkpointTarget(file: string): void {
  if (!existsSync(`${file}-wal`) || statSync(`${file}-wal`).size === 0) return;
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const [r] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (r?.busy)
      throw new ArenaError(
        `${file}: its WAL cannot be checkpointed (a reader holds it open in a transaction); the copy was not replaced, try again`,
        { file },
      );
  } finally {
    db.close();
  }
}
