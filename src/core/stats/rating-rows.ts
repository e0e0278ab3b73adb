// The rows of a rating table with intervals, shared by the bootstrap (rating-bootstrap.ts) and the sandwich
// (sandwich.ts): the defaults, the sparse rule, Rank (UB) and the rank bounds.
import { rankAnnotations, type PreliminaryRule } from './rank-intervals.ts';
import { DEFAULT_LEVEL, DEFAULT_SEED, ranksFromIntervals } from './bootstrap.ts';
import type { BattleTable } from './battle-table.ts';
import { comparisonGroups } from './estimable-fit.ts';
import type { Estimability } from './separation.ts';

export type ResampleUnit = 'question' | 'game';

export interface RatingWithInterval {
  model: string;
  /** null when no finite rating fits (separated: see `note`) */
  rating: number | null;
  /** null when the interval is not estimated (a sparse or separated model) or unbounded */
  lo: number | null;
  hi: number | null;
  /** 1 + the number of models whose interval lies wholly above this one's (an unknown bound is unbounded); where
   * the table has too few questions for intervals, 1 + the models rated higher (`rankFromPoint`) */
  rank: number;
  /** the rank follows the point estimates alone: the table has too few questions for intervals */
  rankFromPoint?: boolean;
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
  rankBest: number | null;
  rankWorst: number | null;
  /** the marginal rank range: consistent with simultaneous intervals of this model's own differences only
   * (Mogstad et al.); it answers "what rank is this model", the joint one above holds for all models at once.
   * Both ranges are null when the table has too few questions for intervals (MIN_QUESTIONS_FOR_INTERVALS) */
  marginalRankBest: number | null;
  marginalRankWorst: number | null;
  /** decided battles of the model */
  battles: number;
  /** fewer battles than the documented minimum, an interval wider than the documented threshold, or no interval */
  preliminary: boolean;
}

/** A model below this many distinct questions is marked sparse and gets no interval (documented in the README). */
export const MIN_QUESTIONS = 10;

/** Below this many questions (clusters) neither the question bootstrap's nor the sandwich's intervals hold. */
export const MIN_QUESTIONS_FOR_INTERVALS = 30;

/** Why a figure resting on `questions` questions (fewer than MIN_QUESTIONS_FOR_INTERVALS) has no interval. */
export function fewQuestionsForInterval(questions: number): string {
  return `${questions} question${questions === 1 ? '' : 's'} (fewer than ${MIN_QUESTIONS_FOR_INTERVALS}): too few for a question-bootstrap interval`;
}

/** What a report carries in place of its intervals on too few questions (the JSON's `intervalsWithheld`). */
export interface IntervalsWithheld {
  questions: number;
  reason: string;
}

/** `{ questions, reason }` when `questions` (> 0) is below MIN_QUESTIONS_FOR_INTERVALS; else undefined. */
export function intervalsWithheld(
  questions: number,
  minimum = MIN_QUESTIONS_FOR_INTERVALS,
): IntervalsWithheld | undefined {
  const few = tooFewQuestions('question', questions, minimum);
  return few === undefined ? undefined : { questions: few, reason: fewQuestionsForInterval(few) };
}

/** Why a table of `questions` questions shows no interval or rank range. */
export function fewQuestionsNote(questions: number): string {
  return `rated on ${questions} question${questions === 1 ? '' : 's'} (fewer than ${MIN_QUESTIONS_FOR_INTERVALS}): the question bootstrap needs about ${MIN_QUESTIONS_FOR_INTERVALS} for a 95% interval to hold, so no interval or rank range is shown`;
}

/** The table's question count when it is resampled by question and has too few for intervals; else undefined. */
export function tooFewQuestions(
  unit: ResampleUnit,
  questions: number,
  minimum = MIN_QUESTIONS_FOR_INTERVALS,
): number | undefined {
  return unit === 'question' && questions > 0 && questions < minimum ? questions : undefined;
}

/**
 * Takes the rank ranges off every row (after the ranks were annotated): they rest on the intervals. Without
 * intervals Rank (UB) would rank every model 1, so the rank follows the point estimates (`rankFromPoint`).
 */
function withholdRankRanges(rows: RatingWithInterval[], key: number[]): void {
  rows.forEach((r, k) =>
    Object.assign(r, {
      rank: 1 + key.filter((v) => v > key[k]!).length,
      rankFromPoint: true,
      rankBest: null,
      rankWorst: null,
      marginalRankBest: null,
      marginalRankWorst: null,
    }),
  );
}

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
  /** set (to the table's question count) when it has fewer than MIN_QUESTIONS_FOR_INTERVALS: no interval, no rank range */
  fewQuestions?: number;
  /** rounds in which some estimable model was separated (its rating in that round is infinite, not a number) */
  separatedRounds: number;
  /** models with no finite rating on the full data */
  separated: string[];
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
 * Rank (UB) of every row: 1 + the models whose interval lies wholly above. A model without an interval is
 * unbounded, so a sparse model's Rank (UB) is 1 + the models separated above, never 1 above them.
 */
function setRankUB(rows: RatingWithInterval[], status: readonly string[]): void {
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
 * Rank bounds and the preliminary mark (stats/rank-intervals.ts) over the models with an estimated interval
 * (`covOf(est)`: their covariance, in the order of `est`); the others span the ranks they could take (separated
 * above: first, below: last, sparse: anywhere between), and shift the estimated ones' bounds accordingly.
 */
function annotateRanks(
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
 * The table's last steps, the same for the bootstrap and the sandwich: intervals withheld on too few questions,
 * Rank (UB), the rank bounds, the rows sorted by rating, and the comparison groups when the models never all met.
 */
export function finishRatings(
  t: BattleTable,
  rows: RatingWithInterval[],
  status: Estimability[],
  covOf: (est: number[]) => Float64Array,
  battles: Float64Array,
  o: PreliminaryRule &
    Parameters<typeof intervalDefaults>[0] & { minQuestionsForIntervals?: number; draws?: number },
  fit: Pick<BootstrapRatings, 'method' | 'rounds' | 'separatedRounds' | 'separated'> & { clusters: number },
): BootstrapRatings {
  const { unit, level, seed, prior, minQuestions } = intervalDefaults(o);
  const few = tooFewQuestions(unit, t.clusters.length, o.minQuestionsForIntervals);
  // a sparse row keeps its own note; a separated one has no interval to take
  if (few !== undefined)
    for (const r of rows)
      if (r.rating !== null && !r.sparse)
        Object.assign(r, { lo: null, hi: null, note: fewQuestionsNote(few) });
  setRankUB(rows, status);
  annotateRanks(rows, covOf, status, battles, level, { ...o, seed, clusters: fit.clusters });
  // separated above ranks above all, below under all
  const key = rows.map((r, k) => r.rating ?? (status[k] === 'above' ? Infinity : -Infinity));
  if (few !== undefined) withholdRankRanges(rows, key);
  const order = rows
    .map((r, k) => ({ r, v: key[k]! }))
    .sort((a, b) => b.v - a.v || (a.r.model < b.r.model ? -1 : 1));
  const groups = comparisonGroups(t.pairs);
  const { separatedRounds, separated } = fit;
  return {
    ...(fit.method ? { method: fit.method } : {}),
    unit,
    level,
    rounds: fit.rounds,
    seed,
    rows: order.map((x) => x.r),
    ...(groups.length > 1 ? { disconnected: groups } : {}),
    ...{
      prior,
      minQuestions,
      ...(few !== undefined ? { fewQuestions: few } : {}),
      separatedRounds,
      separated,
    },
  };
}
