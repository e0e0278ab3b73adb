// Adaptive match scheduling: from the full plan's matches and the outcomes played so far, fit the ratings
// with sandwich (question-clustered) covariance, find the model pairs whose order the simultaneous
// intervals leave open, and choose the next round where it most shrinks those pairs' variances (a greedy
// targeted design on the model-based information: a match between k and l adds its Fisher information, and
// the covariance is updated by Sherman–Morrison, so games against third models count as they do in the fit),
// each open pair weighted by its chance of still being separated by the rest of the plan, plus a small
// uniform share over every pair that still has matches. A pair that chance says the plan will not separate
// is futile; a match whose gain is a small share of an average match's is not worth its call, and a round
// with no such match stops the run. Pure: the engine plays the round.
import type { ClusteredBattle } from './battle-table.ts';
import { battleTable } from './battle-table.ts';
import { connectedModelGroups } from '../groups.ts';
import { rankBounds, simultaneousDifferences } from './rank-intervals.ts';
import { invert, sandwichCovariance } from './sandwich.ts';
import { SCALE } from '../ratings.ts';

/** One match of the plan: both orders of (question, turn, pair) are played together. */
export interface SettleMatch {
  key: string;
  a: string;
  b: string;
  /** the question: the cluster of the intervals, and what the round spreads a pair's matches over */
  cluster: number;
}

export interface SettleInput {
  models: string[];
  /** every match of the full plan */
  matches: SettleMatch[];
  /** keys of the matches played (both orders stored); the rest are still to play */
  played: ReadonlySet<string>;
  /** the played matches' outcomes (errors left out), clustered by question */
  battles: ClusteredBattle[];
  /** matches per round */
  round: number;
  level?: number;
  /** share of a round spread over every pair with matches left (default 0.1) */
  explore?: number;
  /** stop once the rank intervals' widths (worst − best) sum to at most this */
  target?: number;
}

export type SettleStop = 'settled' | 'futile' | 'exhausted' | 'target';

export interface SettleStep {
  /** keys of the matches to play next (empty when stopping) */
  next: string[];
  stop?: SettleStop;
  /** each model's rank interval after the outcomes so far (undefined before a fit is possible) */
  ranks?: { model: string; best: number; worst: number }[];
  /** model pairs whose order the intervals leave open, as "a\u0000b" (a < b) */
  open: string[];
  /** of those, the ones the rest of the plan could not separate */
  futile: string[];
}

/** Tie pseudo-games per pair that met: keeps the fit finite when a pair has only won or only lost so far. */
export const SETTLE_PRIOR = 1;
/** Fewer questions than this give no interval worth acting on: every pair counts as open. */
const SETTLE_MIN_CLUSTERS = 5;
/** An open pair whose chance of being separated by the rest of the plan is below this is futile. */
const FUTILE_CHANCE = 0.16;
/** A match is worth its call when its gain is at least this share of an average match's (see nextRound). */
const WORTH = 0.5;

const pairKey = (a: string, b: string) => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

/**
 * The next round, or why there is none: `settled` when every pair's order is decided by the simultaneous
 * intervals, `exhausted` when the open pairs have no match left to play, `target` when the rank intervals'
 * total width is within the target.
 */
export function nextRound(o: SettleInput): SettleStep {
  const level = o.level ?? 0.95;
  const fit = fitRanks(o.models, o.battles, level);
  const open = fit ? fit.open : allPairs(o.models);
  const ranks = fit?.ranks;
  const left = remainingByPair(o.matches, o.played);
  const base = { ...(ranks ? { ranks } : {}), open: [...open] };
  if (ranks && o.target !== undefined && ranks.reduce((s, r) => s + r.worst - r.best, 0) <= o.target)
    return { next: [], stop: 'target', ...base, futile: [] };
  if (fit && !open.size) return { next: [], stop: 'settled', ...base, futile: [] };
  const chances = fit ? separationChances(fit, o.models, left) : new Map<string, number>();
  const futile = new Set([...chances].filter(([, c]) => c < FUTILE_CHANCE).map(([p]) => p));
  const targets = [...open].filter((p) => !futile.has(p));
  if (![...left.values()].some((l) => l.length))
    return { next: [], stop: 'exhausted', ...base, futile: [...futile] };
  if (!targets.length) return { next: [], stop: 'futile', ...base, futile: [...futile] };
  const playedPerPair = countPlayed(o.matches, o.played);
  const explore = Math.max(1, Math.round(o.round * (o.explore ?? 0.1)));
  const chosen = new Set<string>();
  const share = Math.max(1, o.round - explore);
  // a match is worth playing when it shrinks the targets' (chance-weighted) relative variances by at least
  // a share of what an average match of the plan adds to the fit: (models − 1) / matches (Foster's theorem)
  const minGain = (WORTH * (o.models.length - 1)) / o.matches.length;
  if (fit) {
    targetedFill(fit, o.models, targets, chances, left, share, minGain, chosen);
    if (!chosen.size) return { next: [], stop: 'futile', ...base, futile: [...futile] };
  } else
    waterFill(
      targets.filter((p) => left.get(p)?.length),
      left,
      playedPerPair,
      share,
      chosen,
    );
  // a small share over every pair with matches left, the fewest played first
  waterFill([...left.keys()], left, playedPerPair, fit ? explore : o.round - chosen.size, chosen);
  return { next: [...chosen], ...base, futile: [...futile] };
}

type Fit = NonNullable<ReturnType<typeof fitRanks>>;

/** One match's Fisher information about r_k − r_l (rating points): α² p (1 − p) / SCALE². */
function matchInformation(fit: Fit, k: number, l: number): number {
  const p = 1 / (1 + Math.exp(-(Math.LN10 * (fit.ratings[k]! - fit.ratings[l]!)) / SCALE));
  return (Math.LN10 * Math.LN10 * p * (1 - p)) / (SCALE * SCALE);
}

/**
 * Greedy targeted design: take matches one at a time where the summed relative variance reduction of the
 * target pairs' differences is largest, updating the covariance as the fit would (Sherman–Morrison).
 */
function targetedFill(
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
  const tg = targets.map((p) => p.split('\u0000').map((m) => idx.get(m)!) as [number, number]);
  const tVar = tg.map(([i, j]) => V[i * n + i]! + V[j * n + j]! - 2 * V[i * n + j]!);
  const tW = targets.map((p) => chances.get(p) ?? 1);
  const cands = [...left.entries()]
    .filter(([, l]) => l.length)
    .map(([p, l]) => {
      const [a, b] = p.split('\u0000').map((m) => idx.get(m)!) as [number, number];
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
 * For each open pair, the chance that the rest of the plan would still separate it: if every remaining match
 * were played, its standard error would shrink to se_all (as the model-based information grows), and its
 * estimated gap could still move by about sqrt(se² − se_all²); the chance is that of the moved gap clearing
 * the critical value times se_all. A pair below FUTILE_CHANCE is futile: no longer a target.
 */
function separationChances(
  fit: Fit,
  models: string[],
  left: Map<string, SettleMatch[]>,
): Map<string, number> {
  const n = models.length;
  const idx = new Map(models.map((m, i) => [m, i]));
  const now = new Float64Array(n * n);
  const all = new Float64Array(n * n);
  const add = (L: Float64Array, a: number, b: number, w: number) => {
    L[a * n + a]! += w;
    L[b * n + b]! += w;
    L[a * n + b]! -= w;
    L[b * n + a]! -= w;
  };
  for (const [p, w] of fit.pairGames) {
    const [a, b] = p.split('\u0000').map((m) => idx.get(m)!) as [number, number];
    const h = w * matchInformation(fit, a, b);
    add(now, a, b, h);
    add(all, a, b, h);
  }
  for (const [p, l] of left) {
    const [a, b] = p.split('\u0000').map((m) => idx.get(m)!) as [number, number];
    add(all, a, b, l.length * matchInformation(fit, a, b));
  }
  const Pnow = pseudoInverse(now, n);
  const Pall = pseudoInverse(all, n);
  const out = new Map<string, number>();
  for (const p of fit.open) {
    const [i, j] = p.split('\u0000').map((m) => idx.get(m)!) as [number, number];
    const v = (P: Float64Array) => P[i * n + i]! + P[j * n + j]! - 2 * P[i * n + j]!;
    const shrink = v(Pnow) > 0 ? Math.min(1, v(Pall) / v(Pnow)) : 1;
    const se = Math.sqrt(
      Math.max(0, fit.covariance[i * n + i]! + fit.covariance[j * n + j]! - 2 * fit.covariance[i * n + j]!),
    );
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
 * The model-based covariance of the ratings (rating points²): the pseudo-inverse of the played matches'
 * Fisher information (with the prior's tie pseudo-games). The design works on it, not on the sandwich:
 * the sandwich's variance of a model that wins or loses nearly everything is large, and matches against
 * it would look informative although each carries little information.
 */
function modelCovariance(fit: Fit, models: string[]): Float64Array {
  const n = models.length;
  const idx = new Map(models.map((m, i) => [m, i]));
  const L = new Float64Array(n * n);
  for (const [p, w] of fit.pairGames) {
    const [a, b] = p.split('\u0000').map((m) => idx.get(m)!) as [number, number];
    const h = (w + 2 * SETTLE_PRIOR) * matchInformation(fit, a, b);
    L[a * n + a]! += h;
    L[b * n + b]! += h;
    L[a * n + b]! -= h;
    L[b * n + a]! -= h;
  }
  return pseudoInverse(L, n);
}

/** The Moore–Penrose inverse of a connected graph's Laplacian: (L + 11ᵀ/n)⁻¹ − 11ᵀ/n. */
function pseudoInverse(L: Float64Array, n: number): Float64Array {
  const scale = Math.max(...Array.from({ length: n }, (_, k) => L[k * n + k]!), 1e-300);
  const A = Float64Array.from(L, (x) => x / scale + 1 / n);
  const inv = invert(A, n);
  return Float64Array.from(inv, (x) => (x - 1 / n) / scale);
}

/**
 * Ratings with question-clustered sandwich covariance (with SETTLE_PRIOR tie pseudo-games per pair that met),
 * simultaneous intervals of the differences, the rank intervals they imply and the pairs left open. Undefined
 * while the played matches do not link every model or span too few questions.
 */
export function fitRanks(
  models: string[],
  battles: ClusteredBattle[],
  level: number,
):
  | {
      ranks: { model: string; best: number; worst: number }[];
      open: Set<string>;
      ratings: Float64Array;
      covariance: Float64Array;
      critical: number;
      /** played battles per pair, by pair key */
      pairGames: Map<string, number>;
    }
  | undefined {
  const groups = connectedModelGroups(battles.map((b) => ({ model1: b.a, model2: b.b })));
  if (groups.length !== 1 || groups[0]!.length !== models.length) return undefined;
  const t = battleTable(battles, { models });
  if (t.clusters.length < SETTLE_MIN_CLUSTERS) return undefined;
  const { ratings, covariance, clusters } = sandwichCovariance(t, 'question', SETTLE_PRIOR);
  const d = simultaneousDifferences(ratings, covariance, level, { df: Math.max(1, clusters - 1) });
  const n = models.length;
  const open = new Set<string>();
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++)
      if (!(d.lo[i * n + j]! > 0 || d.hi[i * n + j]! < 0)) open.add(pairKey(models[i]!, models[j]!));
  const ranks = rankBounds(d).map((r, k) => ({ model: models[k]!, ...r }));
  const pairGames = new Map<string, number>();
  for (const b of battles) pairGames.set(pairKey(b.a, b.b), (pairGames.get(pairKey(b.a, b.b)) ?? 0) + 1);
  return { ranks, open, ratings, covariance, critical: d.critical, pairGames };
}

function allPairs(models: string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < models.length; i++)
    for (let j = i + 1; j < models.length; j++) out.add(pairKey(models[i]!, models[j]!));
  return out;
}

/** Unplayed matches per pair, each pair's spread over its questions in a fixed order (by a hash of the key). */
function remainingByPair(matches: SettleMatch[], played: ReadonlySet<string>): Map<string, SettleMatch[]> {
  const out = new Map<string, SettleMatch[]>();
  for (const m of matches) {
    if (played.has(m.key)) continue;
    const p = pairKey(m.a, m.b);
    let l = out.get(p);
    if (!l) out.set(p, (l = []));
    l.push(m);
  }
  for (const l of out.values()) l.sort((x, y) => hash(x.key) - hash(y.key) || (x.key < y.key ? -1 : 1));
  return out;
}

function countPlayed(matches: SettleMatch[], played: ReadonlySet<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of matches)
    if (played.has(m.key)) out.set(pairKey(m.a, m.b), (out.get(pairKey(m.a, m.b)) ?? 0) + 1);
  return out;
}

/** Give `k` matches to `pairs` one at a time, always to the pair with the fewest played + chosen matches. */
function waterFill(
  pairs: string[],
  left: Map<string, SettleMatch[]>,
  played: Map<string, number>,
  k: number,
  chosen: Set<string>,
): void {
  const count = new Map(pairs.map((p) => [p, (played.get(p) ?? 0) + taken(left.get(p)!, chosen)]));
  for (let n = 0; n < k; n++) {
    let best: string | undefined;
    for (const p of pairs) {
      const next = left.get(p)!.find((m) => !chosen.has(m.key));
      if (!next) continue;
      if (
        best === undefined ||
        count.get(p)! < count.get(best)! ||
        (count.get(p) === count.get(best) && p < best)
      )
        best = p;
    }
    if (best === undefined) return;
    chosen.add(left.get(best)!.find((m) => !chosen.has(m.key))!.key);
    count.set(best, count.get(best)! + 1);
  }
}

function taken(l: SettleMatch[], chosen: Set<string>): number {
  return l.reduce((s, m) => s + (chosen.has(m.key) ? 1 : 0), 0);
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
