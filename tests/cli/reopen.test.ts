// reopeningStore (src/cli/reopen.ts) over a file replaced by a renamed copy: a component that kept one of the Store's
// groups (the rate limiter's `store.limits`) writes to the file the path names now, never the closed connection.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { reopeningStore } from '../../src/cli/reopen.ts';
import { copyDatabase, openSqliteStore } from '../../src/storage/sqlite.ts';
import { tmpDir } from '../support/cli.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('reopeningStore', () => {
  it('a group kept before the file was replaced reads and writes the new file after the old connection closed', async () => {
    const dir = tmpDir('arena-reopen-');
    const file = join(dir, 'live.db');
    const source = openSqliteStore(join(dir, 'source.db'));
    copyDatabase(source, file);
    const store = reopeningStore(file, () => openSqliteStore(file), { checkMs: 0, graceMs: 10 });
    const limits = store.limits; // kept, as a component made once at start keeps it
    expect((await limits.hit('k', 60_000, 1000)).count).toBe(1);

    await source.limits.hit('other', 60_000, 1000);
    copyDatabase(source, file); // the refresh republishes
    await source.close();
    await store.catalog.models(); // any request notices the replacement
    await sleep(50); // the replaced connection is closed
    expect((await limits.hit('k', 60_000, 1000)).count).toBe(1);
    const raw = new Database(file, { readonly: true });
    expect(raw.prepare('SELECT key, count FROM rate_limits ORDER BY key').all()).toEqual([
      { key: 'k', count: 1 },
      { key: 'other', count: 1 },
    ]);
    raw.close();
    await store.close();
  });
});
