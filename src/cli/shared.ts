import { existsSync } from 'node:fs';
import { ArenaError } from '../core/types.ts';
import { openSqliteStore, type SqliteStore } from '../storage/sqlite.ts';

export const dbArg = { db: { type: 'string', description: 'SQLite database file', default: './arena.db', valueHint: 'FILE' } } as const;
export const jsonArg = { json: { type: 'boolean', description: 'print one JSON array instead of a table' } } as const;

/** Open the database; read-only commands refuse a missing file instead of creating an empty one. */
export function openStore(file: string, opts: { mustExist?: boolean } = {}): SqliteStore {
  if (opts.mustExist && file !== ':memory:' && !existsSync(file)) throw new ArenaError(`${file}: no such database (create it with \`arena import ...\`)`);
  return openSqliteStore(file);
}

export function print(s: string): void {
  process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);
}

export function printJson(v: unknown): void {
  process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
}

/** Commands report their exit status here; only main.ts exits the process. */
export const exitStatus = { code: 0 };

/** Open the database, run `fn`, and close it whatever happens. */
export async function withStore<T>(file: string, fn: (store: SqliteStore) => Promise<T>, opts: { mustExist?: boolean } = {}): Promise<T> {
  const store = openStore(file, opts);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
