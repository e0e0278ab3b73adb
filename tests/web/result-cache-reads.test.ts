// What the result cache reads for its data version (the judges, the runs, the newest refresh) is kept for that
// version, so the first request of a new process or Worker isolate asks the store for each once, not two or three
// times (each a D1 call on the Worker).
import { describe, expect, it, vi } from 'vitest';
import { openMemoryStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';

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
