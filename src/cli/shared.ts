import type { SqliteStore } from '../storage/sqlite.ts';
import { openCheckedStore, type OpenOptions } from './open-db.ts';

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

/** Open the database, checked (src/cli/open-db.ts); read-only commands refuse a missing file instead of creating an empty one. */
export function openStore(file: string, opts: OpenOptions = {}): SqliteStore {
  return openCheckedStore(file, opts);
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
export async function withStore<T>(
  file: string,
  fn: (store: SqliteStore) => Promise<T>,
  opts: OpenOptions = {},
): Promise<T> {
  const store = openStore(file, opts);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
