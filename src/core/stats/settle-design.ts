// The adaptive scheduler's design (core/stats/settle.ts): the model-based information of the played matches,
// the greedy targeted choice of the next matches, each open pair's chance of separation by the rest of the plan,
// and a new model's first matches, chosen before it has a rating. Pure.
import type { SettleMatch } from './settle.ts';
import { questionsToSeparate } from './power.ts';
import { addEdge, differenceVariance, pseudoInverse } from '../linalg.ts';
import { SCALE } from '../ratings.ts';

/** Tie pseudo-games per pair that met: keeps the fit finite when a pair has only won or only lost so far. */
export const SETTLE_PRIOR = 1;

/** The smallest round: a quarter of the requested one (each round is a refit and, in the engine, a run). */
export const MIN_ROUND_SHARE = 0.25;

/**
 * The round's size from `arena power`'s estimate (power.ts): the matches the target pair nearest to separation
 * still needs at the current matches per question, within [MIN_ROUND_SHARE, 1] of the requested round.
 */
export function powerRound(
  fit: Fit & { clusters: number },
  models: string[],
  targets: string[],
  playedMatches: number,
  round: number,
): number {
  const n = models.length;
  const idx = new Map(models.map((m, i) => [m, i]));
  const q = fit.clusters;
  let least = Infinity;
  for (const p of targets) {
    const [i, j] = pairOf(idx, p);
    const se = Math.sqrt(differenceVariance(fit.covariance, n, i, j));
    const need = questionsToSeparate(
      Math.abs(fit.ratings[i]! - fit.ratings[j]!),
      se * Math.sqrt(q),
      fit.critical,
      0,
    );
    if (need !== null) least = Math.min(least, Math.max(0, need - q));
  }
  const matches = Math.ceil((least * playedMatches) / q);
  return Math.min(round, Math.max(Math.ceil(round * MIN_ROUND_SHARE), matches));
}

/** What the design reads from a fit of the played matches (settle.ts's fitRanks). */
export interface Fit {
  open: Set<string>;
  ratings: Float64Array;
  covariance: Float64Array;
  critical: number;
  /** played battles per pair, by pair key */
  pairGames: Map<string, number>;
}

/** A pair key's two models as indices. */
const pairOf = (idx: Map<string, number>, p: string) =>
  p.split('\u0000').map((m) => idx.get(m)!) as [number, number];

/** The information Laplacian of `counts` matches per pair (by pair key), added into L. */
function information(
  fit: Fit,
  idx: Map<string, number>,
  counts: Iterable<[string, number]>,
  L = new Float64Array(idx.size * idx.size),
): Float64Array {
  for (const [p, w] of counts) {
    const [a, b] = pairOf(idx, p);
    addEdge(L, idx.size, a, b, w * matchInformation(fit, a, b));
  }
  return L;
}

/** One match's Fisher information about r_k − r_l (rating points): α² p (1 − p) / SCALE². */
export function matchInformation(fit: Fit, k: number, l: number): number {
  const p = 1 / (1 + Math.exp(-(Math.LN10 * (fit.ratings[k]! - fit.ratings[l]!)) / SCALE));
  return (Math.LN10 * Math.LN10 * p * (1 - p)) / (SCALE * SCALE);
}

/**
 * Greedy targeted design: take matches one at a time where the summed relative variance reduction of the
 * target pairs' differences is largest, updating the covariance as the fit would (Sherman–Morrison).
 */
export function targetedFill(
  fit: Fit,
  models: string[],
  targets: string[],
  chances: Map<string, number>,
  left: Map<string, SettleMatch[]>,
  k: number,
  minGain: number,
  chosen: Set<string>,
): void {
  const n = models.length;
  const idx = new Map(models.map((m, i) => [m, i]));
  const V = modelCovariance(fit, models);
  const tg = targets.map((p) => pairOf(idx, p));
  const tVar = tg.map(([i, j]) => V[i * n + i]! + V[j * n + j]! - 2 * V[i * n + j]!);
  const tW = targets.map((p) => chances.get(p) ?? 1);
  const cands = [...left.entries()]
    .filter(([, l]) => l.length)
    .map(([p, l]) => {
      const [a, b] = pairOf(idx, p);
      return { a, b, l, next: 0, h: matchInformation(fit, a, b) };
    });
  const Vu = new Float64Array(n);
  for (let pick = 0; pick < k; pick++) {
    let best = -1;
    let bestGain = 0;
    cands.forEach((c, ci) => {
      while (c.next < c.l.length && chosen.has(c.l[c.next]!.key)) c.next++;
      if (c.next >= c.l.length) return;
      const { a, b, h } = c;
      const uVu = V[a * n + a]! + V[b * n + b]! - 2 * V[a * n + b]!;
      const f = h / (1 + h * uVu);
      let gain = 0;
      tg.forEach(([i, j], t) => {
        const x = V[i * n + a]! - V[i * n + b]! - V[j * n + a]! + V[j * n + b]!;
        gain += (tW[t]! * x * x * f) / (tVar[t]! || 1);
      });
      if (gain > bestGain) [best, bestGain] = [ci, gain];
    });
    if (best < 0 || bestGain < minGain) return;
    const c = cands[best]!;
    chosen.add(c.l[c.next]!.key);
    const { a, b, h } = c;
    for (let r = 0; r < n; r++) Vu[r] = V[r * n + a]! - V[r * n + b]!;
    const f = h / (1 + h * (Vu[a]! - Vu[b]!));
    for (let r = 0; r < n; r++) for (let s2 = 0; s2 < n; s2++) V[r * n + s2]! -= f * Vu[r]! * Vu[s2]!;
  }
}

/**
 * For each open pair, the chance that the rest of the plan would still separate it: with every remaining match
 * played its standard error shrinks to se_all and its gap can move by about sqrt(se² − se_all²); the chance is
 * that of the moved gap clearing the critical value times se_all.
 */
export function separationChances(
  fit: Fit,
  models: string[],
  left: Map<string, SettleMatch[]>,
): Map<string, number> {
  const n = models.length;
  const idx = new Map(models.map((m, i) => [m, i]));
  const now = information(fit, idx, fit.pairGames);
  const rest = [...left].map(([p, l]): [string, number] => [p, l.length]);
  const all = information(fit, idx, rest, Float64Array.from(now));
  const Pnow = pseudoInverse(now, n);
  const Pall = pseudoInverse(all, n);
  const out = new Map<string, number>();
  for (const p of fit.open) {
    const [i, j] = pairOf(idx, p);
    const v = (P: Float64Array) => P[i * n + i]! + P[j * n + j]! - 2 * P[i * n + j]!;
    const shrink = v(Pnow) > 0 ? Math.min(1, v(Pall) / v(Pnow)) : 1;
    const se = Math.sqrt(differenceVariance(fit.covariance, n, i, j));
    const gap = Math.abs(fit.ratings[i]! - fit.ratings[j]!);
    const seAll = se * Math.sqrt(shrink);
    const drift = Math.sqrt(Math.max(0, se * se - seAll * seAll));
    const need = fit.critical * seAll - gap;
    out.set(p, drift > 0 ? 1 - normalCdf(need / drift) : need < 0 ? 1 : 0);
  }
  return out;
}

/** Φ, the standard normal distribution function (Abramowitz and Stegun 7.1.26, error below 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const y =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) *
      t *
      Math.exp(-x * x);
  return z >= 0 ? (1 + y) / 2 : (1 - y) / 2;
}

/**
 * The model-based covariance of the ratings: the pseudo-inverse of the played matches' Fisher information. Not
 * the sandwich: its large variance for a model that wins nearly everything would make matches against it look
 * informative although each carries little information.
 */
function modelCovariance(fit: Fit, models: string[]): Float64Array {
  const idx = new Map(models.map((m, i) => [m, i]));
  const counts = [...fit.pairGames].map(([p, w]): [string, number] => [p, w + 2 * SETTLE_PRIOR]);
  return pseudoInverse(information(fit, idx, counts), models.length);
}

/**
 * A new model's first matches, before it has a rating: it is taken to be drawn like the rated models, and a match
 * against rated model k is worth its Fisher information p (1 − p) where k would be the new model's neighbour,
 * averaged over that prior (a neighbour's pair decides its rank interval). The `k` matches go to the pairs in
 * proportion to their worth: the middle of the league first.
 */
export function newcomerFill(
  rated: { models: string[]; ratings: Float64Array },
  newcomers: string[],
  left: Map<string, SettleMatch[]>,
  k: number,
  chosen: Set<string>,
): void {
  const r = [...rated.ratings];
  const mean = r.reduce((s, x) => s + x, 0) / r.length;
  const sd = Math.sqrt(r.reduce((s, x) => s + (x - mean) ** 2, 0) / r.length);
  const worth = neighbourInformation(r, mean, sd);
  const at = new Map(rated.models.map((m, i) => [m, i]));
  const isNew = new Set(newcomers);
  const pairs = [...left.entries()]
    .map(([p, l]) => ({ l, ms: p.split('\u0000') as [string, string], given: 0, next: 0 }))
    .filter((x) => x.l.length && x.ms.some((m) => isNew.has(m)))
    .map((x) => {
      const i = at.get(x.ms[0]) ?? at.get(x.ms[1]);
      return { ...x, w: i === undefined ? pq(0, 2 * sd * sd) : worth[i]! };
    });
  for (let n = 0; n < k; n++) {
    let best: (typeof pairs)[number] | undefined;
    for (const x of pairs) {
      while (x.next < x.l.length && chosen.has(x.l[x.next]!.key)) x.next++;
      if (x.next >= x.l.length) continue;
      if (!best || x.w / (1 + x.given) > best.w / (1 + best.given)) best = x;
    }
    if (!best) return;
    chosen.add(best.l[best.next]!.key);
    best.given++;
  }
}

/** The grid of the prior: 81 points over ±4 sd, with their normal weights (summing to 1). */
function priorGrid(mean: number, sd: number): { r: number; f: number }[] {
  if (!(sd > 0)) return [{ r: mean, f: 1 }];
  const g = Array.from({ length: 81 }, (_, k) => (k - 40) / 10).map((z) => ({
    r: mean + z * sd,
    f: Math.exp((-z * z) / 2),
  }));
  const t = g.reduce((s, x) => s + x.f, 0);
  return g.map((x) => ({ r: x.r, f: x.f / t }));
}

/** Per rated model: E[p (1 − p) · (it is the neighbour just above or below r)] for r ~ N(mean, sd²). */
function neighbourInformation(ratings: number[], mean: number, sd: number): number[] {
  const out = ratings.map(() => 0);
  for (const { r, f } of priorGrid(mean, sd)) {
    let above = -1;
    let below = -1;
    ratings.forEach((x, k) => {
      if (x >= r && (above < 0 || x < ratings[above]!)) above = k;
      if (x < r && (below < 0 || x > ratings[below]!)) below = k;
    });
    for (const k of [above, below]) if (k >= 0) out[k]! += f * pq(r - ratings[k]!, 0);
  }
  return out;
}

/** E[p (1 − p)] for a rating gap ~ N(mean, variance) (rating points). */
function pq(mean: number, variance: number): number {
  const one = (d: number) => {
    const p = 1 / (1 + Math.exp(-(Math.LN10 * d) / SCALE));
    return p * (1 - p);
  };
  return priorGrid(mean, Math.sqrt(variance)).reduce((s, x) => s + x.f * one(x.r), 0);
}
