// The Store over a drizzle SQLite database: one object per group of records (src/storage/drizzle/*.ts), all
// on the same handle. sqlite.ts and d1.ts only supply the connection, its parameter limit and atomicity.
import type { ImportBundle, ImportCounts, Store, StoreGroup } from './store.ts';
import { DrizzleAnnotators } from './drizzle/annotators.ts';
import { DrizzleBatches } from './drizzle/batches.ts';
import { DrizzleCatalog } from './drizzle/catalog.ts';
import { DrizzleCheckpoints } from './drizzle/checkpoints.ts';
import { DrizzleGames } from './drizzle/games.ts';
import { importBundle } from './drizzle/import.ts';
import { DrizzleLeases } from './drizzle/leases.ts';
import { DrizzleRateLimits } from './drizzle/limits.ts';
import { DrizzleLedger } from './drizzle/ledger.ts';
import { DrizzlePages } from './drizzle/pages.ts';
import { DrizzleReports } from './drizzle/reports.ts';
import { DrizzleRefreshes } from './drizzle/refreshes.ts';
import { DrizzleRuns } from './drizzle/runs.ts';
import type { AnyDb, DrizzleStoreOptions } from './drizzle/shared.ts';
import { DrizzleVotes } from './drizzle/votes.ts';

export type { AnyDb, DrizzleStoreOptions, GameRow, OnConflict, Query } from './drizzle/shared.ts';

/** Every group of the Store, made on the same handle (checked by the compiler: a group left out would lose the busy retry). */
const GROUPS = {
  catalog: (o: DrizzleStoreOptions) => new DrizzleCatalog(o.db),
  games: (o: DrizzleStoreOptions) => new DrizzleGames(o),
  votes: (o: DrizzleStoreOptions) => new DrizzleVotes(o.db),
  runs: (o: DrizzleStoreOptions) => new DrizzleRuns(o),
  leases: (o: DrizzleStoreOptions) => new DrizzleLeases(o),
  refreshes: (o: DrizzleStoreOptions) => new DrizzleRefreshes(o.db),
  checkpoints: (o: DrizzleStoreOptions) => new DrizzleCheckpoints(o.db),
  batches: (o: DrizzleStoreOptions) => new DrizzleBatches(o.db),
  ledger: (o: DrizzleStoreOptions) => new DrizzleLedger(o.db),
  annotators: (o: DrizzleStoreOptions) => new DrizzleAnnotators(o),
  limits: (o: DrizzleStoreOptions) => new DrizzleRateLimits(o.db),
  reports: (o: DrizzleStoreOptions) => new DrizzleReports(o),
  pages: (o: DrizzleStoreOptions) => new DrizzlePages(o),
} satisfies Record<StoreGroup, (o: DrizzleStoreOptions) => object>;
/** The Store's groups by name (the busy retry of sqlite.ts wraps each one's methods). */
export const STORE_GROUPS = Object.keys(GROUPS) as StoreGroup[];

type Groups = { readonly [K in StoreGroup]: ReturnType<(typeof GROUPS)[K]> };

/** The Store: its groups on one handle, and the import that writes across them. */
export type DrizzleStore = Groups & {
  readonly db: AnyDb;
  importBundle(b: ImportBundle): Promise<ImportCounts>;
  close(): Promise<void>;
};

export function drizzleStore(o: DrizzleStoreOptions): DrizzleStore {
  const groups = Object.fromEntries(STORE_GROUPS.map((g) => [g, GROUPS[g](o)])) as Groups;
  return {
    ...groups,
    db: o.db,
    importBundle: (b) => importBundle(o, b),
    close: async () => {
      await o.close?.();
    },
  } satisfies Store & DrizzleStore;
}
