// The Store on Cloudflare D1 (Workers): the same DrizzleStore over drizzle-orm/d1. D1 has no interactive
// transactions (`db.batch` runs statements atomically), and a statement binds at most 100 parameters.
import { drizzle, type AnyD1Database } from 'drizzle-orm/d1';
import * as schema from '../../db/schema.ts';
import { drizzleStore, type AnyDb, type DrizzleStore, type Query } from './drizzle-store.ts';

/** D1's limit on bound parameters per statement. */
export const D1_MAX_PARAMS = 100;

export function openD1Store(binding: AnyD1Database): DrizzleStore {
  const db = drizzle(binding, { schema });
  return drizzleStore({
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
}
