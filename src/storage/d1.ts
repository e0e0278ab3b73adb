// The Store on Cloudflare D1 (Workers): the same DrizzleStore over drizzle-orm/d1. D1 has no
// interactive transactions; `db.batch` runs a list of statements atomically, and a statement may
// bind at most 100 parameters.
import { drizzle, type AnyD1Database } from 'drizzle-orm/d1';
import * as schema from '../../db/schema.ts';
import { DrizzleStore, type AnyDb, type Query } from './drizzle-store.ts';
import { D1Reads } from './d1-reads.ts';
import { noTable } from './drizzle/reports.ts';

/** D1's limit on bound parameters per statement. */
export const D1_MAX_PARAMS = 100;

export interface D1StoreOptions {
  /**
   * The site's reads as fixed SQL, batched per turn of the event loop (src/storage/d1-reads.ts; default true);
   * false: drizzle's query builder for every read, as the other adapters (tests compare the two).
   */
  fixedReads?: boolean;
}

export function openD1Store(binding: AnyD1Database, o: D1StoreOptions = {}): DrizzleStore {
  const db = drizzle(binding, { schema });
  const store = new DrizzleStore({
    db: db as unknown as AnyDb,
    maxParams: D1_MAX_PARAMS,
    atomic: async (queries: Query[]) => {
      if (!queries.length) return;
      try {
        // batch is all-or-nothing: D1 wraps it in one implicit transaction
        await db.batch(queries as unknown as Parameters<typeof db.batch>[0]);
      } catch (e) {
        throw new Error(
          `[storage:d1] batch of ${queries.length} statements failed: ${(e as Error).message}`,
          { cause: e },
        );
      }
    },
  });
  if (o.fixedReads !== false) useFixedReads(store, new D1Reads(binding));
  return store;
}

/**
 * The Store's site reads replaced by D1Reads (same answers, one fixed statement each, batched); every other read
 * and every write stays drizzle's.
 */
function useFixedReads(store: DrizzleStore, r: D1Reads): void {
  const { runs, refreshes, checkpoints, catalog, reports } = store;
  const checkpointsList = checkpoints.list;
  store.games.judges = () => r.judges();
  runs.list = (limit) => r.runs(limit);
  refreshes.list = (limit) => r.refreshes(limit);
  checkpoints.list = (series) =>
    series === undefined ? r.checkpoints() : checkpointsList.call(checkpoints, series);
  catalog.questions = (f = {}) => r.questions(f);
  catalog.models = () => r.models();
  catalog.stamp = () => r.stamp();
  reports.get = (keys) =>
    r.reports(keys).catch((e: unknown) => {
      if (noTable(e)) return [];
      throw e;
    });
  reports.current = (view, params) =>
    r.current(view, params).catch((e: unknown) => {
      if (noTable(e)) return undefined;
      throw e;
    });
}
