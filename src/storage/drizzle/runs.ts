// Runs of the play loop and their failed judge calls (attempts).
import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import type { RunRecord, RunStore } from '../store.ts';
import type { AnyDb, DrizzleStoreOptions } from './shared.ts';

export class DrizzleRuns implements RunStore {
  private readonly db: AnyDb;
  constructor(private readonly o: DrizzleStoreOptions) {
    this.db = o.db;
  }

  async save(r: RunRecord): Promise<void> {
    const row = {
      ...r,
      finishedAt: r.finishedAt ?? null,
      owner: r.owner ?? null,
      heartbeatAt: r.heartbeatAt ?? null,
    };
    await this.db.insert(t.runs).values(row).onConflictDoUpdate({ target: t.runs.id, set: row });
  }

  async list(limit?: number): Promise<RunRecord[]> {
    const rows =
      limit === undefined
        ? await this.db.select().from(t.runs).orderBy(asc(t.runs.startedAt))
        : (
            await this.db.select().from(t.runs).orderBy(desc(t.runs.startedAt), desc(t.runs.id)).limit(limit)
          ).reverse();
    // owner and heartbeat are left out where null (the heartbeat of a finished run, rows from before them)
    return rows.map(({ owner, heartbeatAt, ...r }) => ({
      ...r,
      status: r.status as RunRecord['status'],
      ...(owner !== null ? { owner } : {}),
      ...(heartbeatAt !== null ? { heartbeatAt } : {}),
    }));
  }

  async recordAttempt(a: {
    runId: string;
    gameId: string;
    judge: string;
    error: string;
    at: number;
  }): Promise<void> {
    await this.db.insert(t.attempts).values(a);
  }

  async markInterrupted(ids: string[], at: number): Promise<number> {
    if (!ids.length) return 0;
    const before = await this.db
      .select({ id: t.runs.id })
      .from(t.runs)
      .where(and(inArray(t.runs.id, ids), eq(t.runs.status, 'running')));
    if (!before.length) return 0;
    const dead = before.map((r) => r.id);
    await this.o.atomic([
      this.db
        .update(t.runs)
        .set({ status: 'interrupted', finishedAt: at, heartbeatAt: null })
        .where(and(inArray(t.runs.id, dead), eq(t.runs.status, 'running'))),
      this.db.delete(t.leases).where(inArray(t.leases.owner, dead)),
    ]);
    return dead.length;
  }
}
