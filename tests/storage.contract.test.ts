// The Store contract (tests/storage.contract.ts) over every Node adapter: a SQLite file and SQLite in memory.
// The D1 adapter runs the same suite from its own test file.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openMemoryStore, openSqliteStore } from '../src/storage/sqlite.ts';
import { tmpDir } from './support/cli.ts';
import { describeStoreContract, makeGame, QUESTIONS } from './storage.contract.ts';

const dir = tmpDir('arena-store-');
let n = 0;

describeStoreContract('sqlite file', () => openSqliteStore(join(dir, `store-${++n}.db`)));
describeStoreContract('sqlite memory', () => openMemoryStore());

describe('sqlite file specifics', () => {
  it('what one connection wrote, the next one reads (the file is the database)', async () => {
    const file = join(dir, 'reopen.db');
    const g = makeGame();
    const a = openSqliteStore(file);
    await a.importBundle({ questions: { source: 'q.jsonl', items: QUESTIONS }, games: [g] });
    await a.close();
    expect(existsSync(file)).toBe(true);
    const b = openSqliteStore(file, { readonly: true });
    expect(await b.listQuestions()).toEqual(QUESTIONS);
    expect(await b.listGames()).toEqual([g]);
    await b.close();
  });
});
