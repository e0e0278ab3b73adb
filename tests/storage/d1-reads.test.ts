// The site's reads on D1 as fixed SQL (src/storage/d1-reads.ts) against the Store's drizzle reads of the same real
// local D1 (workerd, tests/web/local-d1.ts): the same records with their keys in the same order (the API's JSON is
// compared byte for byte with SQLite's), and the reads asked together go to D1 in one round trip.
import { drizzle, type AnyD1Database } from 'drizzle-orm/d1';
import { migrate } from 'drizzle-orm/d1/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openD1Store } from '../../src/storage/d1.ts';
import type { DrizzleStore } from '../../src/storage/drizzle-store.ts';
import { MIGRATIONS_DIR } from '../../src/storage/sqlite.ts';
import type { CheckpointRecord, RefreshRecord } from '../../src/storage/store.ts';
import { tmpDir } from '../support/cli.ts';
import { openLocalD1 } from '../web/local-d1.ts';
import { ANSWERS, makeGame, QUESTIONS, run, vote } from './contract/fixtures.ts';

let binding: AnyD1Database;
let dispose: (() => Promise<void>) | undefined;
/** the Store with drizzle's reads (the definition) and with the fixed ones, over the same D1 */
let builder: DrizzleStore;
let fixed: DrizzleStore;

/** The binding with its round trips counted: a statement's all/raw/first/run, or one batch. */
function counted(db: AnyD1Database) {
  const n = { calls: 0 };
  type Fn = (...a: unknown[]) => unknown;
  const statement = (s: Record<string, Fn>): object => {
    const w: Record<string, Fn> = { bind: (...a) => statement(s.bind!(...a) as Record<string, Fn>) };
    for (const m of ['all', 'raw', 'first', 'run'])
      w[m] = (...a) => {
        n.calls++;
        return s[m]!(...a);
      };
    real.set(w, s);
    return w;
  };
  const real = new WeakMap<object, object>();
  const d = db as unknown as Record<string, Fn>;
  const wrapped = {
    prepare: (sql: string) => statement(d.prepare!(sql) as Record<string, Fn>),
    batch: (list: object[]) => {
      n.calls++;
      return d.batch!(list.map((s) => real.get(s) ?? s));
    },
    exec: (q: string) => d.exec!(q),
  } as unknown as AnyD1Database;
  return { db: wrapped, n };
}

const item = { id: 1e15 + 7, category: 'Natural', turns: ['Write a haiku.'], set: 'Natural' };
const refresh = (over: Partial<RefreshRecord>): RefreshRecord => ({
  id: 'r-1',
  startedAt: 1_000,
  finishedAt: 2_000,
  status: 'degraded',
  config: { file: 'refresh.json', config: { publish: { showCost: true } } },
  summary: { played: 12, line: 'refresh r-1: DEGRADED — ü 🎉' },
  degraded: ['judge-x: error rate 0.0% -> 100.0% (bound +10.0%)'],
  cost: 1.5,
  ...over,
});
const checkpoint = (over: Partial<CheckpointRecord>): CheckpointRecord => ({
  series: 'sft-1',
  name: 'step-200',
  step: 200,
  model: 'sft-1@step-200',
  baseline: 'gpt-3.5-turbo',
  generation: { kind: 'imported', file: 'sft-1/step-200.jsonl' },
  ...over,
});

beforeAll(async () => {
  const d1 = await openLocalD1(tmpDir('arena-d1-reads-'));
  binding = d1.db;
  dispose = d1.dispose;
  await migrate(drizzle(binding), { migrationsFolder: MIGRATIONS_DIR });
  builder = openD1Store(binding, { fixedReads: false });
  fixed = openD1Store(binding);
  await builder.importBundle({
    questions: { source: 'q.jsonl', items: [...QUESTIONS, item] },
    answers: [{ source: 'a.jsonl', items: ANSWERS }],
    games: [
      makeGame({ runId: 'run-done', cost: 0.5 }),
      makeGame({ runId: 'run-live', judge: 'judge-y', verdict: 'model_1' }),
      makeGame({ runId: 'run-live', judge: 'judge-y' }),
      makeGame({
        judge: 'GPT-4/Vanilla',
        match: { questionId: item.id, category: 'Natural', turn: 1, model1: 'output_1', model2: 'output_2' },
      }),
    ],
    votes: [{ source: 'human.csv', items: [vote(2), vote(3, { winner: 'model_2' })] }],
  });
  await builder.runs.save(run({ id: 'run-done', status: 'done', finishedAt: 1_700_000_009_000, played: 1 }));
  await builder.runs.save(
    run({ id: 'run-live', startedAt: 1_700_000_001_000, owner: 'host:1', heartbeatAt: 1_700_000_002_000 }),
  );
  await builder.runs.save(
    run({ id: 'run-old', startedAt: 1_600_000_000_000, status: 'interrupted', cost: 2 }),
  );
  await builder.runs.recordAttempt({ runId: 'run-live', gameId: 'g-x', judge: 'judge-y', error: 'e', at: 1 });
  await builder.refreshes.save(refresh({}));
  await builder.refreshes.save(
    refresh({ id: 'r-2', startedAt: 3_000, finishedAt: null, status: 'running', heartbeatAt: 3_500 }),
  );
  await builder.refreshes.save(refresh({ id: 'r-0', startedAt: 500, status: 'ok', degraded: null, cost: 0 }));
  await builder.checkpoints.save(checkpoint({}));
  await builder.checkpoints.save(checkpoint({ name: 'step-100', step: 100, model: 'sft-1@step-100' }));
  await builder.checkpoints.save(
    checkpoint({ series: 'rl-2', name: 'a', step: 5, model: 'rl@a', baseline: null }),
  );
  await builder.reports.put([
    { view: 'leaderboard', params: 'b|x', digest: 'd1', version: 1, body: '{"a":[1,2]}', builtAt: 5, ms: 3 },
    { view: '_state', params: '', digest: '', version: 1, body: '{"judges":{}}', builtAt: 6, ms: 0 },
  ]);
}, 120_000);
afterAll(async () => {
  await dispose?.();
});

describe('the site reads on D1 as fixed SQL', () => {
  it('answer what the Store’s drizzle reads answer, keys in the same order', async () => {
    const reads = (s: DrizzleStore) =>
      Promise.all([
        s.games.judges(),
        s.runs.list(),
        s.runs.list(2),
        s.refreshes.list(1),
        s.refreshes.list(),
        s.checkpoints.list(),
        s.checkpoints.list('sft-1'),
        s.catalog.questions(),
        s.catalog.questions({ set: 'Natural' }),
        s.catalog.models(),
        s.catalog.stamp(),
        s.reports.get([
          { view: 'leaderboard', params: 'b|x' },
          { view: '_state', params: '' },
          { view: 'nope', params: '' },
        ]),
        s.reports.get([]),
      ]);
    const [want, got] = [await reads(builder), await reads(fixed)];
    // the data is there: a running run's counters from its games, a labelled item apart, both reports
    expect(want[1].find((r) => r.id === 'run-live')).toMatchObject({ played: 2, failed: 1, owner: 'host:1' });
    expect(want[9]).toEqual(['alpha', 'beta']);
    expect(want[10]).toMatch(/^[1-9]\d*\.\d+\.[1-9]\d*\.\d+$/);
    expect(want[11]).toHaveLength(2);
    expect(JSON.stringify(got)).toBe(JSON.stringify(want));
    expect(got).toEqual(want);
  });

  it('reads asked together are one round trip to D1 (the data version: six statements)', async () => {
    const one = counted(binding);
    const store = openD1Store(one.db);
    const version = () =>
      Promise.all([
        store.games.judges(),
        store.runs.list(),
        store.refreshes.list(1),
        store.checkpoints.list(),
        store.catalog.stamp(),
      ]);
    const [judges] = await version();
    expect(judges.map((j) => j.judge)).toEqual(['human', 'judge-x', 'judge-y']);
    expect(one.n.calls).toBe(1);
    // a read asked alone is one statement, not a batch
    await store.reports.get([{ view: '_state', params: '' }]);
    expect(one.n.calls).toBe(2);
  });

  it('a failing batch answers each read on its own: the failing one rejects, the others resolve', async () => {
    const store = openD1Store(binding);
    await binding.prepare('ALTER TABLE checkpoints RENAME TO checkpoints_away').run();
    try {
      const [judges, checkpoints] = await Promise.allSettled([
        store.games.judges(),
        store.checkpoints.list(),
      ]);
      expect(judges.status).toBe('fulfilled');
      expect(checkpoints.status).toBe('rejected');
      expect(String((checkpoints as PromiseRejectedResult).reason)).toMatch(/no such table: checkpoints/);
    } finally {
      await binding.prepare('ALTER TABLE checkpoints_away RENAME TO checkpoints').run();
    }
  });
});
