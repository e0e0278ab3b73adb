// Leases on games not yet stored: a run claims the games it is about to play, so two runs never pay twice.
import { and, eq, inArray, sql } from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import type { LeaseStore } from '../store.ts';
import { slices, type AnyDb, type DrizzleStoreOptions } from './shared.ts';

export class DrizzleLeases implements LeaseStore {
  private readonly db: AnyDb;
  constructor(private readonly o: DrizzleStoreOptions) {
    this.db = o.db;
  }

  async claim(owner: string, ids: string[], expiresAt: number, now: number): Promise<string[]> {
    const out: string[] = [];
    // the ids travel as one JSON parameter (json_each), so a claim of any size is one statement under D1's parameter limit
    for (const c of slices(ids, 500)) {
      const rows = await this.db.all<{ game_id: string }>(sql`
        INSERT INTO leases (game_id, owner, expires_at)
        SELECT j.value, ${owner}, ${expiresAt} FROM json_each(${JSON.stringify(c)}) AS j
        WHERE NOT EXISTS (SELECT 1 FROM games WHERE games.id = j.value)
        ON CONFLICT (game_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
        WHERE leases.owner = excluded.owner OR leases.expires_at <= ${now}
        RETURNING game_id`);
      for (const r of rows) out.push(r.game_id);
    }
    return out;
  }

  async renew(owner: string, expiresAt: number): Promise<void> {
    await this.db.update(t.leases).set({ expiresAt }).where(eq(t.leases.owner, owner));
  }

  async release(owner: string, ids?: string[]): Promise<void> {
    if (!ids) {
      await this.db.delete(t.leases).where(eq(t.leases.owner, owner));
      return;
    }
    for (const c of slices(ids, this.o.maxParams - 1))
      await this.db.delete(t.leases).where(and(eq(t.leases.owner, owner), inArray(t.leases.gameId, c)));
  }
}
