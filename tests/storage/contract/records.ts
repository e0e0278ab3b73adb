// The Store contract, the ops' records: refreshes, checkpoints and Batch API jobs; and the stored pages.
import { beforeEach, describe, expect, it } from 'vitest';
import type { BatchRecord, CheckpointRecord, RefreshRecord, Store } from '../../../src/storage/store.ts';

export function describeRefreshes(current: () => Store): void {
  describe('refreshes', () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it('save inserts, then updates the same refresh; list is newest first and honours its limit', async () => {
      expect(await store.refreshes.list()).toEqual([]);
      const refresh = (over: Partial<RefreshRecord> = {}): RefreshRecord => ({
        id: 'r-1',
        startedAt: 1_000,
        finishedAt: null,
        status: 'running',
        config: { file: 'refresh.json', config: { db: 'arena.db' } },
        summary: {},
        degraded: null,
        cost: 0,
        ...over,
      });
      await store.refreshes.save(refresh());
      await store.refreshes.save(
        refresh({ id: 'r-0', startedAt: 500, status: 'ok', finishedAt: 600, cost: 0.25 }),
      );
      const degraded = refresh({
        finishedAt: 2_000,
        status: 'degraded',
        summary: {
          played: 12,
          line: 'refresh r-1: DEGRADED — ü 🎉',
          judges: { 'judge-x': { errorRate: 1, inconsistencyRate: null } },
        },
        degraded: ['judge-x: error rate 0.0% -> 100.0% (bound +10.0%)'],
        cost: 1.5,
      });
      await store.refreshes.save(degraded);
      await store.refreshes.save(refresh({ id: 'r-2', startedAt: 3_000, status: 'budget', cost: 2 }));
      expect((await store.refreshes.list()).map((r) => [r.id, r.status])).toEqual([
        ['r-2', 'budget'],
        ['r-1', 'degraded'],
        ['r-0', 'ok'],
      ]);
      expect(await store.refreshes.list(2)).toEqual([
        refresh({ id: 'r-2', startedAt: 3_000, status: 'budget', cost: 2 }),
        degraded,
      ]);
      expect(await store.refreshes.list(1)).toHaveLength(1);
    });

    it('markInterrupted marks every running refresh interrupted and nothing else', async () => {
      const refresh = (id: string, status: RefreshRecord['status'], startedAt: number): RefreshRecord => ({
        id,
        startedAt,
        finishedAt: null,
        status,
        config: { file: 'r.json', config: {} },
        summary: { line: id },
        degraded: null,
        cost: 0,
      });
      expect(await store.refreshes.markInterrupted()).toBe(0);
      await store.refreshes.save(refresh('killed-1', 'running', 1));
      await store.refreshes.save(refresh('killed-2', 'running', 2));
      await store.refreshes.save(refresh('fine', 'ok', 3));
      expect(await store.refreshes.markInterrupted()).toBe(2);
      expect(await store.refreshes.markInterrupted()).toBe(0);
      expect((await store.refreshes.list()).map((r) => [r.id, r.status, r.summary.line])).toEqual([
        ['fine', 'ok', 'fine'],
        ['killed-2', 'interrupted', 'killed-2'],
        ['killed-1', 'interrupted', 'killed-1'],
      ]);
    });
  });
}

export function describeCheckpoints(current: () => Store): void {
  describe('checkpoints', () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it('save upserts by series and name; list orders by series and step and filters by series', async () => {
      expect(await store.checkpoints.list()).toEqual([]);
      const ck = (over: Partial<CheckpointRecord> = {}): CheckpointRecord => ({
        series: 'sft-1',
        name: 'step-200',
        step: 200,
        model: 'sft-1@step-200',
        baseline: 'gpt-3.5-turbo',
        generation: { kind: 'imported', file: 'sft-1/step-200.jsonl' },
        ...over,
      });
      await store.checkpoints.save(ck());
      await store.checkpoints.save(ck({ name: 'step-100', step: 100, model: 'sft-1@step-100' }));
      await store.checkpoints.save(ck({ series: 'rl-2', name: 'a', step: 5, model: 'rl@a', baseline: null }));
      const regenerated = ck({
        generation: {
          kind: 'openai',
          baseURL: 'http://127.0.0.1:9/v1',
          model: 'ckpt',
          maxTokens: 64,
          temperatures: { writing: 0.7, math: 0 },
        },
      });
      await store.checkpoints.save(regenerated);
      expect(await store.checkpoints.list()).toEqual([
        ck({ series: 'rl-2', name: 'a', step: 5, model: 'rl@a', baseline: null }),
        ck({ name: 'step-100', step: 100, model: 'sft-1@step-100' }),
        regenerated,
      ]);
      expect((await store.checkpoints.list('sft-1')).map((c) => c.name)).toEqual(['step-100', 'step-200']);
      expect(await store.checkpoints.list('nope')).toEqual([]);
    });
  });
}

export function describeBatches(current: () => Store): void {
  describe('batches', () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it('saved, listed by judge and status, re-keyed when the server names them, updated and deleted', async () => {
      const batch = (over: Partial<BatchRecord> = {}): BatchRecord => ({
        id: 'submission-1',
        refreshId: 'r-1',
        judge: 'openai/gpt-4',
        inputFileId: '',
        status: 'submitting',
        gameIds: ['g-1', 'g-2 — ü'],
        createdAt: 1_000,
        finishedAt: null,
        cost: null,
        ...over,
      });
      expect(await store.batches.list()).toEqual([]);
      await store.batches.save(batch());
      await store.batches.save(batch({ id: 'submission-2', judge: 'openai/other', createdAt: 2_000 }));
      // 1,500 game ids in one batch: a JSON value, not one row per id
      const many = Array.from({ length: 1500 }, (_, i) => `game-${i}`);
      await store.batches.save(
        batch({ id: 'batch_old', status: 'submitted', gameIds: many, createdAt: 500, inputFileId: 'file-0' }),
      );
      expect((await store.batches.list()).map((b) => b.id)).toEqual([
        'batch_old',
        'submission-1',
        'submission-2',
      ]);
      expect(await store.batches.list({ judge: 'openai/gpt-4', status: 'submitting' })).toEqual([batch()]);
      expect((await store.batches.list({ status: 'submitted' }))[0]!.gameIds).toEqual(many);
      // the submission gets the server's id and file
      await store.batches.update('submission-1', {
        id: 'batch_abc',
        inputFileId: 'file-1',
        status: 'submitted',
      });
      await store.batches.update('no-such-batch', { status: 'failed' });
      await store.batches.update('batch_abc', {});
      expect(await store.batches.list({ judge: 'openai/gpt-4', status: 'submitted' })).toEqual([
        batch({ id: 'batch_old', status: 'submitted', gameIds: many, createdAt: 500, inputFileId: 'file-0' }),
        batch({ id: 'batch_abc', inputFileId: 'file-1', status: 'submitted' }),
      ]);
      await store.batches.update('batch_abc', { status: 'imported', finishedAt: 5_000, cost: 0.125 });
      expect((await store.batches.list({ status: 'imported' }))[0]).toEqual(
        batch({ id: 'batch_abc', inputFileId: 'file-1', status: 'imported', finishedAt: 5_000, cost: 0.125 }),
      );
      await store.batches.delete('submission-2');
      await store.batches.delete('never-existed');
      expect((await store.batches.list()).map((b) => b.id)).toEqual(['batch_old', 'batch_abc']);
      // saving again replaces by id
      await store.batches.save(batch({ id: 'batch_old', status: 'expired', gameIds: [], createdAt: 500 }));
      expect((await store.batches.list({ status: 'expired' })).map((b) => b.gameIds)).toEqual([[]]);
    });
  });
}

export function describePages(current: () => Store): void {
  describe('pages', () => {
    it('serves a page only while the reports are at the state it was rendered from; replace swaps them all', async () => {
      const store = current();
      const page = (key: string, state: string) => ({ key, state, body: `{"body":"${key}"}`, builtAt: 1 });
      const state = (body: string) =>
        store.reports.put([{ view: '_state', params: '', digest: '', version: 1, body, builtAt: 1, ms: 0 }]);
      expect(await store.pages.current('/')).toBeUndefined();
      await store.pages.replace([page('/', 's1'), page('/judges', 's1')]);
      expect(await store.pages.current('/')).toBeUndefined();
      await state('s1');
      expect(await store.pages.current('/')).toBe('{"body":"/"}');
      expect(await store.pages.current('/nope')).toBeUndefined();
      await state('s2');
      expect(await store.pages.current('/')).toBeUndefined();
      await store.pages.replace([page('/', 's2')]);
      expect(await store.pages.list()).toEqual([page('/', 's2')]);
      expect(await store.pages.current('/')).toBe('{"body":"/"}');
      await store.pages.replace([]);
      expect(await store.pages.list()).toEqual([]);
    });
  });
}
