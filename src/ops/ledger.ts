// What refreshes recorded (the `refreshes` table) and what was spent (costs on games and runs).
// Drizzle queries over the DrizzleStore's database, so they run on SQLite and on D1 alike.
import { and, desc, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import * as t from '../../db/schema.ts';
import type { DrizzleStore } from '../storage/drizzle-store.ts';

// the refresh records are read and written through the Store (the site reads them on D1 too)
export type { RefreshRecord, RefreshStatus } from '../storage/store.ts';

/** A refresh that is still `running` but whose process is gone (SIGKILL, power loss) was interrupted. */
export async function closeStaleRefreshes(store: DrizzleStore): Promise<number> {
  const stale = await store.db.select({ id: t.refreshes.id }).from(t.refreshes).where(eq(t.refreshes.status, 'running'));
  if (stale.length) await store.db.update(t.refreshes).set({ status: 'interrupted' }).where(eq(t.refreshes.status, 'running'));
  return stale.length;
}

export interface JudgeCost {
  judge: string;
  games: number;
  tokensIn: number;
  tokensOut: number;
  /** USD; null when no game of the judge has a known cost */
  cost: number | null;
}

/** Spending per judge, over all games or those of some runs. */
export async function costByJudge(store: DrizzleStore, runIds?: string[]): Promise<JudgeCost[]> {
  if (runIds && !runIds.length) return [];
  const rows = await store.db
    .select({ judge: t.games.judge, games: sql<number>`count(*)`, tokensIn: sql<number>`coalesce(sum(${t.games.tokensIn}), 0)`, tokensOut: sql<number>`coalesce(sum(${t.games.tokensOut}), 0)`, cost: sql<number | null>`sum(${t.games.cost})` })
    .from(t.games)
    .where(runIds ? inArray(t.games.runId, runIds) : undefined)
    .groupBy(t.games.judge)
    .orderBy(t.games.judge);
  return rows.map((r) => ({ judge: r.judge, games: Number(r.games), tokensIn: Number(r.tokensIn), tokensOut: Number(r.tokensOut), cost: r.cost === null ? null : Number(r.cost) }));
}

/** Runs with their cost, newest first. */
export async function costByRun(store: DrizzleStore, limit = 50) {
  return store.db
    .select({ id: t.runs.id, startedAt: t.runs.startedAt, judge: t.runs.judge, mode: t.runs.mode, played: t.runs.played, failed: t.runs.failed, tokensIn: t.runs.tokensIn, tokensOut: t.runs.tokensOut, cost: t.runs.cost, status: t.runs.status })
    .from(t.runs)
    .orderBy(desc(t.runs.startedAt))
    .limit(limit);
}

/** The games of some runs of one judge (a refresh's games). */
export async function gamesOfRuns(store: DrizzleStore, judge: string, runIds: string[]) {
  if (!runIds.length) return [];
  return store.db
    .select({ id: t.games.id, questionId: t.games.questionId, turn: t.games.turn, model1: t.games.model1, model2: t.games.model2, order: t.games.order, verdict: t.games.verdict, source: t.games.source })
    .from(t.games)
    .where(and(eq(t.games.judge, judge), inArray(t.games.runId, runIds)));
}

/** A judge's stored games summed for token calibration (prompt characters, tokens in and out), in SQL. */
export async function tokenTotals(store: DrizzleStore, judge: string): Promise<{ games: number; chars: number; tokensIn: number; tokensOut: number }> {
  const [r] = await store.db
    .select({
      games: sql<number>`count(*)`,
      chars: sql<number>`coalesce(sum(length(${t.games.systemPrompt}) + length(${t.games.userPrompt})), 0)`,
      tokensIn: sql<number>`coalesce(sum(${t.games.tokensIn}), 0)`,
      tokensOut: sql<number>`coalesce(sum(${t.games.tokensOut}), 0)`,
    })
    .from(t.games)
    .where(and(eq(t.games.judge, judge), isNotNull(t.games.tokensIn), isNotNull(t.games.tokensOut)));
  return { games: Number(r?.games ?? 0), chars: Number(r?.chars ?? 0), tokensIn: Number(r?.tokensIn ?? 0), tokensOut: Number(r?.tokensOut ?? 0) };
}

/** The most recent games with their cost (the per-game ledger). */
export async function costByGame(store: DrizzleStore, limit = 50) {
  return store.db
    .select({ id: t.games.id, runId: t.games.runId, judge: t.games.judge, questionId: t.games.questionId, turn: t.games.turn, model1: t.games.model1, model2: t.games.model2, order: t.games.order, tokensIn: t.games.tokensIn, tokensOut: t.games.tokensOut, cost: t.games.cost, source: t.games.source })
    .from(t.games)
    .orderBy(desc(t.games.createdAt))
    .limit(limit);
}
