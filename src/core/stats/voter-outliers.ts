// Which annotators vote as if at random: Chatbot Arena's sequential test for anomalous users (Chiang et al. 2024,
// arXiv:2403.04132, "Detecting Anomalous Users"), over agreement with the majority of the other votes on the same
// match. The p-values are combined by Fisher's method, M_j = -2 Σ_{i<=j} ln p_i, and the voter is flagged when M_j
// reaches the (1 - alpha/5) quantile of chi-square with 2j df at any checkpoint j = 1 .. 100, as the paper does.
// A vote is a label, so its p-value is the mid-p of agreeing under the rate p0 at which everyone else's votes
// agree: mid-p values raise no false alarm from the discreteness and keep the power against chance voters.
import type { Vote } from '../types.ts';
import { label, voteKey, type Label } from './agreement.ts';

export interface VoterCheck {
  voter: string;
  /** votes on matches where the other votes have a strict majority */
  compared: number;
  agree: number;
  /** agree / compared */
  rate: number;
  /** p0: how often everyone else's votes agree with their match's majority ((agree + 1) / (n + 2)) */
  expected: number;
  /** the smallest chi-square tail probability over the checkpoints (null: no vote compared) */
  p: number | null;
  /** the checkpoint j at which the voter was flagged, or null */
  flaggedAt: number | null;
}

/** The test's level (the paper's alpha; each checkpoint is tested at alpha / 5) and its checkpoints. */
const OUTLIER_ALPHA = 0.05;
const OUTLIER_CHECKPOINTS = 100;

/** P(X >= x) for X ~ chi-square with 2j degrees of freedom: e^(-x/2) * sum_{k<j} (x/2)^k / k!, exact for even df. */
export function chiSquareSurvivalEven(x: number, j: number): number {
  if (x <= 0) return 1;
  const h = x / 2;
  let term = Math.exp(-h);
  let sum = term;
  for (let k = 1; k < j; k++) {
    term *= h / k;
    sum += term;
  }
  return Math.min(1, sum);
}

/** The strict majority label of `labels`, or undefined when there is none (no labels, or a tie for most). */
function majority(labels: Label[]): Label | undefined {
  const n = { a: 0, b: 0, tie: 0 };
  for (const l of labels) n[l]++;
  const sorted = (Object.entries(n) as [Label, number][]).sort((x, y) => y[1] - x[1]);
  return sorted[0]![1] > 0 && sorted[0]![1] > sorted[1]![1] ? sorted[0]![0] : undefined;
}

/**
 * The sequential test for each voter of `votes` (in the order cast), against the majority of the other votes on
 * each match (`others`: experts, LLM judges); a voter's own votes never count toward its majority.
 */
export function voterOutliers(
  votes: Vote[],
  others: Vote[],
  o: { alpha?: number; checkpoints?: number } = {},
): VoterCheck[] {
  const alpha = o.alpha ?? OUTLIER_ALPHA;
  const checkpoints = o.checkpoints ?? OUTLIER_CHECKPOINTS;
  const all = [...votes, ...others];
  const byItem = new Map<string, Vote[]>();
  for (const v of all) byItem.set(voteKey(v), [...(byItem.get(voteKey(v)) ?? []), v]);
  /** whether `v` agrees with the majority of the other voters' votes on its match; undefined without a majority */
  const agrees = (v: Vote): boolean | undefined => {
    const rest = byItem.get(voteKey(v))!.filter((w) => w.voter !== v.voter);
    const m = majority(rest.map(label));
    return m === undefined ? undefined : label(v) === m;
  };
  const outcome = all.map((v) => ({ voter: v.voter, agrees: agrees(v) }));
  const voters = [...new Set(votes.map((v) => v.voter))];
  return voters.map((voter) => {
    const mine = votes.flatMap((v) => {
      const a = v.voter === voter ? agrees(v) : undefined;
      return a === undefined ? [] : [a];
    });
    const rest = outcome.filter((x) => x.voter !== voter && x.agrees !== undefined);
    // Laplace's rule of succession: never exactly 0 or 1, 1/2 with nothing to go by
    const p0 = (rest.filter((x) => x.agrees).length + 1) / (rest.length + 2);
    const agree = mine.filter(Boolean).length;
    let m = 0;
    let best: number | null = null;
    let flaggedAt: number | null = null;
    mine.slice(0, checkpoints).forEach((a, i) => {
      const p = a ? 1 - p0 + p0 / 2 : (1 - p0) / 2;
      m += -2 * Math.log(Math.max(p, Number.MIN_VALUE));
      const tail = chiSquareSurvivalEven(m, i + 1);
      best = best === null ? tail : Math.min(best, tail);
      if (flaggedAt === null && tail <= alpha / 5) flaggedAt = i + 1;
    });
    return {
      voter,
      compared: mine.length,
      agree,
      rate: mine.length ? agree / mine.length : 0,
      expected: p0,
      p: best,
      flaggedAt,
    };
  });
}
