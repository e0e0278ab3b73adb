// `arena run --until-settled`: a pairwise plan played in rounds. After each round the outcomes are read again
// and a scheduler picks the next matches among the plan's own, so every game keeps its id: a later full run
// pays only what was skipped, and a rerun after an interruption pays nothing twice. pairwise-all refits the
// ratings (core/stats/settle.ts); pairwise-baseline reads each model's interval against the baseline
// (core/stats/settle-baseline.ts).
import { pick } from '../core/pick.ts';
import { scoreOf } from '../core/outcomes.ts';
import type { ClusteredBattle } from '../core/stats/battle-table.ts';
import { nextBaselineRound, type BaselineModelState } from '../core/stats/settle-baseline.ts';
import { nextRound, type SettleMatch, type SettleStop } from '../core/stats/settle.ts';
import { ArenaError, type MatchOutcome } from '../core/types.ts';
import { planRun, runTournament, type RunOptions, type RunSummary } from './run.ts';
import { keyOf, planMatches, playedState, roundsOf } from './settle-state.ts';

export interface SettleOptions extends RunOptions {
  /** matches (both orders) per round (default: a tenth of the plan's matches, at least 10) */
  round?: number;
  /** stop once the rank intervals' widths sum to at most this */
  target?: number;
  /** pairwise-baseline: a model also stops once its interval against the baseline is narrower than this */
  width?: number;
  level?: number;
  explore?: number;
  /** after every round is chosen, before it is played */
  onRound?(r: SettleRound): void;
}

interface SettleRound {
  round: number;
  /** matches chosen for this round */
  matches: number;
  /** model pairs whose order is still open (pairwise-baseline: models still open) */
  open: number;
  /** the plan's games stored before the round */
  stored: number;
  planned: number;
}

export interface SettleSummary {
  /** why it stopped: the scheduler's reason, or the last round's run status when it did not finish */
  stop: RoundsStop | 'interrupted' | 'failed' | 'budget';
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
  /** pairwise-baseline: each model's interval against the baseline and why it stopped */
  models?: BaselineModelState[];
  /** the plan's matches (both orders) per model pair, played and planned; a pair with none played was skipped */
  pairs: { a: string; b: string; played: number; planned: number }[];
  /** the rounds' runs */
  runs: RunSummary[];
}

/** Why a scheduler stops: --until-settled's reasons, and a succession bridge's (engine/succession.ts). */
export type RoundsStop = SettleStop | 'decided' | 'precise' | 'max-calls';

/** What a scheduler decides from the stored state: the next matches, or why it stops. */
export interface Decision {
  next: string[];
  stop?: RoundsStop;
  open: number;
  report: Pick<SettleSummary, 'open'> & Partial<Pick<SettleSummary, 'ranks' | 'models'>>;
}

export type Schedule = (played: ReadonlySet<string>, outcomes: MatchOutcome[]) => Decision;

/** Play the plan round by round until its scheduler stops (pairwise-all or pairwise-baseline). */
export async function runUntilSettled(o: SettleOptions): Promise<SettleSummary> {
  if (o.mode === 'single') throw new ArenaError('--until-settled schedules pairwise plans only');
  if (o.only) throw new ArenaError('--until-settled chooses its own matches (no `only`)');
  const { games } = await planRun(o);
  const { matches, gameIds } = planMatches(games);
  const list = [...matches.values()];
  const { models, round } = roundsOf(o, list.length);
  const schedule: Schedule =
    o.mode === 'pairwise-all'
      ? (played, outcomes) => allPairsDecision(o, list, played, outcomes, round)
      : (played, outcomes) => baselineDecision(o, models, list, played, outcomes, round);
  return playRounds(o, games, list, gameIds, schedule);
}

/** Play `list`'s matches round by round, as `schedule` chooses them from what is stored, until it stops. */
export async function playRounds(
  o: SettleOptions,
  games: { id: string }[],
  list: SettleMatch[],
  gameIds: Map<string, string[]>,
  schedule: Schedule,
): Promise<SettleSummary> {
  const planIds = new Set(games.map((g) => g.id));
  const runs: RunSummary[] = [];
  let paid = 0;
  for (let r = 1; ; r++) {
    const state = await playedState(o, planIds, gameIds);
    const step = schedule(state.played, state.outcomes);
    // a match with one order stored (an interrupted round) is finished first, whatever the scheduler says
    const chosen = new Set([...state.half, ...step.next]);
    const done = (stop: SettleSummary['stop']): SettleSummary => ({
      stop,
      rounds: r - 1,
      planned: games.length,
      stored: state.stored,
      paid,
      ...step.report,
      pairs: pairCounts(list, state.played),
      runs,
    });
    if (step.stop && !state.half.size) return done(step.stop);
    if (o.signal?.aborted) return done('interrupted');
    o.onRound?.({
      round: r,
      matches: chosen.size,
      open: step.open,
      stored: state.stored,
      planned: games.length,
    });
    const summary = await runTournament({ ...o, untilSettled: r, only: (spec) => chosen.has(keyOf(spec)) });
    runs.push(summary);
    paid += summary.played;
    if (summary.status === 'interrupted' || summary.status === 'budget') return done(summary.status);
    if (summary.failed) return { ...done('failed'), rounds: r };
    // the round's games were all at the allowance before (never sent again as they are): nothing can settle them
    if (!summary.toPlay && Number(summary.config.allowanceBefore ?? 0) > 0)
      return { ...done('failed'), rounds: r };
  }
}

function allPairsDecision(
  o: SettleOptions,
  matches: SettleMatch[],
  played: ReadonlySet<string>,
  outcomes: MatchOutcome[],
  round: number,
): Decision {
  const step = nextRound({
    models: o.models,
    matches,
    played,
    battles: battlesOf(outcomes),
    round,
    ...pick(o, ['level', 'explore', 'target']),
  });
  return {
    next: step.next,
    ...(step.stop ? { stop: step.stop } : {}),
    open: step.open.length,
    report: {
      ...(step.ranks ? { ranks: step.ranks } : {}),
      open: step.open.map((p) => p.split('\u0000') as [string, string]),
    },
  };
}

function baselineDecision(
  o: SettleOptions,
  models: string[],
  matches: SettleMatch[],
  played: ReadonlySet<string>,
  outcomes: MatchOutcome[],
  round: number,
): Decision {
  const step = nextBaselineRound({
    models,
    baseline: o.baseline!,
    matches,
    played,
    outcomes,
    round,
    ...pick(o, ['width', 'level']),
  });
  const open = step.models
    .filter((m) => m.why === 'open')
    .map((m): [string, string] => [m.model, o.baseline!]);
  return {
    next: step.next,
    ...(step.stop ? { stop: step.stop === 'settled' ? 'decided' : step.stop } : {}),
    open: open.length,
    report: { open, models: step.models },
  };
}

/** The played matches' outcomes as battles for the fit (errors left out), clustered by question. */
function battlesOf(outcomes: MatchOutcome[]): ClusteredBattle[] {
  return outcomes
    .filter((m) => m.outcome !== 'error')
    .map((m) => ({ a: m.model1, b: m.model2, score: scoreOf(m.outcome), cluster: m.questionId }));
}

/** Matches played and planned per model pair, in the plan's order. */
function pairCounts(matches: SettleMatch[], played: ReadonlySet<string>): SettleSummary['pairs'] {
  const out = new Map<string, SettleSummary['pairs'][number]>();
  for (const m of matches) {
    const k = `${m.a}\u0000${m.b}`;
    const c = out.get(k) ?? { a: m.a, b: m.b, played: 0, planned: 0 };
    c.planned++;
    if (played.has(m.key)) c.played++;
    out.set(k, c);
  }
  return [...out.values()];
}
