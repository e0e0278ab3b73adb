// What the result cache reads for its data version (the judges, the runs, the newest refresh) is kept for that
// version, so the first request of a new process or Worker isolate asks the store for each once, not two or three
// times (each a D1 call on the Worker).
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openMemoryStore, openSqliteStore } from '../../src/storage/sqlite.ts';
import type { ImportBundle } from '../../src/storage/store.ts';
import { tmpDir } from '../support/cli.ts';
import { createApp } from '../../src/web/app.ts';
import { ResultCache } from '../../src/web/result-cache.ts';

describe('the data version reads', () => {
  it('the first requests ask the store once each for the judges, the runs and the newest refresh', async () => {
    const store = openMemoryStore();
    await store.importBundle({
      votes: [
        {
          source: 'human.csv',
          items: [
            {
              judge: 'human',
              voter: 'v',
              questionId: 81,
              turn: 1,
              model1: 'a',
              model2: 'b',
              winner: 'model_1',
              line: 2,
            },
          ],
        },
      ],
    });
    const judges = vi.spyOn(store.games, 'judges');
    const runs = vi.spyOn(store.runs, 'list');
    const refreshes = vi.spyOn(store.refreshes, 'list');
    const app = createApp({ store, reports: 'read', cache: { checkMs: 60_000 } });
    for (const path of ['/runs', '/refreshes', '/matches'])
      expect((await app.request(path)).status, path).toBe(200);
    expect(judges).toHaveBeenCalledTimes(1);
    // every list of all runs, and of the newest refresh, read once (the pages' own longer lists apart)
    expect(runs.mock.calls.filter((a) => a[0] === undefined)).toHaveLength(1);
    expect(refreshes.mock.calls.filter((a) => a[0] === 1)).toHaveLength(1);
    await store.close();
  });
});

/** One recorded vote of `judge` on question 81. */
const vote = (judge: string, line: number): ImportBundle => ({
  votes: [
    {
      source: `${judge}.csv`,
      items: [
        { judge, voter: 'v', questionId: 81, turn: 1, model1: 'a', model2: 'b', winner: 'model_1', line },
      ],
    },
  ],
});

describe('a write by this process', () => {
  it('makes the next check read the fingerprint again, however recently it was read', async () => {
    const store = openMemoryStore();
    const judges = vi.spyOn(store.games, 'judges');
    const cache = new ResultCache(store, { checkMs: 60_000 });
    await cache.fresh();
    await cache.fresh();
    expect(judges).toHaveBeenCalledTimes(1);
    // an annotator's vote stored on D1, where no data version says it changed
    await store.importBundle(vote('annotators', 2));
    cache.wrote();
    const before = cache.version;
    await cache.fresh();
    expect(judges).toHaveBeenCalledTimes(2);
    expect(cache.version).not.toBe(before);
    await store.close();
  });
});

describe("SQLite's data version", () => {
  it('the fingerprint is read again only after a write, by another connection or by this one', async () => {
    const file = join(tmpDir('arena-data-version-'), 'site.db');
    const writer = openSqliteStore(file);
    await writer.importBundle(vote('human', 2));
    const store = openSqliteStore(file, { readonly: true });
    const judges = vi.spyOn(store.games, 'judges');
    // checkMs 0: without the data version every request would read the fingerprint
    const app = createApp({
      store,
      reports: 'read',
      cache: { checkMs: 0, version: () => store.dataVersion() },
    });
    const judgesShown = async () =>
      ((await (await app.request('/api/judges')).json()) as { judge: string }[]).map((j) => j.judge);
    try {
      expect(await judgesShown()).toEqual(['human']);
      await judgesShown();
      await judgesShown();
      expect(judges).toHaveBeenCalledTimes(1);
      // another connection (another process: `arena import`, a refresh) commits
      await writer.importBundle(vote('mock/other', 3));
      expect(await judgesShown()).toEqual(expect.arrayContaining(['human', 'mock/other']));
      expect(judges).toHaveBeenCalledTimes(2);
      await judgesShown();
      expect(judges).toHaveBeenCalledTimes(2);
    } finally {
      await store.close();
    }
    // this connection's own writes (an annotator's vote on the site) change it too
    const before = writer.dataVersion();
    expect(writer.dataVersion()).toBe(before);
    await writer.importBundle(vote('mock/third', 4));
    expect(writer.dataVersion()).not.toBe(before);
    await writer.close();
  });
});
