// Runs of the play loop and their failed judge calls (attempts).
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import type { RunRecord, RunStore } from '../store.ts';
import { inJson, sqlFields, type AnyDb, type DrizzleStoreOptions } from './shared.ts';

/** A run's played games, tokens and cost as its stored games say, as SQL over `runs`. */
const LEDGER_FROM_GAMES = sqlFields({
  played: '(SELECT count(*) FROM games g WHERE g.run_id = runs.id)',
  // a failed call that was billed (its attempt's usage and cost: reasoning at the allowance) counts with the games
  tokensIn:
    '((SELECT coalesce(sum(g.tokens_in), 0) FROM games g WHERE g.run_id = runs.id) + (SELECT coalesce(sum(a.tokens_in), 0) FROM attempts a WHERE a.run_id = runs.id))',
  tokensOut:
    '((SELECT coalesce(sum(g.tokens_out), 0) FROM games g WHERE g.run_id = runs.id) + (SELECT coalesce(sum(a.tokens_out), 0) FROM attempts a WHERE a.run_id = runs.id))',
  cost: '(CASE WHEN runs.cost IS NULL AND NOT EXISTS (SELECT 1 FROM games g WHERE g.run_id = runs.id AND g.cost IS NOT NULL) AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = runs.id AND a.cost IS NOT NULL) THEN NULL ELSE (SELECT coalesce(sum(g.cost), 0) FROM games g WHERE g.run_id = runs.id) + (SELECT coalesce(sum(a.cost), 0) FROM attempts a WHERE a.run_id = runs.id) END)',
  failed:
    'max(runs.failed, (SELECT count(DISTINCT a.game_id) FROM attempts a WHERE a.run_id = runs.id AND NOT EXISTS (SELECT 1 FROM games g WHERE g.id = a.game_id AND g.run_id = runs.id)))',
});

/** A runs row as stored (every column), and its ledger as its stored games say. */
type RunRow = { run: typeof t.runs.$inferSelect } & {
  [K in keyof typeof LEDGER_FROM_GAMES]: K extends 'cost' ? number | null : number;
};

/**
 * A run record from its row (owner and heartbeat left out where null); a running run's counters are what its
 * stored games say (its progress writes lag, and stop when killed).
 */
const runRecord = ({ run: { owner, heartbeatAt, ...r }, ...stored }: RunRow): RunRecord => ({
  ...r,
  ...(r.status === 'running' ? stored : {}),
  status: r.status as RunRecord['status'],
  ...(owner !== null ? { owner } : {}),
  ...(heartbeatAt !== null ? { heartbeatAt } : {}),
});

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
    const query = this.db.select({ run: t.runs, ...LEDGER_FROM_GAMES }).from(t.runs);
    const rows =
      limit === undefined
        ? await query.orderBy(asc(t.runs.startedAt))
        : (await query.orderBy(desc(t.runs.startedAt), desc(t.runs.id)).limit(limit)).reverse();
    return rows.map(runRecord);
  }

  async recordAttempt(a: Parameters<RunStore['recordAttempt']>[0]): Promise<void> {
    await this.db.insert(t.attempts).values(a);
  }

  async failedWith(ids: string[], prefix: string): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await this.db
      .selectDistinct({ id: t.attempts.gameId })
      .from(t.attempts)
      .where(
        and(
          inJson(t.attempts.gameId, ids),
          sql`substr(${t.attempts.error}, 1, ${prefix.length}) = ${prefix}`,
        ),
      );
    return new Set(rows.map((r) => r.id));
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
        // its counters as its stored games say (a killed run's last progress write lags behind them)
        .set({ status: 'interrupted', finishedAt: at, heartbeatAt: null, ...LEDGER_FROM_GAMES })
        .where(and(inArray(t.runs.id, dead), eq(t.runs.status, 'running'))),
      this.db.delete(t.leases).where(inArray(t.leases.owner, dead)),
    ]);
    return dead.length;
  }
}
