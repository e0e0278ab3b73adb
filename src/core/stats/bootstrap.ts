// Bootstrap intervals: resampling whole questions (clusters) or single games, seeded and reproducible.
import { multinomial, randInt, seededRng, type Rng } from './random.ts';
import { bradleyTerryFactor, fitBradleyTerry, INIT, type Battle, type CollapsedBattles } from '../ratings.ts';
import { estimability, withPrior, type Estimability } from './separation.ts';
import {
  battlesPerModel,
  rankAnnotations,
  sampleCovariance,
  type PreliminaryRule,
} from './rank-intervals.ts';

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
  const s = Float64Array.from(samples)
    .filter((x) => !Number.isNaN(x))
    .sort();
  return { lo: quantileSorted(s, (1 - level) / 2), hi: quantileSorted(s, 1 - (1 - level) / 2) };
}

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

/** A battle that belongs to a cluster (its question): the unit a question-level bootstrap resamples. */
export interface ClusteredBattle extends Battle {
  cluster: string | number;
}

/**
 * Battles collapsed twice: per model pair (for the fit) and per (cluster, pair) (for resampling), so
 * a round costs O(cluster entries), not O(battles). Also per (pair, outcome) cell for game resampling.
 * Battles without a cluster give no cluster entries (only game-level resampling is possible then).
 */
export interface BattleTable {
  pairs: CollapsedBattles;
  clusters: (string | number)[];
  /** cluster k's entries are [start[k], start[k+1]) of entryPair/entryW/entryS */
  start: Int32Array;
  entryPair: Int32Array;
  entryW: Float64Array;
  entryS: Float64Array;
  /** game-level cells: pair, score of the pair's first model (0, 0.5, 1), count */
  cellPair: Int32Array;
  cellScore: Float64Array;
  cellCount: Float64Array;
  battles: number;
}

/**
 * Models and clusters are numbered in order of first appearance, unless `fixed` gives them: then the table is
 * over exactly those models (a battle of another model, or of a model with itself, is left out) and has an entry
 * list for every given cluster, in the given order (so two tables drawn with one set of cluster draws line up).
 */
export function battleTable(
  battles: Iterable<ClusteredBattle | Battle>,
  fixed?: { models: readonly string[]; clusters?: readonly (string | number)[] },
): BattleTable {
  const index = new Map<string, number>(fixed?.models.map((m, k) => [m, k]));
  const idx = (m: string) => {
    let k = index.get(m);
    if (k === undefined) {
      if (fixed) return -1;
      index.set(m, (k = index.size));
    }
    return k;
  };
  const pairIndex = new Map<number, number>();
  const pi: number[] = [];
  const pj: number[] = [];
  const clusterIndex = new Map<string | number, number>(fixed?.clusters?.map((c, k) => [c, k]));
  const entries: Map<number, { w: number; s: number }>[] = Array.from(
    { length: clusterIndex.size },
    () => new Map(),
  );
  const cells = new Map<number, number>();
  let n = 0;
  for (const bt of battles) {
    let i = idx(bt.a);
    let j = idx(bt.b);
    if (fixed && (i < 0 || j < 0 || i === j)) continue;
    let s: number = bt.score;
    if (i > j) {
      [i, j] = [j, i];
      s = 1 - s;
    }
    const key = i * 1_000_003 + j;
    let p = pairIndex.get(key);
    if (p === undefined) {
      pairIndex.set(key, (p = pi.length));
      pi.push(i);
      pj.push(j);
    }
    if ('cluster' in bt) {
      let c = clusterIndex.get(bt.cluster);
      if (c === undefined) {
        clusterIndex.set(bt.cluster, (c = entries.length));
        entries.push(new Map());
      }
      const e = entries[c]!.get(p);
      if (e) {
        e.w++;
        e.s += s;
      } else entries[c]!.set(p, { w: 1, s });
    }
    const cell = p * 3 + s * 2;
    cells.set(cell, (cells.get(cell) ?? 0) + 1);
    n++;
  }
  const np = pi.length;
  const pairs: CollapsedBattles = {
    models: [...index.keys()],
    i: Int32Array.from(pi),
    j: Int32Array.from(pj),
    w: new Float64Array(np),
    s: new Float64Array(np),
  };
  let total = 0;
  for (const m of entries) total += m.size;
  const t: BattleTable = {
    pairs,
    clusters: [...clusterIndex.keys()],
    start: new Int32Array(entries.length + 1),
    entryPair: new Int32Array(total),
    entryW: new Float64Array(total),
    entryS: new Float64Array(total),
    cellPair: new Int32Array(cells.size),
    cellScore: new Float64Array(cells.size),
    cellCount: new Float64Array(cells.size),
    battles: n,
  };
  let k = 0;
  entries.forEach((m, c) => {
    t.start[c] = k;
    for (const [p, e] of m) {
      t.entryPair[k] = p;
      t.entryW[k] = e.w;
      t.entryS[k] = e.s;
      pairs.w[p]! += e.w;
      pairs.s[p]! += e.s;
      k++;
    }
  });
  t.start[entries.length] = k;
  k = 0;
  for (const [cell, count] of cells) {
    const p = Math.floor(cell / 3);
    t.cellPair[k] = p;
    t.cellScore[k] = (cell % 3) / 2;
    t.cellCount[k] = count;
    if (!entries.length) {
      // no clusters: the pair totals come from the cells
      pairs.w[p]! += count;
      pairs.s[p]! += count * t.cellScore[k]!;
    }
    k++;
  }
  return t;
}

export type ResampleUnit = 'question' | 'game';

export interface RatingWithInterval {
  model: string;
  /** null when no finite rating fits (separated: see `note`) */
  rating: number | null;
  /** null when the interval is not estimated (a sparse or separated model) or unbounded */
  lo: number | null;
  hi: number | null;
  /** 1 + the number of models whose interval lies wholly above this one's (an unknown bound is unbounded) */
  rank: number;
  /** distinct questions the model was judged on (when battles carry their question) */
  questions?: number;
  /** seen on fewer than `minQuestions` questions: its interval is not shown as if estimated */
  sparse?: boolean;
  /** bootstrap rounds in which this model was separated (no finite rating) or had no game at all */
  separatedRounds?: number;
  missingRounds?: number;
  /** why rating or bounds are null */
  note?: string;
  /** best and worst rank consistent with simultaneous intervals of all rating differences (stats/rank-intervals.ts);
   * a model without an estimated interval (separated, sparse) spans the ranks it could take */
  rankBest: number;
  rankWorst: number;
  /** the marginal rank range: consistent with simultaneous intervals of this model's own differences only
   * (Mogstad et al.); it answers "what rank is this model", the joint one above holds for all models at once */
  marginalRankBest: number;
  marginalRankWorst: number;
  /** decided battles of the model */
  battles: number;
  /** fewer battles than the documented minimum, an interval wider than the documented threshold, or no interval */
  preliminary: boolean;
}

/** A model below this many distinct questions is marked sparse and gets no interval (documented in the README). */
export const MIN_QUESTIONS = 10;

export interface BootstrapRatings {
  /** how the intervals were made (default: the bootstrap); 'sandwich': stats/sandwich.ts */
  method?: 'bootstrap' | 'sandwich';
  unit: ResampleUnit;
  level: number;
  rounds: number;
  seed: number;
  rows: RatingWithInterval[];
  /** groups of models never compared with each other's group (only set when there are several): ratings across groups mean nothing */
  disconnected?: string[][];
  /** tie pseudo-games added to every pair that met (0: none) */
  prior: number;
  /** the minimum of distinct questions for an interval */
  minQuestions: number;
  /** rounds in which some estimable model was separated (its rating in that round is infinite, not a number) */
  separatedRounds: number;
  /** models with no finite rating on the full data */
  separated: string[];
}

/** The connected groups of the comparison graph (models linked by at least one battle). */
export function comparisonGroups(c: CollapsedBattles): string[][] {
  const parent = c.models.map((_, k) => k);
  const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x]!)));
  for (let k = 0; k < c.i.length; k++) if (c.w[k]! > 0) parent[find(c.i[k]!)] = find(c.j[k]!);
  const groups = new Map<number, string[]>();
  c.models.forEach((m, k) => {
    const r = find(k);
    groups.set(r, [...(groups.get(r) ?? []), m]);
  });
  return [...groups.values()]
    .map((g) => g.sort())
    .sort((a, b) => b.length - a.length || (a[0]! < b[0]! ? -1 : 1));
}

/** The full-data fit with separated models handled: their entries are +Infinity (above the rest), -Infinity (below) or NaN. */
export interface EstimableFit {
  ratings: Float64Array;
  status: Estimability[];
  /** the fit used to warm-start bootstrap rounds: finite everywhere (non-estimable models at INIT) */
  init: Float64Array;
  /** pair totals with the prior added and pairs touching a non-estimable model zeroed */
  pairs: CollapsedBattles;
}

/**
 * Bradley–Terry maximum likelihood on the models that are estimable (stats/separation.ts), centred so that
 * their mean is 1000; `prior` tie pseudo-games are added to every pair that met first.
 */
export function fitEstimable(c0: CollapsedBattles, prior = 0, anchor?: ArrayLike<boolean>): EstimableFit {
  const c = withPrior(c0, prior);
  const { status, separated } = estimability(c);
  const pairs = separated ? restrict(c, status) : c;
  const r = fitBradleyTerry(pairs);
  // every estimable model moves; the mean is taken over the anchored ones
  if (separated || anchor) recentre(r, status, () => INIT, anchorStatus(status, anchor));
  const init = Float64Array.from(r, (x, k) => (status[k] === 'ok' ? x : INIT));
  const ratings = Float64Array.from(r, (x, k) => valueOf(status[k]!, x));
  return { ratings, status, init, pairs };
}

function valueOf(st: Estimability, x: number): number {
  return st === 'ok' ? x : st === 'above' ? Infinity : st === 'below' ? -Infinity : NaN;
}

/** The pair totals with every pair that touches a model not 'ok' zeroed. */
function restrict(c: CollapsedBattles, status: Estimability[], weights?: Float64Array): CollapsedBattles {
  const w = new Float64Array(c.w.length);
  const s = new Float64Array(c.s.length);
  for (let k = 0; k < c.i.length; k++) {
    if (status[c.i[k]!] !== 'ok' || status[c.j[k]!] !== 'ok') continue;
    const scale = weights ? weights[k]! : 1;
    w[k] = c.w[k]! * scale;
    s[k] = c.s[k]! * scale;
  }
  return { ...c, w, s };
}

/** The models the ratings are centred on: estimable ones, and of those the anchored ones when any is. */
function anchorStatus(status: Estimability[], anchor?: ArrayLike<boolean>): boolean[] {
  const ok = status.map((st) => st === 'ok');
  if (!anchor) return ok;
  const both = ok.map((x, k) => x && Boolean(anchor[k]));
  return both.some(Boolean) ? both : ok;
}

/**
 * Shift the 'ok' entries so that the mean over the centring set (`centre`: default the 'ok' ones) equals
 * the mean of `target` over the same models.
 */
function recentre(
  r: Float64Array,
  status: Estimability[] | boolean[],
  target: (k: number) => number,
  centre?: boolean[],
): void {
  const isOk = (k: number) => (typeof status[k] === 'boolean' ? (status[k] as boolean) : status[k] === 'ok');
  const inCentre = (k: number) => isOk(k) && (centre ? centre[k]! : true);
  let mean = 0;
  let want = 0;
  let n = 0;
  for (let k = 0; k < r.length; k++) {
    if (!inCentre(k)) continue;
    mean += r[k]!;
    want += target(k);
    n++;
  }
  if (!n) return;
  const shift = (want - mean) / n;
  for (let k = 0; k < r.length; k++) if (isOk(k)) r[k]! += shift;
}

/** Wins, losses and ties of every model (from the table's game-level cells). */
export function tableRecords(t: BattleTable): { wins: number; losses: number; ties: number }[] {
  const r = t.pairs.models.map(() => ({ wins: 0, losses: 0, ties: 0 }));
  for (let k = 0; k < t.cellPair.length; k++) {
    const p = t.cellPair[k]!;
    const i = t.pairs.i[p]!;
    const j = t.pairs.j[p]!;
    const n = t.cellCount[k]!;
    const sc = t.cellScore[k]!;
    if (sc === 1) ((r[i]!.wins += n), (r[j]!.losses += n));
    else if (sc === 0) ((r[j]!.wins += n), (r[i]!.losses += n));
    else ((r[i]!.ties += n), (r[j]!.ties += n));
  }
  return r;
}

/** Why a model has no finite rating, e.g. "not estimable: 10 wins, 0 losses". */
export function separationNote(
  st: Estimability,
  rec: { wins: number; losses: number; ties: number },
): string {
  const record = `${rec.wins} wins, ${rec.losses} losses${rec.ties ? `, ${rec.ties} ties` : ''}`;
  const why =
    st === 'above'
      ? 'it never lost to the other models, so no finite rating fits; --prior gives one'
      : st === 'below'
        ? 'it never beat or tied the other models, so no finite rating fits; --prior gives one'
        : 'it cannot be placed against the main group of models';
  return `not estimable: ${record} (${why})`;
}

/** Distinct questions per model (0 when battles carry no question). */
export function questionsPerModel(t: BattleTable): number[] {
  const q = t.pairs.models.map(() => 0);
  for (let c = 0; c < t.clusters.length; c++) {
    const seen = new Set<number>();
    for (let k = t.start[c]!; k < t.start[c + 1]!; k++) {
      const p = t.entryPair[k]!;
      seen.add(t.pairs.i[p]!);
      seen.add(t.pairs.j[p]!);
    }
    for (const m of seen) q[m]!++;
  }
  return q;
}

/**
 * Bradley–Terry with bootstrap percentile intervals. `question`: every round draws the table's
 * clusters with replacement (all battles of a question move together: both turns, both orders);
 * `game`: every round draws the battles themselves (multinomially over the (pair, outcome) counts,
 * as FastChat's compute_bootstrap_bt does). Each round refits, warm-started from the full fit.
 * Separated models (no finite rating) get `rating: null` and a note; a round in which a model is
 * separated gives it an infinite value, never a number the iteration limit reached, and a model
 * absent from a round has no value in it. A model seen on fewer than `minQuestions` questions gets no
 * interval. `prior`: tie pseudo-games per pair that met (0: none).
 */
export function bootstrapBradleyTerry(
  t: BattleTable,
  o: BootstrapOptions & PreliminaryRule & { unit?: ResampleUnit; prior?: number; minQuestions?: number } = {},
): BootstrapRatings {
  const { unit, level, seed, prior, minQuestions } = intervalDefaults(o);
  const rounds = o.rounds ?? DEFAULT_ROUNDS;
  const questions = t.clusters.length ? questionsPerModel(t) : undefined;
  // ratings are centred on the models seen on enough questions: a sparse model's noise never shifts the others
  const anchor = questions?.map((q) => q >= minQuestions);
  const fit = fitEstimable(t.pairs, prior, anchor);
  const stats = {
    separatedRounds: 0,
    separated: new Float64Array(t.pairs.models.length),
    missing: new Float64Array(t.pairs.models.length),
  };
  const samples = bootstrapRatingSamples(t, {
    unit,
    rounds,
    seed,
    fit,
    prior,
    stats,
    ...(anchor ? { anchor } : {}),
  });
  const n = t.pairs.models.length;
  const iv = columnIntervals(samples, n, level);
  const recs = tableRecords(t);
  const battles = battlesPerModel(n, t.pairs.i, t.pairs.j, t.pairs.w);
  const rows: RatingWithInterval[] = t.pairs.models.map((model, k) => {
    const st = fit.status[k]!;
    const row = openRow(model, st === 'ok' ? fit.ratings[k]! : null, n, battles[k]!, questions?.[k]);
    if (stats.separated[k]) row.separatedRounds = stats.separated[k]!;
    if (stats.missing[k]) row.missingRounds = stats.missing[k]!;
    if (st !== 'ok') {
      row.note = separationNote(st, recs[k]!);
      return row;
    }
    if (markSparse(row, minQuestions)) return row;
    const { lo, hi } = iv[k]!;
    row.lo = Number.isFinite(lo) ? lo : null;
    row.hi = Number.isFinite(hi) ? hi : null;
    if (row.lo === null || row.hi === null)
      row.note = `interval unbounded ${row.hi === null ? 'above' : 'below'}: separated in ${stats.separated[k]} of ${rounds} rounds`;
    return row;
  });
  setRankUB(rows, fit.status);
  const clusters = unit === 'question' ? t.clusters.length : t.battles;
  annotateRanks(
    rows,
    (est) =>
      sampleCovariance(
        samples.map((row) => Float64Array.from(est, (k) => row[k]!)),
        est.length,
        clusters,
      ),
    fit.status,
    battles,
    level,
    { ...o, seed, clusters },
  );
  const key = (r: RatingWithInterval, k: number) =>
    r.rating ?? (fit.status[k] === 'above' ? Infinity : -Infinity);
  const order = rows
    .map((r, k) => ({ r, v: key(r, k) }))
    .sort((a, b) => b.v - a.v || (a.r.model < b.r.model ? -1 : 1));
  const groups = comparisonGroups(t.pairs);
  return {
    unit,
    level,
    rounds,
    seed,
    rows: order.map((x) => x.r),
    ...(groups.length > 1 ? { disconnected: groups } : {}),
    prior,
    minQuestions,
    separatedRounds: stats.separatedRounds,
    separated: t.pairs.models.filter((_, k) => fit.status[k] !== 'ok'),
  };
}

/** The defaults the bootstrap and the sandwich share: question clusters, 95%, seed 1, no prior, MIN_QUESTIONS. */
export function intervalDefaults(o: {
  unit?: ResampleUnit;
  level?: number;
  seed?: number;
  prior?: number;
  minQuestions?: number;
}) {
  return {
    unit: o.unit ?? 'question',
    level: o.level ?? DEFAULT_LEVEL,
    seed: o.seed ?? DEFAULT_SEED,
    prior: o.prior ?? 0,
    minQuestions: o.minQuestions ?? MIN_QUESTIONS,
  };
}

/**
 * A model's row before its interval: none yet, ranks spanning the whole field of `n`, preliminary until
 * annotateRanks says otherwise; `questions` (when counted) how many questions it was seen on.
 */
export function openRow(
  model: string,
  rating: number | null,
  n: number,
  battles: number,
  questions: number | undefined,
): RatingWithInterval {
  const row: RatingWithInterval = {
    model,
    rating,
    lo: null,
    hi: null,
    rank: 0,
    rankBest: 1,
    rankWorst: n,
    marginalRankBest: 1,
    marginalRankWorst: n,
    battles,
    preliminary: true,
  };
  if (questions !== undefined) row.questions = questions;
  return row;
}

/** Marks a row seen on fewer than `minQuestions` questions sparse, with its note (no interval); says whether it did. */
export function markSparse(row: RatingWithInterval, minQuestions: number): boolean {
  const q = row.questions;
  if (q === undefined || q >= minQuestions) return false;
  row.sparse = true;
  row.note = `seen on ${q} question${q === 1 ? '' : 's'} (fewer than ${minQuestions}): interval not estimated`;
  return true;
}

/**
 * Rank (UB) of every row: 1 + the models whose interval lies wholly above. A model without an interval
 * is unbounded (a model separated above lies above every other, one separated below under every other),
 * so a sparse model's Rank (UB) is 1 + the models separated above, never 1 above them.
 */
export function setRankUB(rows: RatingWithInterval[], status: readonly string[]): void {
  const above = status.filter((st) => st === 'above').length;
  const ranks = ranksFromIntervals(
    rows.map((r, k) => ({
      lo: r.lo ?? (status[k] === 'above' ? Infinity : -Infinity),
      hi: r.hi ?? (status[k] === 'below' ? -Infinity : Infinity),
    })),
  );
  rows.forEach((r, k) => (r.rank = status[k] === 'above' ? ranks[k]! : Math.max(ranks[k]!, above + 1)));
}

/**
 * Rank bounds and the preliminary mark (stats/rank-intervals.ts) over the models with an estimated
 * interval (`covOf(est)`: the covariance of their ratings, in the order of `est`); the others span the
 * ranks they could take: a model separated above ranks among the separated-above ones, one separated
 * below among the last, a sparse one anywhere between. Estimated models are shifted down by the models
 * separated above, and their worst rank by the sparse ones too. Rows are in the table's model order.
 */
export function annotateRanks(
  rows: RatingWithInterval[],
  covOf: (est: number[]) => Float64Array,
  status: readonly string[],
  battles: Float64Array,
  level: number,
  o: PreliminaryRule & { seed: number; clusters: number; draws?: number },
): void {
  const n = rows.length;
  const above = status.filter((st) => st === 'above').length;
  const below = status.filter((st) => st === 'below').length;
  const est = rows.flatMap((r, k) => (r.rating !== null && r.lo !== null && r.hi !== null ? [k] : []));
  const sparse = n - above - below - est.length;
  if (est.length) {
    const ann = rankAnnotations(
      Float64Array.from(est, (k) => rows[k]!.rating!),
      covOf(est),
      est.map((k) => ({ lo: rows[k]!.lo!, hi: rows[k]!.hi! })),
      Float64Array.from(est, (k) => battles[k]!),
      level,
      { ...o, df: o.clusters - 1 },
    );
    est.forEach((k, e) =>
      Object.assign(rows[k]!, {
        rankBest: ann[e]!.rankBest + above,
        rankWorst: ann[e]!.rankWorst + above + sparse,
        marginalRankBest: ann[e]!.marginalRankBest + above,
        marginalRankWorst: ann[e]!.marginalRankWorst + above + sparse,
        preliminary: ann[e]!.preliminary,
      }),
    );
  }
  rows.forEach((r, k) => {
    const span = (best: number, worst: number) =>
      Object.assign(r, {
        rankBest: best,
        rankWorst: worst,
        marginalRankBest: best,
        marginalRankWorst: worst,
      });
    if (status[k] === 'above') span(1, above);
    else if (status[k] === 'below') span(n - below + 1, n);
    else if (status[k] === 'ok' && !est.includes(k)) span(above + 1, n - below);
  });
}

/**
 * The refitted ratings of every bootstrap round (one row per round, columns in t.pairs.models order).
 * A model separated in a round is +Infinity (above the rest) or -Infinity (below); a model with no
 * games in the round, or not estimable on the full data, is NaN. Rounds are centred on the mean of
 * the full fit over the models estimable in the round, so a blow-up never drags the others.
 */
export function bootstrapRatingSamples(
  t: BattleTable,
  o: {
    unit: ResampleUnit;
    rounds: number;
    seed: number;
    init?: Float64Array;
    fit?: EstimableFit;
    prior?: number;
    tol?: number;
    anchor?: boolean[];
    stats?: { separatedRounds: number; separated: Float64Array; missing: Float64Array };
  },
): Float64Array[] {
  const rng = seededRng(o.seed);
  const prior = o.prior ?? 0;
  const fit = o.fit ?? fitEstimable(t.pairs, prior);
  const init =
    o.init && !o.fit ? Float64Array.from(o.init, (x) => (Number.isFinite(x) ? x : INIT)) : fit.init;
  const nm = t.pairs.models.length;
  const okFull = Uint8Array.from(fit.status, (st) => (st === 'ok' ? 1 : 0));
  const allOk = okFull.every(Boolean);
  // every round starts from the full fit and reuses its Hessian (chord steps: no factorisation per round)
  const factor = bradleyTerryFactor(fit.pairs, init);
  const np = t.pairs.i.length;
  const round: CollapsedBattles = { ...t.pairs, w: new Float64Array(np), s: new Float64Array(np) };
  const nc = t.clusters.length;
  const counts = new Float64Array(o.unit === 'question' ? nc : t.cellCount.length);
  const out: Float64Array[] = [];
  for (let b = 0; b < o.rounds; b++) {
    round.w.fill(0);
    round.s.fill(0);
    if (o.unit === 'question') {
      if (!nc)
        throw new Error('[bootstrap] question-level resampling needs battles tagged with their question');
      drawClusterCounts(rng, nc, counts);
      for (let c = 0; c < nc; c++) {
        const m = counts[c]!;
        if (!m) continue;
        for (let k = t.start[c]!; k < t.start[c + 1]!; k++) {
          const p = t.entryPair[k]!;
          round.w[p]! += m * t.entryW[k]!;
          round.s[p]! += m * t.entryS[k]!;
        }
      }
    } else {
      multinomial(rng, t.battles, t.cellCount, counts);
      for (let k = 0; k < counts.length; k++) {
        const m = counts[k]!;
        if (!m) continue;
        const p = t.cellPair[k]!;
        round.w[p]! += m;
        round.s[p]! += m * t.cellScore[k]!;
      }
    }
    // a model with no game in this round has no value in it, whatever the prior
    const played = new Uint8Array(nm);
    for (let k = 0; k < np; k++)
      if (round.w[k]! > 0) {
        played[round.i[k]!] = 1;
        played[round.j[k]!] = 1;
      }
    const rc = withPrior(round, prior);
    if (!allOk)
      for (let k = 0; k < np; k++)
        if (!okFull[rc.i[k]!] || !okFull[rc.j[k]!] || !played[rc.i[k]!] || !played[rc.j[k]!])
          ((rc.w[k] = 0), (rc.s[k] = 0));
    const est = estimability(rc, undefined, okFull);
    const clean = est.status.every((st, k) => st === 'ok' || !okFull[k]);
    let r: Float64Array;
    const centre = o.anchor && !o.anchor.every(Boolean) ? o.anchor : undefined;
    if (clean) {
      // tol 1e-6 in natural-log units is 4e-4 rating points: far below any interval's Monte Carlo noise
      r = fitBradleyTerry(rc, undefined, { init, factor, tol: o.tol ?? 1e-6 });
      if (!allOk || centre) recentre(r, est.status, (k) => fit.ratings[k]!, centre);
    } else {
      r = fitBradleyTerry(restrict(rc, est.status), undefined, { init, tol: o.tol ?? 1e-6 });
      recentre(r, est.status, (k) => fit.ratings[k]!, centre);
    }
    let sep = false;
    for (let k = 0; k < nm; k++) {
      const st = okFull[k] ? est.status[k]! : 'missing';
      r[k] = valueOf(st, r[k]!);
      if (!okFull[k] || !o.stats) continue;
      if (st === 'above' || st === 'below') ((o.stats.separated[k]! += 1), (sep = true));
      else if (st === 'missing') o.stats.missing[k]! += 1;
    }
    if (sep && o.stats) o.stats.separatedRounds++;
    out.push(r);
  }
  return out;
}

/** Rank that respects the intervals: 1 + the number of entries whose lower bound exceeds my upper bound. */
export function ranksFromIntervals(iv: Interval[]): number[] {
  return iv.map((a) => 1 + iv.filter((b) => b.lo > a.hi).length);
}
