// Adaptive match scheduling: fit the outcomes so far (question-clustered sandwich), find the pairs whose order the
// simultaneous intervals leave open, and choose the next round where it most shrinks their variances
// (settle-design.ts), each weighted by its chance of being separated by the rest of the plan, plus a small uniform
// share over every pair with matches left. Stops when settled, futile or exhausted. Pure: the engine plays it.
import { battleTable, type ClusteredBattle } from './battle-table.ts';
import { DEFAULT_LEVEL } from './bootstrap.ts';
import { battleSides, connectedModelGroups } from '../groups.ts';
import { rankBounds, simultaneousDifferences } from './rank-intervals.ts';
import { sandwichCovariance } from './sandwich.ts';
import {
  MIN_ROUND_SHARE,
  newcomerFill,
  powerRound,
  SETTLE_PRIOR,
  separationChances,
  targetedFill,
} from './settle-design.ts';

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

export { SETTLE_PRIOR } from './settle-design.ts';
/** Fewer questions than this give no interval worth acting on: every pair counts as open. */
const SETTLE_MIN_CLUSTERS = 5;
/** An open pair whose chance of being separated by the rest of the plan is below this is futile. */
const FUTILE_CHANCE = 0.16;
/** A match is worth its call when its gain is at least this share of an average match's (see nextRound). */
const WORTH = 0.5;
/** With no match worth its call, the run goes on while the rest of the plan separates some target this likely. */
const STOP_UNSETTLED = 0.5;

const pairKey = (a: string, b: string) => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

/**
 * The next round, or why there is none: `settled` when every pair's order is decided by the simultaneous
 * intervals, `exhausted` when the open pairs have no match left to play, `target` when the rank intervals'
 * total width is within the target.
 */
export function nextRound(o: SettleInput): SettleStep {
  const level = o.level ?? DEFAULT_LEVEL;
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
  const playedPerPair = countBy(o.matches.filter((m) => o.played.has(m.key)).map((m) => pairKey(m.a, m.b)));
  // a round no larger than what `arena power` says the open pair nearest to separation still needs
  const round = fit ? powerRound(fit, o.models, targets, o.played.size, o.round) : o.round;
  const explore = Math.max(1, Math.round(round * (o.explore ?? 0.1)));
  const chosen = new Set<string>();
  const share = Math.max(1, round - explore);
  // a match is worth playing when it shrinks the targets' (chance-weighted) relative variances by at least
  // a share of what an average match of the plan adds to the fit: (models − 1) / matches (Foster's theorem)
  const minGain = (WORTH * (o.models.length - 1)) / o.matches.length;
  if (fit) {
    targetedFill(fit, o.models, targets, chances, left, share, minGain, chosen);
    // no match worth its call: stop only when the rest of the plan more likely than not separates none of the
    // targets (the run already holds the full plan's certainty); else take the best matches, a small round
    if (!chosen.size && unsettled(targets, chances) > STOP_UNSETTLED)
      targetedFill(fit, o.models, targets, chances, left, Math.min(share, smallest(o.round)), 0, chosen);
    if (!chosen.size) return { next: [], stop: 'futile', ...base, futile: [...futile] };
  } else {
    // models with no game yet while the others can be fitted: a nightly refresh's new models
    const rated = ratedWithoutNewcomers(o.models, o.battles, level);
    if (rated) newcomerFill(rated, rated.newcomers, left, share, chosen);
    else {
      const open = targets.filter((p) => left.get(p)?.length);
      waterFill(open, left, playedPerPair, share, chosen);
    }
  }
  // a small share over every pair with matches left, the fewest played first
  waterFill([...left.keys()], left, playedPerPair, fit ? explore : round - chosen.size, chosen);
  return { next: [...chosen], ...base, futile: [...futile] };
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
      /** questions the played matches span */
      clusters: number;
    }
  | undefined {
  const groups = connectedModelGroups(battles.map(battleSides));
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
  const pairGames = countBy(battles.map((b) => pairKey(b.a, b.b)));
  return { ranks, open, ratings, covariance, critical: d.critical, pairGames, clusters };
}

/** The fit of the models that played, when the rest have no game at all (and the played ones can be fitted). */
function ratedWithoutNewcomers(models: string[], battles: ClusteredBattle[], level: number) {
  const met = new Set(battles.flatMap((b) => [b.a, b.b]));
  const newcomers = models.filter((m) => !met.has(m));
  const rated = models.filter((m) => met.has(m));
  if (!newcomers.length || rated.length < 2) return undefined;
  const fit = fitRanks(rated, battles, level);
  return fit && { models: rated, ratings: fit.ratings, newcomers };
}

/** The chance that the rest of the plan separates at least one of the target pairs (taken as independent). */
function unsettled(targets: string[], chances: Map<string, number>): number {
  return 1 - targets.reduce((stay, p) => stay * (1 - (chances.get(p) ?? 1)), 1);
}

const smallest = (round: number) => Math.ceil(round * MIN_ROUND_SHARE);

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

function countBy(keys: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const k of keys) out.set(k, (out.get(k) ?? 0) + 1);
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

/** FNV-1a: a fixed order for matches that does not follow their keys' spelling. */
export function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
