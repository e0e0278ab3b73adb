// How few matches could reach the full plan's rank certainty: a lower bound for any scheduler, adaptive or not.
// A design that separates the pairs the full plan separates (z = |gap| / se > c), at the same estimates, needs each
// such pair's model-based variance at most (z / c)² times the full plan's. The fewest matches doing so solve a
// convex problem: minimise Σ n_e, 0 ≤ n_e ≤ N_e (the plan's matches of pair e), subject to u_rᵀ L(n)⁺ u_r ≤ v_r for
// every separated pair r, L(n) = Σ n_e h_e u_e u_eᵀ (h_e one match's information); by a log-barrier Newton method.
// Pure.
import type { ClusteredBattle } from './battle-table.ts';
import { fitRanks, type SettleMatch } from './settle.ts';
import { matchInformation } from './settle-design.ts';
import { addEdge, differenceVariance, pseudoInverse } from '../linalg.ts';
import { dampedNewton, type Objective } from '../newton.ts';

export interface BoundPair {
  i: number;
  j: number;
  /** the plan's matches of this pair (the most the design may use) */
  matches: number;
  /** one match's Fisher information about r_i − r_j */
  info: number;
}

export interface BoundTarget {
  i: number;
  j: number;
  /** the largest model-based variance of r_i − r_j allowed */
  variance: number;
}

export interface LeastDesign {
  /** matches per pair, in the order of the pairs given (fractional: the bound of a relaxation) */
  matches: Float64Array;
  total: number;
  /** false when even every match of the plan leaves some target's variance above its limit */
  feasible: boolean;
}

/** The design's model-based covariance: the pseudo-inverse of Σ n_e h_e u_e u_eᵀ. */
function covarianceOf(n: number, pairs: BoundPair[], x: ArrayLike<number>): Float64Array {
  const L = new Float64Array(n * n);
  pairs.forEach((p, e) => addEdge(L, n, p.i, p.j, x[e]! * p.info));
  return pseudoInverse(L, n);
}

const quad = (P: Float64Array, n: number, a: { i: number; j: number }, b: { i: number; j: number }) =>
  P[a.i * n + b.i]! - P[a.i * n + b.j]! - P[a.j * n + b.i]! + P[a.j * n + b.j]!;

/** The fewest matches (a continuous relaxation) meeting every target's variance; see the file's head. */
export function leastDesign(n: number, pairsIn: BoundPair[], targets: BoundTarget[]): LeastDesign {
  const pairs = pairsIn.filter((p) => p.matches > 0 && p.info > 0);
  const all = Float64Array.from(pairs, (p) => p.matches);
  const full = covarianceOf(n, pairs, all);
  const rho = Math.max(0, ...targets.map((t) => quad(full, n, t, t) / t.variance));
  const out = (x: Float64Array, feasible: boolean): LeastDesign => {
    const matches = new Float64Array(pairsIn.length);
    let k = 0;
    pairsIn.forEach((p, e) => {
      if (p.matches > 0 && p.info > 0) matches[e] = x[k++]!;
    });
    return { matches, total: x.reduce((s, v) => s + v, 0), feasible };
  };
  if (rho >= 1) return out(all, false);
  if (!targets.length) return out(new Float64Array(pairs.length), true);
  // start strictly inside: the plan scaled by s, which scales every variance by 1 / s
  const s0 = (1 + rho) / 2;
  let x: Float64Array = Float64Array.from(all, (N) => N * s0);
  const terms = targets.length + 2 * pairs.length;
  let t = terms / x.reduce((s, v) => s + v, 0);
  for (let outer = 0; outer < 60; outer++) {
    x = centre(n, pairs, targets, x, t);
    const total = x.reduce((s, v) => s + v, 0);
    if (terms / t < 1e-7 * total) break;
    t *= 8;
  }
  return out(x, true);
}

/** The damped Newton method on t Σx − Σ log(v_r − f_r) − Σ log x_e − Σ log(N_e − x_e), from a strictly feasible x. */
function centre(
  n: number,
  pairs: BoundPair[],
  targets: BoundTarget[],
  x0: Float64Array,
  t: number,
): Float64Array {
  const m = pairs.length;
  // the solver maximises −φ; outside the domain φ is infinite, so a step that leaves it is halved
  const objective: Objective = (y, d) => {
    let phi = 0;
    for (let e = 0; e < m; e++) {
      if (!(y[e]! > 0 && y[e]! < pairs[e]!.matches)) return -Infinity;
      phi += t * y[e]! - Math.log(y[e]!) - Math.log(pairs[e]!.matches - y[e]!);
    }
    const P = covarianceOf(n, pairs, y);
    const slack = targets.map((r) => r.variance - quad(P, n, r, r));
    for (const sl of slack) {
      if (!(sl > 0)) return -Infinity;
      phi -= Math.log(sl);
    }
    if (!d) return -phi;
    const B = new Float64Array(m * m);
    for (let e = 0; e < m; e++)
      for (let g = e; g < m; g++) B[e * m + g] = B[g * m + e] = quad(P, n, pairs[e]!, pairs[g]!);
    const { g: grad, H } = d;
    for (let e = 0; e < m; e++) {
      const N = pairs[e]!.matches;
      grad[e] = -(t - 1 / y[e]! + 1 / (N - y[e]!));
      H[e * m + e] = 1 / y[e]! ** 2 + 1 / (N - y[e]!) ** 2;
    }
    const a = new Float64Array(m);
    const gf = new Float64Array(m);
    targets.forEach((r, k) => {
      const sl = slack[k]!;
      for (let e = 0; e < m; e++) {
        a[e] = quad(P, n, r, pairs[e]!);
        gf[e] = -pairs[e]!.info * a[e]! ** 2;
        grad[e]! -= gf[e]! / sl;
      }
      for (let e = 0; e < m; e++)
        for (let g = 0; g < m; g++)
          H[e * m + g]! +=
            (2 * pairs[e]!.info * pairs[g]!.info * a[e]! * a[g]! * B[e * m + g]!) / sl +
            (gf[e]! * gf[g]!) / (sl * sl);
    });
    return -phi;
  };
  const x = Float64Array.from(x0);
  dampedNewton(objective, x, { maxIter: 100, tol: 1e-9, maxStep: Infinity, lineSearch: true });
  return x;
}

export interface RankCertaintyBound {
  /** the bound's matches, and as a share of the plan's */
  matches: number;
  share: number;
  /** the Fisher information of the bound's design as a share of the full plan's (summed over pairs) */
  informationShare: number;
  /** pairs the full plan separates, and of those the ones within 15% of the critical value (z / c < 1.15) */
  separated: number;
  marginal: number;
  /** the full plan's max-t critical value */
  critical: number;
  feasible: boolean;
}

/**
 * The bound for a plan (its matches) and the outcomes of playing all of it: the fewest matches whose design
 * separates, at the full plan's estimates, every pair the full plan's simultaneous intervals separate.
 */
export function rankCertaintyBound(
  models: string[],
  matches: SettleMatch[],
  battles: ClusteredBattle[],
  level: number,
): RankCertaintyBound | undefined {
  const fit = fitRanks(models, battles, level);
  if (!fit) return undefined;
  const n = models.length;
  const idx = new Map(models.map((m, k) => [m, k]));
  const count = new Map<string, number>();
  for (const m of matches) {
    const [i, j] = [idx.get(m.a)!, idx.get(m.b)!].sort((p, q) => p - q) as [number, number];
    count.set(`${i} ${j}`, (count.get(`${i} ${j}`) ?? 0) + 1);
  }
  const pairs: BoundPair[] = [...count].map(([k, c]) => {
    const [i, j] = k.split(' ').map(Number) as [number, number];
    return { i, j, matches: c, info: matchInformation(fit, i, j) };
  });
  const planned = Float64Array.from(pairs, (p) => p.matches);
  const full = covarianceOf(n, pairs, planned);
  const targets: BoundTarget[] = [];
  let marginal = 0;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const se = Math.sqrt(differenceVariance(fit.covariance, n, i, j));
      const z = Math.abs(fit.ratings[i]! - fit.ratings[j]!) / se;
      if (!(z > fit.critical)) continue;
      if (z / fit.critical < 1.15) marginal++;
      targets.push({ i, j, variance: quad(full, n, { i, j }, { i, j }) * (z / fit.critical) ** 2 });
    }
  const d = leastDesign(n, pairs, targets);
  const info = (x: ArrayLike<number>) => pairs.reduce((s, p, e) => s + x[e]! * p.info, 0);
  return {
    matches: d.total,
    share: d.total / matches.length,
    informationShare: info(d.matches) / info(planned),
    separated: targets.length,
    marginal,
    critical: fit.critical,
    feasible: d.feasible,
  };
}
