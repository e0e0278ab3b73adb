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

export type { AnyDb, DrizzleStoreOptions, GameRow, Query } from './drizzle/shared.ts';

// every group of the Store, checked by the compiler: a group left out here would lose the busy retry
const GROUPS: Record<StoreGroup, true> = {
  catalog: true,
  games: true,
  votes: true,
  runs: true,
  leases: true,
  refreshes: true,
  checkpoints: true,
  batches: true,
  ledger: true,
  annotators: true,
  limits: true,
  reports: true,
  pages: true,
};
/** The Store's groups by name (the busy retry of sqlite.ts wraps each one's methods). */
export const STORE_GROUPS = Object.keys(GROUPS) as StoreGroup[];

export class DrizzleStore implements Store {
  readonly db: AnyDb;
  readonly catalog: DrizzleCatalog;
  readonly games: DrizzleGames;
  readonly votes: DrizzleVotes;
  readonly runs: DrizzleRuns;
  readonly leases: DrizzleLeases;
  readonly refreshes: DrizzleRefreshes;
  readonly checkpoints: DrizzleCheckpoints;
  readonly batches: DrizzleBatches;
  readonly ledger: DrizzleLedger;
  readonly annotators: DrizzleAnnotators;
  readonly limits: DrizzleRateLimits;
  readonly reports: DrizzleReports;
  readonly pages: DrizzlePages;

  constructor(private readonly o: DrizzleStoreOptions) {
    this.db = o.db;
    this.catalog = new DrizzleCatalog(o.db);
    this.games = new DrizzleGames(o);
    this.votes = new DrizzleVotes(o.db);
    this.runs = new DrizzleRuns(o);
    this.leases = new DrizzleLeases(o);
    this.refreshes = new DrizzleRefreshes(o.db);
    this.checkpoints = new DrizzleCheckpoints(o.db);
    this.batches = new DrizzleBatches(o.db);
    this.ledger = new DrizzleLedger(o.db);
    this.annotators = new DrizzleAnnotators(o);
    this.limits = new DrizzleRateLimits(o.db);
    this.reports = new DrizzleReports(o);
    this.pages = new DrizzlePages(o);
  }

  async importBundle(b: ImportBundle): Promise<ImportCounts> {
    return importBundle(this.o, b);
  }

  async close(): Promise<void> {
    await this.o.close?.();
  }
}
