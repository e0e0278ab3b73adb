// The data cache's fingerprint is read again only when SQLite's dataVersion says the database may have changed, so a
// live page asked again after a quiet second does not pay a pass over the games.
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import type { ImportBundle } from '../../src/storage/store.ts';
import { tmpDir } from '../support/cli.ts';
import { createApp } from '../../src/web/app.ts';

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

describe("SQLite's data version", () => {
  it('the fingerprint is read again only after a write, by another connection or by this one', async () => {
    const file = join(tmpDir('arena-data-version-'), 'site.db');
    const writer = openSqliteStore(file);
    await writer.importBundle(vote('human', 2));
    const store = openSqliteStore(file, { readonly: true });
    // read by the fingerprint alone (a page's own list of judges is held per data version)
    const fingerprints = vi.spyOn(store.catalog, 'stamp');
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
      expect(fingerprints).toHaveBeenCalledTimes(1);
      // another connection (another process: `arena import`, a refresh) commits
      await writer.importBundle(vote('mock/other', 3));
      expect(await judgesShown()).toEqual(expect.arrayContaining(['human', 'mock/other']));
      expect(fingerprints).toHaveBeenCalledTimes(2);
      await judgesShown();
      expect(fingerprints).toHaveBeenCalledTimes(2);
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
