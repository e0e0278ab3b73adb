// The one Store contract every adapter (SQLite file, memory, D1) passes, a describe per Store group (contract/*.ts).
// Usage: describeStoreContract('sqlite file', async () => openSqliteStore(path));
import { afterEach, beforeEach, describe } from 'vitest';
import type { Store } from '../../src/storage/store.ts';
import { describeImport } from './contract/import.ts';
import { describeCatalog } from './contract/catalog.ts';
import { describeGames } from './contract/games.ts';
import { describeLeases, describeRuns } from './contract/runs.ts';
import {
  describeBatches,
  describeCheckpoints,
  describePages,
  describeRefreshes,
} from './contract/records.ts';
import { describeLedger } from './contract/ledger.ts';
import { describeAnnotators } from './contract/annotators.ts';

export { ANSWERS, makeGame, PROMPTS, QUESTIONS, REFERENCES } from './contract/fixtures.ts';

/** A fresh, empty store per test. */
export type MakeStore = () => Store | Promise<Store>;

export function describeStoreContract(name: string, makeStore: MakeStore): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });
    const current = () => store;
    describeImport(current);
    describeCatalog(current);
    describeGames(current);
    describeRuns(current);
    describeLeases(current);
    describeRefreshes(current);
    describeCheckpoints(current);
    describeBatches(current);
    describeLedger(current);
    describeAnnotators(current);
    describePages(current);
  });
}
