// How many questions it takes to separate two models: from the matches they played, the spread of one model's
// per-question score against the other (questions are the independent unit, as in the question bootstrap), and
// the usual two-sided normal power formula n = ((z_{1-α/2} + z_{power}) σ / gap)². Pure.
import type { MatchOutcome } from '../types.ts';
import { pairwiseStandings } from '../standings.ts';
import { scoreOf } from '../outcomes.ts';
import { normalQuantile } from './normal.ts';

export interface PowerOptions {
  /** the win-rate gap to detect (0.05: 55% against 45%); default: the observed gap */
  gap?: number;
  /** two-sided significance level */
  alpha?: number;
  /** the probability of separating them when the gap is real */
  power?: number;
}

export interface PowerRow {
  model1: string;
  model2: string;
  /** questions on which they met, and their matches (errors left out) */
  questions: number;
  matches: number;
  /** model1's score against model2 (ties and inconsistent matches half) */
  winRate: number;
  /** the standard deviation over questions of model1's mean score on a question */
  sdPerQuestion: number;
  /** the standard error of winRate (questions as the unit) */
  se: number;
  /** whether winRate is away from 50% at alpha now */
  separated: boolean;
  /** the gap planned for: options.gap, or |winRate - 0.5| */
  gap: number;
  /** questions needed at that gap; null when the gap is 0 or the spread cannot be estimated (under 2 questions) */
  questionsNeeded: number | null;
  /** matches needed: questionsNeeded at the current matches per question */
  matchesNeeded: number | null;
}

const orient = (o: MatchOutcome, model1: string) =>
  o.model1 === model1 ? scoreOf(o.outcome) : 1 - scoreOf(o.outcome);

/**
 * Questions needed to separate a gap with a per-question spread `sd`: ((critical + z_power) sd / gap)², rounded
 * up, where `critical` is the interval's critical value (z_{1-α/2} for one pair) and zPower the normal quantile of
 * the power wanted (0 for even odds). Null when the gap is 0 or the spread is not a positive number.
 */
export function questionsToSeparate(
  gap: number,
  sd: number,
  critical: number,
  zPower: number,
): number | null {
  return gap > 0 && sd > 0 ? Math.ceil((((critical + zPower) * sd) / gap) ** 2) : null;
}

/** One pair: model1 against model2 over the matches they played. */
export function pairPower(
  outcomes: readonly MatchOutcome[],
  model1: string,
  model2: string,
  o: PowerOptions = {},
): PowerRow {
  const alpha = o.alpha ?? 0.05;
  const power = o.power ?? 0.8;
  const perQ = new Map<number, number[]>();
  for (const m of outcomes) {
    if (m.outcome === 'error') continue;
    const pair = (m.model1 === model1 && m.model2 === model2) || (m.model1 === model2 && m.model2 === model1);
    if (!pair) continue;
    const s = perQ.get(m.questionId) ?? [];
    s.push(orient(m, model1));
    perQ.set(m.questionId, s);
  }
  const means = [...perQ.values()].map((s) => s.reduce((a, b) => a + b, 0) / s.length);
  const matches = [...perQ.values()].reduce((a, s) => a + s.length, 0);
  const n = means.length;
  const all = [...perQ.values()].flat();
  const winRate = all.length ? all.reduce((a, b) => a + b, 0) / all.length : NaN;
  const mean = n ? means.reduce((a, b) => a + b, 0) / n : NaN;
  const sd = n > 1 ? Math.sqrt(means.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1)) : NaN;
  const se = sd / Math.sqrt(n);
  const zA = normalQuantile(1 - alpha / 2);
  const zB = normalQuantile(power);
  const gap = o.gap ?? Math.abs(winRate - 0.5);
  const needed = questionsToSeparate(gap, sd, zA, zB);
  return {
    model1,
    model2,
    questions: n,
    matches,
    winRate,
    sdPerQuestion: sd,
    se,
    separated: Number.isFinite(se) && se > 0 ? Math.abs(winRate - 0.5) > zA * se : false,
    gap,
    questionsNeeded: needed,
    matchesNeeded: needed === null || !n ? null : Math.ceil((needed * matches) / n),
  };
}

/** The pairs adjacent in the standings (adjusted win rate), each against the next, for the pairs that met. */
export function adjacentPower(outcomes: readonly MatchOutcome[], o: PowerOptions = {}): PowerRow[] {
  const order = pairwiseStandings(outcomes)
    .filter((s) => s.win + s.loss + s.tie > 0)
    .sort((a, b) => b.winRateAdjusted - a.winRateAdjusted || a.model.localeCompare(b.model))
    .map((s) => s.model);
  const rows: PowerRow[] = [];
  for (let k = 0; k + 1 < order.length; k++) {
    const row = pairPower(outcomes, order[k]!, order[k + 1]!, o);
    if (row.matches) rows.push(row);
  }
  return rows;
}
