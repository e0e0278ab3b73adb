import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { fileURLToPath } from 'node:url';
import * as schema from '../../db/schema.ts';
import { DrizzleStore, type AnyDb, type Query } from './drizzle-store.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../db/migrations', import.meta.url));

export interface SqliteStore extends DrizzleStore {
  readonly sqlite: Database.Database;
}

/**
 * The Store on an embedded SQLite file (better-sqlite3). WAL journal: every committed game survives a
 * crash or SIGKILL of the process. Migrations from db/migrations are applied on open.
 */
export function openSqliteStore(file: string, opts: { readonly?: boolean } = {}): SqliteStore {
  const sqlite = new Database(file, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  if (!opts.readonly) {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
  }
  sqlite.pragma('busy_timeout = 5000');
  const db = drizzle({ client: sqlite, schema });
  if (!opts.readonly) migrate(db, { migrationsFolder: MIGRATIONS_DIR });
  const store = new DrizzleStore({
    db: db as unknown as AnyDb,
    maxParams: 30000,
    atomic: async (queries: Query[]) => {
      sqlite.transaction(() => {
        for (const q of queries) q.run();
      })();
    },
    close: async () => {
      if (sqlite.open) sqlite.close();
    },
  });
  return Object.assign(store, { sqlite }) as SqliteStore;
}

/** An in-memory Store (tests, previews): the SQLite store on ':memory:'. */
export function openMemoryStore(): SqliteStore {
  return openSqliteStore(':memory:');
}
