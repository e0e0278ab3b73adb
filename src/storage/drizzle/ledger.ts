// The cost ledger: spending per judge, per run and per game, and a judge's token totals (cost estimates).
import { and, asc, desc, eq, isNotNull, sql } from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import type { GameCost, JudgeCost, LedgerStore, RunCost, TokenTotals } from '../ledger-store.ts';
import { inJson, type AnyDb } from './shared.ts';

export class DrizzleLedger implements LedgerStore {
  constructor(private readonly db: AnyDb) {}

  async byJudge(runIds?: string[]): Promise<JudgeCost[]> {
    if (runIds && !runIds.length) return [];
    const rows = await this.db
      .select({
        judge: t.games.judge,
        games: sql<number>`count(*)`,
        tokensIn: sql<number>`coalesce(sum(${t.games.tokensIn}), 0)`,
        tokensOut: sql<number>`coalesce(sum(${t.games.tokensOut}), 0)`,
        tokensCached: sql<number>`coalesce(sum(${t.games.tokensCached}), 0)`,
        tokensReasoning: sql<number>`coalesce(sum(${t.games.tokensReasoning}), 0)`,
        cost: sql<number | null>`sum(${t.games.cost})`,
      })
      .from(t.games)
      .where(runIds ? inJson(t.games.runId, runIds) : undefined)
      .groupBy(t.games.judge)
      .orderBy(asc(t.games.judge));
    // failed calls that were billed (reasoning at the allowance) count in their judge's tokens and cost
    const billed = await this.db
      .select({
        judge: t.attempts.judge,
        tokensIn: sql<number>`coalesce(sum(${t.attempts.tokensIn}), 0)`,
        tokensOut: sql<number>`coalesce(sum(${t.attempts.tokensOut}), 0)`,
        cost: sql<number | null>`sum(${t.attempts.cost})`,
      })
      .from(t.attempts)
      .where(and(isNotNull(t.attempts.tokensIn), runIds ? inJson(t.attempts.runId, runIds) : undefined))
      .groupBy(t.attempts.judge);
    const extra = new Map(billed.map((b) => [b.judge, b]));
    const sum = (a: number | null, b: number | null | undefined) =>
      a === null && (b ?? null) === null ? null : Number(a ?? 0) + Number(b ?? 0);
    // a judge whose every call was billed without a verdict has no games, and a row all the same
    const judges = new Set(rows.map((r) => r.judge));
    const none = { games: 0, tokensIn: 0, tokensOut: 0, tokensCached: 0, tokensReasoning: 0, cost: null };
    const all = [
      ...rows,
      ...billed.filter((b) => !judges.has(b.judge)).map((b) => ({ ...none, judge: b.judge })),
    ];
    all.sort((a, b) => (a.judge < b.judge ? -1 : a.judge > b.judge ? 1 : 0));
    return all.map((r) => {
      const b = extra.get(r.judge);
      return {
        judge: r.judge,
        games: Number(r.games),
        tokensIn: Number(r.tokensIn) + Number(b?.tokensIn ?? 0),
        tokensOut: Number(r.tokensOut) + Number(b?.tokensOut ?? 0),
        tokensCached: Number(r.tokensCached),
        tokensReasoning: Number(r.tokensReasoning),
        cost: sum(r.cost, b?.cost),
      };
    });
  }

  async ofGames(ids: string[]): Promise<{ games: number; cost: number | null }> {
    if (!ids.length) return { games: 0, cost: null };
    const [r] = await this.db
      .select({ games: sql<number>`count(*)`, cost: sql<number | null>`sum(${t.games.cost})` })
      .from(t.games)
      .where(inJson(t.games.id, ids));
    return { games: Number(r?.games ?? 0), cost: r?.cost == null ? null : Number(r.cost) };
  }

  async byRun(limit = 50): Promise<RunCost[]> {
    return this.db
      .select({
        id: t.runs.id,
        startedAt: t.runs.startedAt,
        judge: t.runs.judge,
        mode: t.runs.mode,
        played: t.runs.played,
        failed: t.runs.failed,
        tokensIn: t.runs.tokensIn,
        tokensOut: t.runs.tokensOut,
        cost: t.runs.cost,
        status: t.runs.status,
      })
      .from(t.runs)
      .orderBy(desc(t.runs.startedAt), asc(t.runs.id))
      .limit(limit);
  }

  async byGame(limit = 50): Promise<GameCost[]> {
    return this.db
      .select({
        id: t.games.id,
        runId: t.games.runId,
        judge: t.games.judge,
        questionId: t.games.questionId,
        turn: t.games.turn,
        model1: t.games.model1,
        model2: t.games.model2,
        order: t.games.order,
        tokensIn: t.games.tokensIn,
        tokensOut: t.games.tokensOut,
        tokensCached: t.games.tokensCached,
        tokensReasoning: t.games.tokensReasoning,
        cost: t.games.cost,
        source: t.games.source,
      })
      .from(t.games)
      .orderBy(desc(t.games.createdAt), asc(t.games.id))
      .limit(limit);
  }

  async tokenTotals(judge: string): Promise<TokenTotals> {
    const [r] = await this.db
      .select({
        games: sql<number>`count(*)`,
        chars: sql<number>`coalesce(sum(length(${t.games.systemPrompt}) + length(${t.games.userPrompt})), 0)`,
        tokensIn: sql<number>`coalesce(sum(${t.games.tokensIn}), 0)`,
        tokensOut: sql<number>`coalesce(sum(${t.games.tokensOut}), 0)`,
      })
      .from(t.games)
      .where(and(eq(t.games.judge, judge), isNotNull(t.games.tokensIn), isNotNull(t.games.tokensOut)));
    return {
      games: Number(r?.games ?? 0),
      chars: Number(r?.chars ?? 0),
      tokensIn: Number(r?.tokensIn ?? 0),
      tokensOut: Number(r?.tokensOut ?? 0),
    };
  }
}
