// Sandwich (robust, cluster-CLT) intervals for Bradley–Terry ratings, one fit instead of a refit per bootstrap
// round: V = H⁻¹ (Σ_c g_c g_cᵀ) H⁻¹ · C/(C−1), H the information at the fit, g_c the score summed over cluster c
// (a question, or a battle with unit 'game'). Pure.
import { battlesPerModel, MAX_T_DRAWS, type PreliminaryRule } from './rank-intervals.ts';
import {
  finishRatings,
  intervalDefaults,
  markSparse,
  openRow,
  type BootstrapRatings,
  type RatingWithInterval,
  type ResampleUnit,
} from './rating-rows.ts';
import { questionsPerModel, type BattleTable } from './battle-table.ts';
import { tQuantile } from './normal.ts';
import { estimability, withPrior } from './separation.ts';
import { ArenaError } from '../types.ts';
import { addPairHessian, bradleyTerryInformation, fitBradleyTerry, INIT, SCALE } from '../ratings.ts';
import { cholesky, choleskySolve, invert, multiply } from '../linalg.ts';

const ALPHA = Math.LN10;

export interface SandwichOptions extends PreliminaryRule {
  level?: number;
  /** question: battles of a question are one cluster (default); game: every battle is its own */
  unit?: ResampleUnit;
  /** seed and number of normal draws for the max-t critical value of the rank bounds */
  seed?: number;
  draws?: number;
  /** tie pseudo-games added to every pair that met (0: none), as the bootstrap's */
  prior?: number;
  /** a model seen on fewer questions gets no interval (default MIN_QUESTIONS) */
  minQuestions?: number;
  /** below this many questions no interval or rank range (default MIN_QUESTIONS_FOR_INTERVALS) */
  minQuestionsForIntervals?: number;
}

export interface SandwichFit {
  /** ratings on the output scale (mean 1000), columns in t.pairs.models order */
  ratings: Float64Array;
  /** covariance of the ratings (rating points², n×n, row-major), of the mean-centred ratings */
  covariance: Float64Array;
  clusters: number;
}

/**
 * The fit and its sandwich covariance. `prior`: tie pseudo-games per pair that met (in the fit and H; the meat
 * sums the data's scores only). `anchor`: the models the ratings are centred on (default all).
 */
export function sandwichCovariance(
  t: BattleTable,
  unit: ResampleUnit = 'question',
  prior = 0,
  anchor?: ArrayLike<boolean>,
): SandwichFit {
  const c = withPrior(t.pairs, prior);
  const n = c.models.length;
  const ratings = fitBradleyTerry(c);
  const m = n - 1;
  const { H, p } = bradleyTerryInformation(c, ratings);
  const B = new Float64Array(m * m);
  const g = new Float64Array(m);
  let clusters = 0;
  if (unit === 'question') {
    if (!t.clusters.length)
      throw new Error('[sandwich] question clusters need battles tagged with their question');
    for (let q = 0; q < t.clusters.length; q++) {
      g.fill(0);
      for (let e = t.start[q]!; e < t.start[q + 1]!; e++) {
        const k = t.entryPair[e]!;
        const u = ALPHA * (t.entryS[e]! - t.entryW[e]! * p[k]!);
        if (c.i[k]! > 0) g[c.i[k]! - 1]! += u;
        if (c.j[k]! > 0) g[c.j[k]! - 1]! -= u;
      }
      for (let a = 0; a < m; a++) {
        if (!g[a]) continue;
        for (let b = 0; b < m; b++) B[a * m + b]! += g[a]! * g[b]!;
      }
      clusters++;
    }
  } else {
    // every battle its own cluster: a (pair, score) cell of `count` battles adds count · u² (e_i − e_j)(e_i − e_j)ᵀ
    for (let k = 0; k < t.cellPair.length; k++) {
      const q = t.cellPair[k]!;
      const u = ALPHA * (t.cellScore[k]! - p[q]!);
      addPairHessian(B, m, c.i[q]!, c.j[q]!, t.cellCount[k]! * u * u);
      clusters += t.cellCount[k]!;
    }
  }
  const Hinv = invert(H, m);
  const Vfree = multiply(multiply(Hinv, B, m), Hinv, m);
  const corr = clusters > 1 ? clusters / (clusters - 1) : 1;
  // model 0 was pinned at 0: embed, centre (P W P with P = I − 11ᵀ/n), and scale to rating points
  const W = new Float64Array(n * n);
  for (let a = 0; a < m; a++)
    for (let b = 0; b < m; b++) W[(a + 1) * n + (b + 1)] = Vfree[a * m + b]! * corr * SCALE * SCALE;
  // centring on the anchored models A: r − 1·(aᵀr) with a = 1_A/|A|, so V ↦ P W Pᵀ with P = I − 1aᵀ
  const inA = Array.from({ length: n }, (_, k) =>
    anchor && Array.from(anchor).some(Boolean) ? Boolean(anchor[k]) : true,
  );
  const nA = inA.filter(Boolean).length;
  const rowMean = new Float64Array(n);
  let all = 0;
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) if (inA[b]) rowMean[a]! += W[a * n + b]! / nA;
    if (inA[a]) all += rowMean[a]! / nA;
  }
  let shift = 0;
  for (let k = 0; k < n; k++) if (inA[k]) shift += (ratings[k]! - INIT) / nA;
  for (let k = 0; k < n; k++) ratings[k]! -= shift;
  const covariance = new Float64Array(n * n);
  for (let a = 0; a < n; a++)
    for (let b = 0; b < n; b++) covariance[a * n + b] = W[a * n + b]! - rowMean[a]! - rowMean[b]! + all;
  return { ratings, covariance, clusters };
}

/** Bradley–Terry with sandwich intervals, in the shape of bootstrapBradleyTerry's result (same prior, centring, rules). */
export function sandwichBradleyTerry(t: BattleTable, o: SandwichOptions = {}): BootstrapRatings {
  const { unit, level, prior, minQuestions } = intervalDefaults(o);
  const draws = o.draws ?? MAX_T_DRAWS;
  // the sandwich rests on one finite fit: a model that won or lost everything has none (use the bootstrap, which says so per model, or a prior)
  const est = estimability(withPrior(t.pairs, prior));
  if (est.separated) {
    const bad = t.pairs.models.filter(
      (_, k) => est.status[k] === 'above' || est.status[k] === 'below' || est.status[k] === 'apart',
    );
    throw new ArenaError(
      `sandwich intervals need a finite Bradley–Terry fit, but ${bad.join(', ')} won or lost every game against the rest (not estimable); use the bootstrap (--method bootstrap), which marks such models, or a prior (--prior 1)`,
    );
  }
  const questions = t.clusters.length ? questionsPerModel(t) : undefined;
  const anchor = questions?.map((q) => q >= minQuestions);
  const { ratings, covariance, clusters } = sandwichCovariance(t, unit, prior, anchor);
  const n = ratings.length;
  // Student's t with C − 1 degrees of freedom, as cluster-robust inference does (80 questions: 1.990 for 95%)
  const df = Math.max(1, clusters - 1);
  const z = tQuantile(1 - (1 - level) / 2, df);
  const battles = battlesPerModel(n, t.pairs.i, t.pairs.j, t.pairs.w);
  const rows: RatingWithInterval[] = t.pairs.models.map((model, k) => {
    const row = openRow(model, ratings[k]!, n, battles[k]!, questions?.[k]);
    if (markSparse(row, minQuestions)) return row;
    // one cluster carries no information about the spread (its score is 0 at the fit): no interval, not a zero-width one
    if (clusters < 2) return row;
    const se = Math.sqrt(Math.max(0, covariance[k * n + k]!));
    return Object.assign(row, { lo: ratings[k]! - z * se, hi: ratings[k]! + z * se });
  });
  const covOf = (e: number[]) =>
    Float64Array.from(
      { length: e.length * e.length },
      (_, x) => covariance[e[Math.floor(x / e.length)]! * n + e[x % e.length]!]!,
    );
  const fit = { method: 'sandwich' as const, rounds: draws, separatedRounds: 0, separated: [], clusters };
  return finishRatings(t, rows, est.status, covOf, battles, { ...o, draws }, fit);
}

/**
 * The question-clustered sandwich variance of each linear combination cᵀθ of any fit's parameters θ:
 * cᵀ H⁻¹ (Σ_q s_q s_qᵀ) H⁻¹ c · Q/(Q − 1) (NaN for one question), H the (penalised) information at the fit, s_q the
 * likelihood's score summed over question q's observations (the first `clusters` rows of S).
 */
export function sandwichVariances(
  H: Float64Array,
  S: Float64Array,
  clusters: number,
  contrasts: Float64Array[],
): Float64Array {
  const P = Math.round(Math.sqrt(H.length));
  const L = cholesky(H, P);
  const corr = clusters > 1 ? clusters / (clusters - 1) : NaN;
  return Float64Array.from(contrasts, (e) => {
    const hrow = choleskySolve(L, e, P);
    let v = 0;
    for (let c = 0; c < clusters; c++) {
      let u = 0;
      for (let p = 0; p < P; p++) u += hrow[p]! * S[c * P + p]!;
      v += u * u;
    }
    return v * corr;
  });
}
