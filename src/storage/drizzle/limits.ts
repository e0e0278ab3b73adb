// Fixed-window request counters in the database, so that every process (Node) or isolate (Workers) on it counts
// against the same limit. One upsert counts a request and starts a new window when the old one has ended.
import { lte, sql } from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import type { RateLimitStore } from '../annotator-store.ts';
import type { AnyDb } from './shared.ts';

export class DrizzleRateLimits implements RateLimitStore {
  constructor(private readonly db: AnyDb) {}

  async hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }> {
    const r = t.rateLimits;
    // (in an upsert's SET, a column names the row as it was before: both CASEs read the old window)
    const ended = sql`${r.resetAt} <= ${now}`;
    const [row] = await this.db
      .insert(r)
      .values({ key, count: 1, resetAt: now + windowMs })
      .onConflictDoUpdate({
        target: r.key,
        set: {
          count: sql`CASE WHEN ${ended} THEN 1 ELSE ${r.count} + 1 END`,
          resetAt: sql`CASE WHEN ${ended} THEN ${now + windowMs} ELSE ${r.resetAt} END`,
        },
      })
      .returning({ count: r.count, resetAt: r.resetAt });
    // a new window: forget the windows that have ended (this key's own has not)
    if (row!.count === 1) await this.db.delete(r).where(lte(r.resetAt, now));
    return row!;
  }
}
