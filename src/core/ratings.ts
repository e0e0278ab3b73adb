import type { MatchOutcome, Vote } from './types.ts';
import { scoreOf } from './outcomes.ts';
import { cholesky } from './linalg.ts';
import { battleTable } from './stats/battle-table.ts';
import { dampedNewton, type Objective } from './newton.ts';

/** One battle: `score` is 1 if a won, 0 if b won, 0.5 for a tie. */
export interface Battle {
  a: string;
  b: string;
  score: 1 | 0 | 0.5;
}

export interface Rating {
  model: string;
  rating: number;
}

export const SCALE = 400;
const BASE = 10;
export const INIT = 1000;
const ALPHA = Math.log(BASE);

export function battlesFromOutcomes(outcomes: Iterable<MatchOutcome>): Battle[] {
  return [...outcomes].flatMap((o) =>
    o.outcome === 'error' ? [] : [{ a: o.model1, b: o.model2, score: scoreOf(o.outcome) }],
  );
}

export function battlesFromVotes(votes: Iterable<Vote>): Battle[] {
  return [...votes].map((v) => ({ a: v.model1, b: v.model2, score: scoreOf(v.winner) }));
}

/**
 * Online Elo as Chatbot Arena computes it: everyone starts at 1000, battles in the given order,
 * p = 1 / (1 + 10^((Rb - Ra)/400)), Ra += K (s - p), Rb -= K (s - p), K = 4.
 */
export function onlineElo(battles: Iterable<Battle>, k = 4): Rating[] {
  const r = new Map<string, number>();
  for (const { a, b, score } of battles) {
    const ra = r.get(a) ?? INIT;
    const rb = r.get(b) ?? INIT;
    const p = 1 / (1 + BASE ** ((rb - ra) / SCALE));
    const d = k * (score - p);
    r.set(a, ra + d);
    r.set(b, rb - d);
  }
  return sortRatings([...r].map(([model, rating]) => ({ model, rating })));
}

/** Collapsed battles (battle-table.ts): per ordered index pair, the total weight and the weighted score of a. */
export interface CollapsedBattles {
  models: string[];
  i: Int32Array;
  j: Int32Array;
  /** total weight of the pair */
  w: Float64Array;
  /** weighted wins of i over j (ties count half) */
  s: Float64Array;
}

/**
 * Bradley–Terry by maximum likelihood (FastChat's `compute_bt`: ties half a win, base 10, scale 400), by Newton's
 * method to full precision, mean rating 1000. `weights` (one per collapsed pair) rescale the counts (a bootstrap
 * round); `init` (output scale) warm-starts; `factor` (bradleyTerryFactor at the full fit) is a fixed Hessian (the
 * chord method): a round's Hessian is close to the full data's, so no factorisation per step.
 */
export function fitBradleyTerry(
  c: CollapsedBattles,
  weights?: Float64Array,
  opts: { maxIter?: number; tol?: number; init?: Float64Array; factor?: Float64Array } = {},
): Float64Array {
  const n = c.models.length;
  const r = new Float64Array(n);
  if (n < 2) return r.fill(INIT);
  // warm start (a bootstrap round starts from the full fit): back to natural units, model 0 at 0
  if (opts.init) for (let d = 0; d < n; d++) r[d] = (opts.init[d]! - opts.init[0]!) / SCALE;
  // model 0 is pinned at 0 while solving (x: the others); re-centred afterwards
  const x = r.subarray(1);
  const objective: Objective = (_x, d) => {
    for (let k = 0; k < c.i.length; k++) {
      const scale = weights ? weights[k]! : 1;
      const w = c.w[k]! * scale;
      if (w === 0) continue;
      const i = c.i[k]!;
      const j = c.j[k]!;
      const p = 1 / (1 + Math.exp(-ALPHA * (r[i]! - r[j]!)));
      // gradient of the log-likelihood with respect to r_i (and -r_j)
      const grad = ALPHA * (c.s[k]! * scale - w * p);
      if (i > 0) d!.g[i - 1]! += grad;
      if (j > 0) d!.g[j - 1]! -= grad;
      if (d!.H) addPairHessian(d!.H, n - 1, i, j, ALPHA * ALPHA * w * p * (1 - p));
    }
    return NaN;
  };
  // the step is clamped to ±1 so that separable data keep the iteration finite; a tiny ridge keeps a model with
  // no games (or all wins) from making H singular
  dampedNewton(objective, x, {
    maxIter: opts.maxIter ?? (opts.factor ? 200 : 100),
    tol: opts.tol ?? 1e-10,
    maxStep: 1,
    ridge: 1e-9,
    factor: opts.factor,
  });
  let mean = 0;
  for (let d = 0; d < n; d++) mean += r[d]!;
  mean /= n;
  for (let d = 0; d < n; d++) r[d] = SCALE * (r[d]! - mean) + INIT;
  return r;
}

/**
 * The Bradley–Terry information at `ratings` (output scale): the negative Hessian of the log-likelihood over models
 * 1..n−1 (model 0 pinned), with the fit's tiny ridge, and each pair's chance that its first model wins.
 */
export function bradleyTerryInformation(
  c: CollapsedBattles,
  ratings: Float64Array,
): { H: Float64Array; p: Float64Array } {
  const m = c.models.length - 1;
  const H = new Float64Array(m * m);
  const p = new Float64Array(c.i.length);
  for (let k = 0; k < c.i.length; k++) {
    const i = c.i[k]!;
    const j = c.j[k]!;
    p[k] = 1 / (1 + Math.exp((-ALPHA * (ratings[i]! - ratings[j]!)) / SCALE));
    addPairHessian(H, m, i, j, ALPHA * ALPHA * c.w[k]! * p[k]! * (1 - p[k]!));
  }
  for (let d = 0; d < m; d++) H[d * m + d]! += 1e-9;
  return { H, p };
}

/** The Cholesky factor of the Bradley–Terry information at `ratings`, for fitBradleyTerry's `factor`. */
export function bradleyTerryFactor(c: CollapsedBattles, ratings: Float64Array): Float64Array {
  return cholesky(bradleyTerryInformation(c, ratings).H, c.models.length - 1);
}

/** Add h (e_i − e_j)(e_i − e_j)ᵀ to M, the matrix of models 1..n−1 (model 0 is pinned: its row and column are left out). */
export function addPairHessian(H: Float64Array, m: number, i: number, j: number, h: number): void {
  if (i > 0) H[(i - 1) * m + (i - 1)]! += h;
  if (j > 0) H[(j - 1) * m + (j - 1)]! += h;
  if (i > 0 && j > 0) {
    H[(i - 1) * m + (j - 1)]! -= h;
    H[(j - 1) * m + (i - 1)]! -= h;
  }
}

export function bradleyTerry(battles: Iterable<Battle>): Rating[] {
  const c = battleTable(battles).pairs;
  const r = fitBradleyTerry(c);
  return sortRatings(c.models.map((model, k) => ({ model, rating: r[k]! })));
}

function sortRatings(r: Rating[]): Rating[] {
  return r.sort((a, b) => b.rating - a.rating || (a.model < b.model ? -1 : 1));
}
