// Bootstrap intervals of any statistic: resampling whole questions (clusters) or single games, seeded and
// reproducible, and percentile intervals of the rounds. The ratings' bootstrap is rating-bootstrap.ts.
import { randInt, seededRng, type Rng } from './random.ts';

export const DEFAULT_LEVEL = 0.95;
export const DEFAULT_ROUNDS = 1000;
export const DEFAULT_SEED = 1;

export interface Interval {
  lo: number;
  hi: number;
}

/** The q-quantile (0..1) of sorted values with linear interpolation (numpy's default). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (!n) return NaN;
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** Percentile interval at `level` (0.95: the 2.5% and 97.5% quantiles). NaN samples are dropped. */
export function percentileInterval(samples: ArrayLike<number>, level = DEFAULT_LEVEL): Interval {
  // one copy, compacted in place (a filter's callback per sample cost more than the sort)
  const all = Float64Array.from(samples);
  let m = 0;
  for (let k = 0; k < all.length; k++) if (!Number.isNaN(all[k]!)) all[m++] = all[k]!;
  return sortedInterval(all.subarray(0, m).sort(), level);
}

/** percentileInterval of samples already sorted, with no NaN. */
export const sortedInterval = (sorted: ArrayLike<number>, level = DEFAULT_LEVEL): Interval => ({
  lo: quantileSorted(sorted, (1 - level) / 2),
  hi: quantileSorted(sorted, 1 - (1 - level) / 2),
});

/** How many times each of n clusters is drawn when n are drawn with replacement. */
export function drawClusterCounts(rng: Rng, n: number, out: Float64Array): Float64Array {
  out.fill(0);
  for (let k = 0; k < n; k++) out[randInt(rng, n)]!++;
  return out;
}

export interface BootstrapOptions {
  rounds?: number;
  level?: number;
  seed?: number;
}

/**
 * Cluster bootstrap of any statistic: each round draws the clusters (questions) with replacement and
 * hands `stat` the multiplicity of every cluster. Returns the statistic per round (a row per round).
 */
export function clusterBootstrap(
  nClusters: number,
  stat: (counts: Float64Array) => ArrayLike<number>,
  o: BootstrapOptions = {},
): Float64Array[] {
  const rng = seededRng(o.seed ?? DEFAULT_SEED);
  const counts = new Float64Array(nClusters);
  const out: Float64Array[] = [];
  for (let b = 0; b < (o.rounds ?? DEFAULT_ROUNDS); b++)
    out.push(Float64Array.from(stat(drawClusterCounts(rng, nClusters, counts))));
  return out;
}

/** Per-column percentile intervals of bootstrap rows. */
export function columnIntervals(rows: Float64Array[], width: number, level = DEFAULT_LEVEL): Interval[] {
  const out: Interval[] = [];
  const col = new Float64Array(rows.length);
  for (let c = 0; c < width; c++) {
    for (let r = 0; r < rows.length; r++) col[r] = rows[r]![c]!;
    out.push(percentileInterval(col, level));
  }
  return out;
}

/** Rank that respects the intervals: 1 + the number of entries whose lower bound exceeds my upper bound. */
export function ranksFromIntervals(iv: Interval[]): number[] {
  return iv.map((a) => 1 + iv.filter((b) => b.lo > a.hi).length);
}
