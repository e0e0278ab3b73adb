// The Store contract, runs and the leases their games are played under.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/storage/store.ts';
import { makeGame, run } from './fixtures.ts';

export function describeRuns(current: () => Store): void {
  describe('runs', () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it('save inserts, then updates the same run; list orders by start', async () => {
      await store.runs.save(run({ id: 'late', startedAt: 2_000 }));
      await store.runs.save(run({ id: 'early', startedAt: 1_000 }));
      const done = run({
        id: 'late',
        startedAt: 2_000,
        finishedAt: 3_000,
        played: 8,
        failed: 1,
        tokensIn: 900,
        tokensOut: 80,
        status: 'done',
        cost: 0.42,
      });
      await store.runs.save(done);
      expect(await store.runs.list()).toEqual([run({ id: 'early', startedAt: 1_000 }), done]);
    });

    it('markInterrupted marks only running runs and frees their leases; owner and heartbeat round-trip', async () => {
      await store.runs.save(run({ id: 'dead', owner: 'host:123', heartbeatAt: 1_700_000_000_500 }));
      await store.runs.save(run({ id: 'finished', status: 'done', finishedAt: 1 }));
      expect((await store.runs.list()).find((r) => r.id === 'dead')).toEqual(
        run({ id: 'dead', owner: 'host:123', heartbeatAt: 1_700_000_000_500 }),
      );
      await store.leases.claim('dead', ['x', 'y'], 1e15, 0);
      expect(await store.runs.markInterrupted(['dead', 'finished', 'unknown'], 5_000)).toBe(1);
      expect(await store.runs.markInterrupted(['dead'], 6_000)).toBe(0);
      const runs = await store.runs.list();
      expect(runs.find((r) => r.id === 'dead')).toEqual(
        run({ id: 'dead', status: 'interrupted', finishedAt: 5_000, owner: 'host:123' }),
      );
      expect(runs.find((r) => r.id === 'finished')!.status).toBe('done');
      expect((await store.leases.claim('live', ['x', 'y'], 1e15, 0)).sort()).toEqual(['x', 'y']);
    });

    it('recordAttempt keeps failed calls apart from games', async () => {
      await store.runs.save(run());
      const g = makeGame();
      await store.runs.recordAttempt({
        runId: 'run-1',
        gameId: g.id,
        judge: 'judge-x',
        error: '[judge:openai] 429 Too Many Requests',
        at: 1,
      });
      await store.runs.recordAttempt({
        runId: 'run-1',
        gameId: g.id,
        judge: 'judge-x',
        error: '[judge:openai] timeout',
        at: 2,
      });
      expect(await store.games.existingIds([g.id])).toEqual(new Set());
      expect(await store.games.list()).toEqual([]);
      expect(await store.games.judges()).toEqual([]);
    });
  });
}

export function describeLeases(current: () => Store): void {
  describe('leases', () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it('claim leases games that are neither stored nor leased to another run; an expired lease is taken over', async () => {
      const stored = makeGame();
      await store.games.insert(stored);
      const ids = Array.from({ length: 150 }, (_, i) => `g-${i}`); // more than D1 binds in one statement
      // run A takes everything that is not stored
      expect((await store.leases.claim('A', [stored.id, ...ids], 10_000, 1_000)).sort()).toEqual(
        [...ids].sort(),
      );
      // run B gets nothing while A's leases are live
      expect(await store.leases.claim('B', ['g-1', 'g-2', 'new-1'], 20_000, 5_000)).toEqual(['new-1']);
      // A claiming its own again extends them
      expect((await store.leases.claim('A', ['g-1', 'g-2'], 30_000, 6_000)).sort()).toEqual(['g-1', 'g-2']);
      // at 15 s A's other leases (until 10 s) have expired: B takes g-3, not g-1 (renewed to 30 s)
      expect((await store.leases.claim('B', ['g-1', 'g-3'], 40_000, 15_000)).sort()).toEqual(['g-3']);
      // renewing keeps A's leases from being taken
      await store.leases.renew('A', 100_000);
      expect(await store.leases.claim('B', ['g-4', 'g-5'], 50_000, 60_000)).toEqual([]);
      // a released lease is free at once; a game stored meanwhile is never leased again
      await store.leases.release('A', ['g-4']);
      await store.games.insert(makeGame({ id: 'g-5' }));
      await store.leases.release('A', ['g-5']);
      expect((await store.leases.claim('B', ['g-4', 'g-5'], 50_000, 60_000)).sort()).toEqual(['g-4']);
      // releasing all of A's leaves B's
      await store.leases.release('A');
      expect((await store.leases.claim('C', ['g-0', 'g-3', 'g-4', 'new-1'], 50_000, 10_000)).sort()).toEqual([
        'g-0',
      ]);
      expect(await store.leases.claim('C', [], 1, 1)).toEqual([]);
    });
  });
}
