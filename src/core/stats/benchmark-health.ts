// Benchmark health of a judge against a reference judge (Arena-Hard's separability and agreement with confidence,
// pair-rank Brier score, rank correlations), all from one paired question bootstrap: each round refits both judges
// on the same draw, so a pair the reference cannot separate is no evidence for or against the judge. Pure.
import { battleTable, resamplePairs, type BattleTable, type ClusteredBattle } from './battle-table.ts';
import {
  clusterBootstrap,
  columnIntervals,
  percentileInterval,
  sortedInterval,
  type Interval,
} from './bootstrap.ts';
import { seededRng } from './random.ts';
import { intervalsWithheld, type IntervalsWithheld } from './rating-rows.ts';
import { pearson } from './judge-quality.ts';
import { bradleyTerryFactor, fitBradleyTerry, type CollapsedBattles } from '../ratings.ts';

interface Estimate extends Interval {
  value: number | null;
}

export interface HealthRow {
  judge: string;
  reference: string;
  /** models both judged, and the model pairs among them */
  models: string[];
  pairs: number;
  /** pairs whose judge intervals do not overlap (this and every count below that rests on the intervals: null
   * on too few questions, see `intervalsWithheld`) */
  separated: number | null;
  /** separated / pairs: how many pairs the judge tells apart with confidence */
  separability: number | null;
  /** pairs both the judge and the reference separate, in the same order / in opposite orders */
  agreedPairs: number | null;
  opposedPairs: number | null;
  /**
   * Arena-Hard's agreement with confidence: over all pairs, +1 where both separate the pair the same way,
   * −1 where both separate it opposite ways, 0 otherwise, divided by the pairs: (agreed − opposed) / pairs,
   * in [−1, 1]; a perfect copy of the reference scores the reference's own separability
   */
  agreementWithConfidence: number | null;
  /**
   * Brier against the reference's point order (Arena-Hard's choice): mean over pairs of
   * (P_judge(i above j) − [reference's ratings put i above j])², P from the judge's bootstrap rounds
   */
  brier: number | null;
  /** Brier against the reference's bootstrap probabilities: mean over pairs of (P_judge − P_reference)² */
  brierReferenceBootstrap: number | null;
  /** rank correlations of the judge's ratings with the reference's, with paired-bootstrap percentile intervals */
  spearman: Estimate;
  kendall: Estimate;
  /**
   * Monte-Carlo stability of `separated`: the 2.5% and 97.5% quantiles of the count over resamples of the
   * bootstrap rounds themselves (no refit). A range wider than one pair says the count depends on the rounds drawn:
   * use more rounds before reading it.
   */
  separatedMonteCarlo: { lo: number; hi: number } | null;
  /** the same separability for the reference itself: how sharp the yardstick is */
  referenceSeparated: number | null;
  referenceSeparatedMonteCarlo: { lo: number; hi: number } | null;
  referenceSeparability: number | null;
  level: number;
  rounds: number;
  seed: number;
  /**
   * set when the two judges' battles rest on fewer than MIN_QUESTIONS_FOR_INTERVALS questions: the intervals, and
   * the separability and agreement counted from them, are withheld (the Brier scores and point correlations stay)
   */
  intervalsWithheld?: IntervalsWithheld;
}

/** The clusters (questions) of both judges, in a fixed order: the bootstrap draws over these. */
export function healthClusters(judge: ClusteredBattle[], reference: ClusteredBattle[]): (string | number)[] {
  const all = new Set<string | number>();
  for (const b of judge) all.add(b.cluster);
  for (const b of reference) all.add(b.cluster);
  return [...all].sort((a, b) =>
    typeof a === 'number' && typeof b === 'number'
      ? a - b
      : String(a) < String(b)
        ? -1
        : String(a) > String(b)
          ? 1
          : 0,
  );
}

/** The cluster multiplicities of every round (seeded): exported so a reference computation can use the same draws. */
export function healthDraws(nClusters: number, rounds: number, seed: number): Float64Array[] {
  return clusterBootstrap(nClusters, (counts) => counts, { rounds, seed });
}

/** Ratings of every round (rows) for one table under the given draws (warm-started from the full fit). */
export function resampledRatings(t: BattleTable, draws: Float64Array[], full: Float64Array): Float64Array[] {
  const np = t.pairs.i.length;
  const round: CollapsedBattles = { ...t.pairs, w: new Float64Array(np), s: new Float64Array(np) };
  const factor = bradleyTerryFactor(t.pairs, full);
  return draws.map((counts) =>
    fitBradleyTerry(resamplePairs(t, counts, round), undefined, { init: full, factor, tol: 1e-8 }),
  );
}

/** Average ranks (1 = smallest) with ties sharing their mean rank. */
function ranks(x: ArrayLike<number>): Float64Array {
  const idx = Array.from({ length: x.length }, (_, k) => k).sort((a, b) => x[a]! - x[b]!);
  const r = new Float64Array(x.length);
  for (let k = 0; k < idx.length;) {
    let e = k;
    while (e + 1 < idx.length && x[idx[e + 1]!] === x[idx[k]!]) e++;
    for (let q = k; q <= e; q++) r[idx[q]!] = (k + e) / 2 + 1;
    k = e + 1;
  }
  return r;
}

/** Spearman's rank correlation (Pearson's on average ranks). */
export function spearman(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return pearson(ranks(a), ranks(b)) ?? NaN;
}

/** Kendall's tau-b (ties in either ranking accounted for, as scipy.stats.kendalltau's default). */
export function kendallTauB(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let concordant = 0;
  let discordant = 0;
  let tieA = 0;
  let tieB = 0;
  for (let i = 0; i < a.length; i++)
    for (let j = i + 1; j < a.length; j++) {
      const da = Math.sign(a[i]! - a[j]!);
      const db = Math.sign(b[i]! - b[j]!);
      if (da === 0 && db === 0) continue;
      if (da === 0) tieA++;
      else if (db === 0) tieB++;
      else if (da === db) concordant++;
      else discordant++;
    }
  const d = Math.sqrt((concordant + discordant + tieA) * (concordant + discordant + tieB));
  return d > 0 ? (concordant - discordant) / d : NaN;
}

/** The share of rounds in which model a rates above model b (a tie counts half). */
function shareAbove(rounds: Float64Array[], a: number, b: number): number {
  let above = 0;
  for (const r of rounds) above += r[a]! > r[b]! ? 1 : r[a]! === r[b]! ? 0.5 : 0;
  return above / rounds.length;
}

function estimate(value: number, samples: number[], level: number): Estimate {
  if (!Number.isFinite(value)) return { value: null, lo: NaN, hi: NaN };
  return { value, ...percentileInterval(samples, level) };
}

export interface HealthOptions {
  rounds?: number;
  level?: number;
  seed?: number;
  /** the draws to use instead of drawing them (rounds × clusters of healthClusters) */
  draws?: Float64Array[];
}

/** Health of `judge` against `reference` over the models both judged (the figures: HealthRow). */
export function benchmarkHealth(
  judge: string,
  jb: ClusteredBattle[],
  reference: string,
  rb: ClusteredBattle[],
  o: HealthOptions = {},
): HealthRow {
  const level = o.level ?? 0.95;
  const seed = o.seed ?? 1;
  const modelsOf = (bs: ClusteredBattle[]) => new Set(bs.flatMap((b) => [b.a, b.b]));
  const mr = modelsOf(rb);
  const models = [...modelsOf(jb)].filter((m) => mr.has(m)).sort();
  const n = models.length;
  const pairs = (n * (n - 1)) / 2;
  const clusters = healthClusters(jb, rb);
  const draws = o.draws ?? healthDraws(clusters.length, o.rounds ?? 1000, seed);
  const rounds = draws.length;
  const none = { value: null, lo: NaN, hi: NaN };
  const empty: HealthRow = {
    judge,
    reference,
    models,
    pairs,
    separated: 0,
    separability: null,
    agreedPairs: 0,
    opposedPairs: 0,
    agreementWithConfidence: null,
    brier: null,
    brierReferenceBootstrap: null,
    spearman: none,
    kendall: { ...none },
    separatedMonteCarlo: { lo: 0, hi: 0 },
    referenceSeparated: 0,
    referenceSeparatedMonteCarlo: { lo: 0, hi: 0 },
    referenceSeparability: null,
    level,
    rounds,
    seed,
  };
  if (n < 2) return empty;
  const tj = battleTable(jb, { models, clusters });
  const tr = battleTable(rb, { models, clusters });
  const fj = fitBradleyTerry(tj.pairs);
  const fr = fitBradleyTerry(tr.pairs);
  const sj = resampledRatings(tj, draws, fj);
  const sr = resampledRatings(tr, draws, fr);
  const ij = columnIntervals(sj, n, level);
  const ir = columnIntervals(sr, n, level);
  let separated = 0;
  let agreed = 0;
  let opposed = 0;
  let refSeparated = 0;
  let brier = 0;
  let brierBoot = 0;
  for (let a = 0; a < n; a++)
    for (let b = a + 1; b < n; b++) {
      const judgeApart = apart(ij, a, b);
      const refApart = apart(ir, a, b);
      if (refApart) refSeparated++;
      if (judgeApart) separated++;
      const refOrder = Math.sign(fr[a]! - fr[b]!);
      if (judgeApart && refApart) {
        if (Math.sign(fj[a]! - fj[b]!) === refOrder) agreed++;
        else opposed++;
      }
      const pj = shareAbove(sj, a, b);
      const truth = refOrder > 0 ? 1 : refOrder < 0 ? 0 : 0.5;
      brier += (pj - truth) ** 2;
      brierBoot += (pj - shareAbove(sr, a, b)) ** 2;
    }
  const sp: number[] = [];
  const kt: number[] = [];
  for (let k = 0; k < rounds; k++) {
    sp.push(spearman(sj[k]!, sr[k]!));
    kt.push(kendallTauB(sj[k]!, sr[k]!));
  }
  const row: HealthRow = {
    ...empty,
    separated,
    separability: separated / pairs,
    agreedPairs: agreed,
    opposedPairs: opposed,
    agreementWithConfidence: (agreed - opposed) / pairs,
    brier: brier / pairs,
    brierReferenceBootstrap: brierBoot / pairs,
    spearman: estimate(spearman(fj, fr), sp, level),
    kendall: estimate(kendallTauB(fj, fr), kt, level),
    separatedMonteCarlo: monteCarloCount(sj, level, seed),
    referenceSeparated: refSeparated,
    referenceSeparatedMonteCarlo: monteCarloCount(sr, level, seed),
    referenceSeparability: refSeparated / pairs,
  };
  const withheld = intervalsWithheld(clusters.length);
  return withheld ? withholdHealthIntervals(row, withheld) : row;
}

/** The row without its intervals and the counts made from them, saying why. */
function withholdHealthIntervals(row: HealthRow, withheld: IntervalsWithheld): HealthRow {
  const none = { separated: null, agreedPairs: null, opposedPairs: null, referenceSeparated: null };
  return {
    ...row,
    ...none,
    separability: null,
    agreementWithConfidence: null,
    referenceSeparability: null,
    separatedMonteCarlo: null,
    referenceSeparatedMonteCarlo: null,
    spearman: { value: row.spearman.value, lo: NaN, hi: NaN },
    kendall: { value: row.kendall.value, lo: NaN, hi: NaN },
    intervalsWithheld: withheld,
  };
}

const apart = (iv: Interval[], a: number, b: number) => iv[a]!.lo > iv[b]!.hi || iv[b]!.lo > iv[a]!.hi;

/** Pairs whose intervals do not overlap. */
function separatedCount(iv: Interval[]): number {
  let c = 0;
  for (let a = 0; a < iv.length; a++) for (let b = a + 1; b < iv.length; b++) if (apart(iv, a, b)) c++;
  return c;
}

/** The separated count's spread over `resamples` draws (with replacement) of the bootstrap rounds. */
function monteCarloCount(
  rounds: Float64Array[],
  level: number,
  seed: number,
  resamples = 200,
): { lo: number; hi: number } {
  if (!rounds.length) return { lo: 0, hi: 0 };
  const rng = seededRng(seed ^ 0x5eed);
  const R = rounds.length;
  const n = rounds[0]!.length;
  // each model's rounds sorted by rating (NaN left out) once: a resample's column is then laid out sorted from
  // how often each round was drawn, with no sort per resample (the same values, so the same quantiles)
  const order = Array.from({ length: n }, (_, k) => {
    const kept: number[] = [];
    for (let r = 0; r < R; r++) if (!Number.isNaN(rounds[r]![k]!)) kept.push(r);
    return kept.sort((x, y) => rounds[x]![k]! - rounds[y]![k]! || 0);
  });
  const drawn = new Int32Array(R);
  const column = new Float64Array(R);
  const counts: number[] = [];
  for (let s = 0; s < resamples; s++) {
    drawn.fill(0);
    for (let b = 0; b < R; b++) drawn[Math.floor(rng() * R)]!++;
    const iv = order.map((o, k) => {
      let m = 0;
      for (const r of o) for (let c = drawn[r]!; c > 0; c--) column[m++] = rounds[r]![k]!;
      return sortedInterval(column.subarray(0, m), level);
    });
    counts.push(separatedCount(iv));
  }
  const iv = percentileInterval(counts, 0.95);
  return { lo: Math.floor(iv.lo), hi: Math.ceil(iv.hi) };
}
