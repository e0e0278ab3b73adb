// Bradley–Terry ratings with bootstrap percentile intervals: every round resamples questions or games,
// refits (warm-started from the full fit) and keeps separated models apart from the numbers.
import { multinomial, seededRng } from './random.ts';
import { bradleyTerryFactor, fitBradleyTerry, INIT, type CollapsedBattles } from '../ratings.ts';
import { estimability, withPrior } from './separation.ts';
import { battlesPerModel, sampleCovariance, type PreliminaryRule } from './rank-intervals.ts';
import { columnIntervals, DEFAULT_ROUNDS, drawClusterCounts, type BootstrapOptions } from './bootstrap.ts';
import { questionsPerModel, resamplePairs, tableRecords, type BattleTable } from './battle-table.ts';
import {
  fitEstimable,
  ratingValue,
  recentre,
  restrict,
  separationNote,
  type EstimableFit,
} from './estimable-fit.ts';
import {
  finishRatings,
  intervalDefaults,
  markSparse,
  openRow,
  type BootstrapRatings,
  type RatingWithInterval,
  type ResampleUnit,
} from './rating-rows.ts';

/**
 * Bradley–Terry with bootstrap percentile intervals. `question`: every round draws the table's clusters with
 * replacement (all battles of a question move together); `game`: the battles themselves (multinomially, as
 * FastChat's compute_bootstrap_bt). Separated models get `rating: null` and a note; a model seen on fewer than
 * `minQuestions` questions gets no interval. `prior`: tie pseudo-games per pair that met (0: none).
 */
export function bootstrapBradleyTerry(
  t: BattleTable,
  o: BootstrapOptions &
    PreliminaryRule & {
      unit?: ResampleUnit;
      prior?: number;
      minQuestions?: number;
      /** below this many questions no interval or rank range (default MIN_QUESTIONS_FOR_INTERVALS) */
      minQuestionsForIntervals?: number;
    } = {},
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
  const clusters = unit === 'question' ? t.clusters.length : t.battles;
  const covOf = (est: number[]) => {
    const cols = samples.map((row) => Float64Array.from(est, (k) => row[k]!));
    return sampleCovariance(cols, est.length, clusters);
  };
  return finishRatings(t, rows, fit.status, covOf, battles, o, {
    rounds,
    separatedRounds: stats.separatedRounds,
    separated: t.pairs.models.filter((_, k) => fit.status[k] !== 'ok'),
    clusters,
  });
}

/**
 * The refitted ratings of every bootstrap round (a row per round, columns in t.pairs.models order): a model
 * separated in a round is ±Infinity, never a number the iteration limit reached; one with no game in it, or not
 * estimable on the full data, NaN. Rounds are centred on the full fit over the models estimable in the round.
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
    if (o.unit === 'question') {
      if (!nc)
        throw new Error('[bootstrap] question-level resampling needs battles tagged with their question');
      resamplePairs(t, drawClusterCounts(rng, nc, counts), round);
    } else {
      round.w.fill(0);
      round.s.fill(0);
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
    const est = estimability(rc, okFull);
    const clean = est.status.every((st, k) => st === 'ok' || !okFull[k]);
    let r: Float64Array;
    const centre = o.anchor && !o.anchor.every(Boolean) ? o.anchor : undefined;
    if (clean) {
      // tol 1e-6 in natural-log units is 4e-4 rating points: far below any interval's Monte Carlo noise
      r = fitBradleyTerry(rc, undefined, { init, factor, tol: 1e-6 });
      if (!allOk || centre) recentre(r, est.status, (k) => fit.ratings[k]!, centre);
    } else {
      r = fitBradleyTerry(restrict(rc, est.status), undefined, { init, tol: 1e-6 });
      recentre(r, est.status, (k) => fit.ratings[k]!, centre);
    }
    let sep = false;
    for (let k = 0; k < nm; k++) {
      const st = okFull[k] ? est.status[k]! : 'missing';
      r[k] = ratingValue(st, r[k]!);
      if (!okFull[k] || !o.stats) continue;
      if (st === 'above' || st === 'below') ((o.stats.separated[k]! += 1), (sep = true));
      else if (st === 'missing') o.stats.missing[k]! += 1;
    }
    if (sep && o.stats) o.stats.separatedRounds++;
    out.push(r);
  }
  return out;
}
