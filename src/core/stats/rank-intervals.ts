// Rank intervals: each model's best and worst rank consistent with SIMULTANEOUS intervals of all the
// pairwise rating differences (max-t, from the ratings' bootstrap or sandwich covariance), so that
// "all these statements hold together" at the stated level; and a "preliminary" mark for a model with
// few battles or a wide interval. Pure.
import { normalDraws } from './normal.ts';
import { quantileSorted } from './bootstrap.ts';
import { differenceVariance } from '../linalg.ts';

/** A model with fewer decided battles than this is preliminary (documented in the README). */
export const PRELIMINARY_MIN_BATTLES = 100;
/** A model whose rating interval is wider than this many rating points is preliminary. */
export const PRELIMINARY_MAX_WIDTH = 150;

export interface DifferenceIntervals {
  /** models in the order of the estimate */
  n: number;
  /** lo[i * n + j], hi[i * n + j]: simultaneous interval of rating_i - rating_j */
  lo: Float64Array;
  hi: Float64Array;
  /** the max-t critical value (1.96 would be the marginal one at 95%) */
  critical: number;
}

/** Draws behind the max-t critical value (seeded: the same data give the same rank bounds). */
export const MAX_T_DRAWS = 10_000;

export interface SimultaneousOptions {
  /** degrees of freedom of the multivariate t (clusters − 1); the normal when absent */
  df?: number;
  draws?: number;
  seed?: number;
}

/**
 * Simultaneous intervals of every difference r_i − r_j by the max-t method: d_ij ± c se_ij, c the `level` quantile
 * of the max over pairs of |d_ij| / se_ij under a multivariate t with `df` degrees of freedom (clusters − 1), so
 * all of them hold together in about `level` of repeated experiments.
 */
export function simultaneousDifferences(
  estimate: ArrayLike<number>,
  cov: Float64Array,
  level: number,
  o: SimultaneousOptions = {},
  e = errorDraws(cov, estimate.length, o),
): DifferenceIntervals {
  const n = estimate.length;
  const critical = maxTQuantile(e, level);
  const lo = new Float64Array(n * n);
  const hi = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const d = estimate[i]! - estimate[j]!;
      const h = critical * e.se[i * n + j]!;
      lo[i * n + j] = d - h;
      hi[i * n + j] = d + h;
    }
  return { n, lo, hi, critical };
}

/**
 * Every difference's standard error (n × n) and, per draw of the ratings' errors (multivariate t with o.df), the max
 * of |r_i − r_j| / se_ij over every pair (maxT[0]) and over each model's own differences (maxT[1 + i]): the joint
 * bound and every model's marginal one from one pass over the draws.
 */
function errorDraws(cov: Float64Array, n: number, o: SimultaneousOptions) {
  const se = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) se[i * n + j] = Math.sqrt(differenceVariance(cov, n, i, j));
  const draws = o.draws ?? MAX_T_DRAWS;
  const maxT = Array.from({ length: n + 1 }, () => new Float64Array(draws));
  const [all, ...own] = maxT as [Float64Array, ...Float64Array[]];
  normalDraws(new Float64Array(n), cov, draws, o.seed ?? 1, o.df, (r, d) => {
    for (let i = 0; i < n; i++)
      for (let j = i + 1; j < n; j++) {
        const diff = Math.abs(r[i]! - r[j]!);
        const s = se[i * n + j]!;
        if (s > 0) {
          const z = diff / s;
          if (z > all[d]!) all[d] = z;
          if (z > own[i]![d]!) own[i]![d] = z;
        }
        // model j's own bound reads its row of se (the same value but for rounding)
        const sj = se[j * n + i]!;
        if (sj > 0 && diff / sj > own[j]![d]!) own[j]![d] = diff / sj;
      }
  });
  return { n, se, maxT };
}

/**
 * The `level` quantile over the draws of max |r_i − r_j| / se_ij: over every pair, or with `model` over that
 * model's own differences.
 */
function maxTQuantile(e: ReturnType<typeof errorDraws>, level: number, model?: number): number {
  return quantileSorted(e.maxT[model === undefined ? 0 : model + 1]!.sort(), level);
}

/**
 * Covariance (n×n, row-major) of bootstrap rows, rows with a non-finite value left out; `clusters` (C) rescales
 * it by C/(C − 1), as the sandwich's CR1 factor does (the bootstrap's is (C − 1)/C times the unbiased one).
 */
export function sampleCovariance(samples: ArrayLike<number>[], n: number, clusters?: number): Float64Array {
  const rows = samples.filter((r) => {
    for (let k = 0; k < n; k++) if (!Number.isFinite(r[k]!)) return false;
    return true;
  });
  const B = rows.length;
  const mean = new Float64Array(n);
  for (const r of rows) for (let k = 0; k < n; k++) mean[k]! += r[k]! / B;
  const cov = new Float64Array(n * n);
  const f =
    (B > 1 ? 1 / (B - 1) : 0) *
    (clusters && clusters > 1 && Number.isFinite(clusters) ? clusters / (clusters - 1) : 1);
  for (const r of rows)
    for (let a = 0; a < n; a++) {
      const da = r[a]! - mean[a]!;
      for (let b = 0; b <= a; b++) cov[a * n + b]! += da * (r[b]! - mean[b]!);
    }
  for (let a = 0; a < n; a++)
    for (let b = 0; b <= a; b++) {
      cov[a * n + b]! *= f;
      cov[b * n + a] = cov[a * n + b]!;
    }
  return cov;
}

/** Best and worst rank consistent with the simultaneous intervals: 1 + those significantly above, n − those below. */
export function rankBounds(d: DifferenceIntervals): { best: number; worst: number }[] {
  const out = [];
  for (let i = 0; i < d.n; i++) {
    let above = 0;
    let below = 0;
    for (let j = 0; j < d.n; j++) {
      if (j === i) continue;
      if (d.lo[j * d.n + i]! > 0) above++;
      if (d.lo[i * d.n + j]! > 0) below++;
    }
    out.push({ best: 1 + above, worst: d.n - below });
  }
  return out;
}

/**
 * Marginal rank bounds (Mogstad, Romano, Shaikh and Wilhelm 2024, "Inference for ranks"): from intervals of each
 * model's own n − 1 differences that hold together at `level` (max-t over its pairs only). They answer "what rank
 * is this model"; the joint bounds (rankBounds) hold for all models at once and are wider.
 */
export function marginalRankBounds(
  estimate: ArrayLike<number>,
  cov: Float64Array,
  level: number,
  o: SimultaneousOptions = {},
  e = errorDraws(cov, estimate.length, o),
): { best: number; worst: number }[] {
  const n = estimate.length;
  return Array.from({ length: n }, (_, i) => {
    const c = maxTQuantile(e, level, i);
    let above = 0;
    let below = 0;
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      const d = estimate[i]! - estimate[j]!;
      const h = c * e.se[i * n + j]!;
      if (d + h < 0) above++;
      if (d - h > 0) below++;
    }
    return { best: 1 + above, worst: n - below };
  });
}

export interface RankAnnotation {
  /** joint: consistent with simultaneous intervals of all pairwise differences */
  rankBest: number;
  rankWorst: number;
  /** marginal: consistent with simultaneous intervals of this model's own differences only */
  marginalRankBest: number;
  marginalRankWorst: number;
  /** decided battles the model took part in (ties count) */
  battles: number;
  /** fewer than minBattles battles, or an interval wider than maxWidth rating points */
  preliminary: boolean;
}

export interface PreliminaryRule {
  minBattles?: number;
  maxWidth?: number;
}

/** Rank bounds and the preliminary mark for every model (in the order of `estimate`). */
export function rankAnnotations(
  estimate: ArrayLike<number>,
  cov: Float64Array,
  intervals: { lo: number; hi: number }[],
  battles: ArrayLike<number>,
  level: number,
  rule: PreliminaryRule & SimultaneousOptions = {},
): RankAnnotation[] {
  const minBattles = rule.minBattles ?? PRELIMINARY_MIN_BATTLES;
  const maxWidth = rule.maxWidth ?? PRELIMINARY_MAX_WIDTH;
  // one set of draws for both bounds (the same seed would draw the same)
  const e = errorDraws(cov, estimate.length, rule);
  const bounds = rankBounds(simultaneousDifferences(estimate, cov, level, rule, e));
  const marginal = marginalRankBounds(estimate, cov, level, rule, e);
  return bounds.map((b, k) => {
    const iv = intervals[k]!;
    const width = iv.hi - iv.lo;
    return {
      rankBest: b.best,
      rankWorst: b.worst,
      marginalRankBest: marginal[k]!.best,
      marginalRankWorst: marginal[k]!.worst,
      battles: battles[k]!,
      preliminary: battles[k]! < minBattles || !(width <= maxWidth),
    };
  });
}

/** Battles per model of collapsed pairs (i, j, w). */
export function battlesPerModel(
  n: number,
  i: ArrayLike<number>,
  j: ArrayLike<number>,
  w: ArrayLike<number>,
): Float64Array {
  const out = new Float64Array(n);
  for (let k = 0; k < i.length; k++) {
    out[i[k]!]! += w[k]!;
    out[j[k]!]! += w[k]!;
  }
  return out;
}
