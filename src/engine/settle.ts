// `arena run --until-settled`: a pairwise-all plan played in rounds. After each round the ratings are refit
// and the scheduler (core/stats/settle.ts) picks the next matches among the plan's own, so every game keeps
// its id: a later full run pays only what was skipped, and a rerun after an interruption pays nothing twice.
import { matchKey, outcomesFromGames, scoreOf, storedVerdictOf } from '../core/outcomes.ts';
import type { ClusteredBattle } from '../core/stats/battle-table.ts';
import { nextRound, type SettleMatch, type SettleStep, type SettleStop } from '../core/stats/settle.ts';
import { ArenaError, type GameSpec } from '../core/types.ts';
import { planRun, runTournament, type RunOptions, type RunSummary } from './run.ts';

export interface SettleOptions extends RunOptions {
  /** matches (both orders) per round (default: a tenth of the plan's matches, at least 10) */
  round?: number;
  /** stop once the rank intervals' widths sum to at most this */
  target?: number;
  level?: number;
  explore?: number;
  /** after every round is chosen, before it is played */
  onRound?(r: SettleRound): void;
}

export interface SettleRound {
  round: number;
  /** matches chosen for this round */
  matches: number;
  /** model pairs whose order is still open */
  open: number;
  /** the plan's games stored before the round */
  stored: number;
  planned: number;
}

export interface SettleSummary {
  /** why it stopped: the scheduler's reason, or the last round's run status when it did not finish */
  stop: SettleStop | 'interrupted' | 'failed' | 'budget';
  rounds: number;
  /** games of the full plan (its judge calls when nothing is stored) */
  planned: number;
  /** the plan's games stored at the end */
  stored: number;
  /** judge calls this run paid for */
  paid: number;
  ranks?: { model: string; best: number; worst: number }[];
  /** model pairs still open, as [a, b] */
  open: [string, string][];
  /** the rounds' runs */
  runs: RunSummary[];
}

/** The key of a planned pairwise game's match (both orders share it). */
function keyOf(spec: GameSpec): string {
  return matchKey({ ...spec.match, model2: spec.match.model2! });
}

/** Play the pairwise-all plan round by round until the scheduler stops (see core/stats/settle.ts). */
export async function runUntilSettled(o: SettleOptions): Promise<SettleSummary> {
  if (o.mode !== 'pairwise-all')
    throw new ArenaError('--until-settled schedules pairwise-all tournaments only');
  if (o.only) throw new ArenaError('--until-settled chooses its own matches (no `only`)');
  const { games } = await planRun(o);
  const matches = new Map<string, SettleMatch>();
  const gameIds = new Map<string, string[]>();
  for (const g of games) {
    const k = keyOf(g.spec);
    if (!matches.has(k))
      matches.set(k, {
        key: k,
        a: g.spec.match.model1,
        b: g.spec.match.model2!,
        cluster: g.spec.match.questionId,
      });
    gameIds.set(k, [...(gameIds.get(k) ?? []), g.id]);
  }
  const planIds = new Set(games.map((g) => g.id));
  const round = o.round ?? Math.max(10, Math.ceil(matches.size / 10));
  const runs: RunSummary[] = [];
  let paid = 0;
  for (let r = 1; ; r++) {
    const state = await playedState(o, planIds, gameIds);
    const step: SettleStep = nextRound({
      models: o.models,
      matches: [...matches.values()],
      played: state.played,
      battles: state.battles,
      round,
      ...(o.level !== undefined ? { level: o.level } : {}),
      ...(o.explore !== undefined ? { explore: o.explore } : {}),
      ...(o.target !== undefined ? { target: o.target } : {}),
    });
    // a match with one order stored (an interrupted round) is finished first, whatever the scheduler says
    const chosen = new Set([...state.half, ...step.next]);
    const done = (stop: SettleSummary['stop']): SettleSummary => ({
      stop,
      rounds: r - 1,
      planned: games.length,
      stored: state.stored,
      paid,
      ...(step.ranks ? { ranks: step.ranks } : {}),
      open: step.open.map((p) => p.split('\u0000') as [string, string]),
      runs,
    });
    if (step.stop && !state.half.size) return done(step.stop);
    if (o.signal?.aborted) return done('interrupted');
    o.onRound?.({
      round: r,
      matches: chosen.size,
      open: step.open.length,
      stored: state.stored,
      planned: games.length,
    });
    const summary = await runTournament({ ...o, only: (spec) => chosen.has(keyOf(spec)) });
    runs.push(summary);
    paid += summary.played;
    if (summary.status === 'interrupted' || summary.status === 'budget') return done(summary.status);
    if (summary.failed) return { ...done('failed'), rounds: r };
  }
}

/** The plan's games stored now: matches with both orders, those with one, and the played matches' battles. */
async function playedState(o: SettleOptions, planIds: Set<string>, gameIds: Map<string, string[]>) {
  const stored = await o.store.games.existingIds([...planIds]);
  const played = new Set<string>();
  const half = new Set<string>();
  for (const [k, ids] of gameIds) {
    const n = ids.filter((id) => stored.has(id)).length;
    if (n === ids.length) played.add(k);
    else if (n) half.add(k);
  }
  const mine = (
    await o.store.games.list({ judge: o.judge.id, kind: 'pairwise', ...(o.set ? { set: o.set } : {}) })
  )
    .filter((g) => planIds.has(g.id))
    .map(storedVerdictOf);
  const battles: ClusteredBattle[] = outcomesFromGames(mine)
    .filter((m) => m.outcome !== 'error')
    .map((m) => ({
      a: m.model1,
      b: m.model2,
      score: scoreOf(m.outcome),
      cluster: m.questionId,
    }));
  return { stored: stored.size, played, half, battles };
}
