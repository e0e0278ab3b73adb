// Spilled paid verdicts (storage/recovery.ts) stored by the next run with the failed run's record, the file removed,
// and the stopped run's leases freed so its games play at once.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { restoreSpilled, spillGames, spilledFiles } from '../../src/storage/recovery.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { tmpDir } from '../support/cli.ts';
import { makeGame, QUESTIONS, run } from './contract/fixtures.ts';

let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe('spilled verdicts', () => {
  it('the next run stores the games and the failed run, removes the file, and frees the stopped run’s leases', async () => {
    const db = join(tmpDir('arena-recovery-'), 'a.db');
    store = openSqliteStore(db);
    await store.importBundle({ questions: { source: 'q.jsonl', items: QUESTIONS } });
    const paid = [makeGame(), makeGame()];
    const stopped = run({
      id: 'stopped',
      status: 'failed',
      finishedAt: 2_000,
      config: { stoppedBy: 'full' },
    });
    await store.runs.save({ ...stopped, status: 'running', finishedAt: null });
    // the stopped run had leased games it never called, and another live run holds one lease
    const far = Date.now() + 3_600_000;
    expect(await store.leases.claim('stopped', ['g1', 'g2'], far, 0)).toEqual(['g1', 'g2']);
    expect(await store.leases.claim('live', ['g3'], far, 0)).toEqual(['g3']);

    const fallback = tmpDir('arena-recovery-fallback-');
    const file = await spillGames(db, fallback, paid, stopped);
    expect(dirname(file)).toBe(dirname(db)); // beside the database while its folder takes it
    expect(spilledFiles(db, fallback)).toEqual([file]);
    expect(await restoreSpilled(store, db, fallback)).toEqual([{ file, games: 2 }]);
    expect(existsSync(file)).toBe(false);
    expect((await store.games.list()).map((g) => g.id).sort()).toEqual(paid.map((g) => g.id).sort());
    expect((await store.runs.list()).find((r) => r.id === 'stopped')).toEqual(stopped);
    // the stopped run's leases are free now; the live run's lease is not
    const now = Date.now();
    expect((await store.leases.claim('next', ['g1', 'g2', 'g3'], now + 60_000, now)).sort()).toEqual([
      'g1',
      'g2',
    ]);
  });

  it('when the folder beside the database refuses the file, it goes to the fallback folder the caller names', async () => {
    const dir = tmpDir('arena-recovery-');
    store = openSqliteStore(join(dir, 'b.db'));
    await store.importBundle({ questions: { source: 'q.jsonl', items: QUESTIONS } });
    // a database path whose folder does not exist: writing beside it fails (ENOENT), as on a full disk
    const gone = join(dir, 'gone', 'b.db');
    const fallback = tmpDir('arena-recovery-fallback-');
    const paid = [makeGame()];
    const stopped = run({ id: 'stopped', status: 'failed', finishedAt: 2_000 });
    const file = await spillGames(gone, fallback, paid, stopped);
    expect(dirname(file)).toBe(fallback);
    expect(spilledFiles(gone, fallback)).toEqual([file]);
    // another database's fallback files are not this one's
    expect(spilledFiles(join(dir, 'other.db'), fallback)).toEqual([]);
    expect(await restoreSpilled(store, gone, fallback)).toEqual([{ file, games: 1 }]);
    expect(existsSync(file)).toBe(false);
    expect((await store.games.list()).map((g) => g.id)).toEqual(paid.map((g) => g.id));
  });

  it('the stopped run’s ledger counts the games restored under it (played, tokens, cost), not one another run stored', async () => {
    const db = join(tmpDir('arena-recovery-ledger-'), 'a.db');
    store = openSqliteStore(db);
    await store.importBundle({ questions: { source: 'q.jsonl', items: QUESTIONS } });
    // at the stop it had stored one game (100 + 20 tokens, $0.01); three more were paid and spilled
    const storedThen = makeGame({ runId: 'stopped', cost: 0.01 });
    const meanwhile = makeGame({ runId: 'stopped', cost: 0.5, tokensIn: 7, tokensOut: 7 });
    const spilled = [
      makeGame({ runId: 'stopped', cost: 0.02, tokensIn: 200, tokensOut: 30 }),
      makeGame({ runId: 'stopped', cost: 0.04, tokensIn: null, tokensOut: null }),
      meanwhile,
    ];
    const stopped = run({
      id: 'stopped',
      status: 'failed',
      played: 1,
      tokensIn: 100,
      tokensOut: 20,
      cost: 0.01,
      config: { stoppedBy: 'full' },
    });
    await store.runs.save(stopped);
    await store.games.insertMany([storedThen, { ...meanwhile, runId: 'other' }]);
    const fallback = tmpDir('arena-recovery-fallback-');
    await spillGames(db, fallback, spilled, stopped);
    expect(await restoreSpilled(store, db, fallback)).toEqual([expect.objectContaining({ games: 3 })]);
    const after = (await store.runs.list()).find((r) => r.id === 'stopped')!;
    expect({ ...after, cost: Math.round(after.cost! * 1e6) }).toEqual({
      ...stopped,
      played: 3,
      tokensIn: 300,
      tokensOut: 50,
      cost: 70_000,
    });
  });
});
