// Length awareness: does the judge prefer the longer answer, and what is a model's win rate once the
// length difference is accounted for?
import {
  clusterBootstrap,
  columnIntervals,
  DEFAULT_LEVEL,
  DEFAULT_ROUNDS,
  type BootstrapOptions,
} from './bootstrap.ts';
import { fitBradleyTerry } from '../ratings.ts';
import { battleTable } from './battle-table.ts';
import {
  clusteredSeBeta,
  deltaSd,
  fitLengthModel,
  LAMBDA,
  lcWinRates,
  questionDifficulty,
  type LengthObs,
} from './length-model.ts';
import type { Outcome } from '../types.ts';
import { scoreOf } from '../outcomes.ts';
import { intervalsWithheld, type IntervalsWithheld } from './rating-rows.ts';

export interface LengthMatch {
  model1: string;
  model2: string;
  /** lengths (characters) of the two answers to the judged turn */
  len1: number;
  len2: number;
  outcome: Outcome;
}

export interface LongerShare {
  /** decisive outcomes whose answers differ in length */
  decisive: number;
  toLonger: number;
  share: number | null;
  /** decisive outcomes between answers of equal length (left out of the share) */
  equalLength: number;
}

/** The share of decisive verdicts that went to the longer answer. */
export function longerShare(matches: Iterable<LengthMatch>): LongerShare {
  let decisive = 0;
  let toLonger = 0;
  let equalLength = 0;
  for (const m of matches) {
    if (m.outcome !== 'model_1' && m.outcome !== 'model_2') continue;
    if (m.len1 === m.len2) {
      equalLength++;
      continue;
    }
    decisive++;
    if ((m.outcome === 'model_1') === m.len1 > m.len2) toLonger++;
  }
  return { decisive, toLonger, share: decisive ? toLonger / decisive : null, equalLength };
}

export interface LengthControlledRow {
  model: string;
  /** matches with an outcome (errors left out) */
  n: number;
  /** raw win rate, ties half */
  winRate: number;
  /** length-controlled win rate (the joint model's prediction at zero length difference) and its interval;
   * null when the length effect is not estimable */
  lcWinRate: number | null;
  lo: number | null;
  hi: number | null;
  /** mean length difference to the opponent (characters) */
  meanLengthDiff: number;
}

export interface LengthEffect {
  /** β: log-odds of winning per unit of tanh(Δ / σ) */
  coefficient: number;
  /** its standard error, clustered by question (matches without a question are their own clusters) */
  se: number;
  /** the standard error from the penalised observed information alone (matches assumed independent) */
  seIndependent: number;
  /** percentile interval of β with questions resampled; null on too few questions (see intervalsWithheld) */
  lo: number | null;
  hi: number | null;
  unit: string;
  /** σ: the standard deviation of the length differences (characters) */
  sigma: number;
  /** the slope at equal lengths, in log-odds per 1,000 characters (β / σ × 1000) */
  perThousandChars: number;
  /** what it rests on: matches with an outcome, the decisive ones, and the questions those are on */
  support: LengthSupport;
}

export interface LengthSupport {
  matches: number;
  decisive: number;
  questions: number;
}

/** Why the length effect cannot be estimated from these matches (no model is fitted then). */
export interface LengthNotEstimable extends LengthSupport {
  reason: string;
}

export interface LengthControlled {
  effect: LengthEffect | null;
  /** set (and `effect` null, the rows' length-controlled rates null) when the effect cannot be estimated */
  notEstimable: LengthNotEstimable | null;
  models: LengthControlledRow[];
  /** what length is: characters of the judged turn's answer */
  measure: string;
  level: number;
  rounds: number;
  /** bootstrap rounds whose fit failed to converge or gave NaN (counted, left out) */
  failedRounds: number;
  /** set when the matches rest on fewer than MIN_QUESTIONS_FOR_INTERVALS questions: no interval, no round run */
  intervalsWithheld?: IntervalsWithheld;
}

const finite = (x: number) => (Number.isFinite(x) ? x : null);

/**
 * The length-controlled win rates from one joint model of all matches (stats/length-model.ts), with percentile
 * intervals from resampling questions (`questionId`; without it, matches are resampled one by one).
 */
export function lengthControlledWinRates(
  matches: Iterable<LengthMatch & { questionId?: number }>,
  o: BootstrapOptions = {},
): LengthControlled {
  const level = o.level ?? DEFAULT_LEVEL;
  const rounds = o.rounds ?? DEFAULT_ROUNDS;
  const models = new Map<string, number>();
  const questions = new Map<number | string, number>();
  const id = <K>(m: Map<K, number>, k: K) => {
    let v = m.get(k);
    if (v === undefined) m.set(k, (v = m.size));
    return v;
  };
  const obs: LengthObs[] = [];
  let k = 0;
  let byQuestion = true;
  for (const m of matches) {
    k++;
    if (m.questionId === undefined) byQuestion = false;
    if (m.outcome === 'error') continue;
    obs.push({
      i: id(models, m.model1),
      j: id(models, m.model2),
      q: id(questions, m.questionId ?? `#${k}`),
      delta: m.len1 - m.len2,
      y: scoreOf(m.outcome),
    });
  }
  const names = [...models.keys()];
  const M = names.length;
  const raw = names.map(() => ({ s: 0, n: 0, d: 0 }));
  for (const ob of obs) {
    raw[ob.i]!.s += ob.y;
    raw[ob.i]!.n++;
    raw[ob.i]!.d += ob.delta;
    raw[ob.j]!.s += 1 - ob.y;
    raw[ob.j]!.n++;
    raw[ob.j]!.d -= ob.delta;
  }
  const measure = "characters of the judged turn's answer";
  if (M < 2 || !obs.length)
    return { effect: null, notEstimable: null, models: [], measure, level, rounds, failedRounds: 0 };
  // each model's row: its raw figures, and the length-controlled rate with its interval (null when not estimable)
  const rowsOf = (lc: (m: number) => Pick<LengthControlledRow, 'lcWinRate' | 'lo' | 'hi'>) =>
    names
      .map((model, m) => ({
        model,
        n: raw[m]!.n,
        winRate: raw[m]!.s / raw[m]!.n,
        ...lc(m),
        meanLengthDiff: raw[m]!.d / raw[m]!.n,
      }))
      .sort(
        (a, b) => (b.lcWinRate ?? b.winRate) - (a.lcWinRate ?? a.winRate) || (a.model < b.model ? -1 : 1),
      );
  const notEstimable = whyNotEstimable(obs);
  if (notEstimable) {
    const models = rowsOf(() => ({ lcWinRate: null, lo: null, hi: null }));
    return { effect: null, notEstimable, models, measure, level, rounds, failedRounds: 0 };
  }
  const c = battleTable(
    obs.map((ob) => ({ a: names[ob.i]!, b: names[ob.j]!, score: ob.y as 0 | 0.5 | 1 })),
  ).pairs;
  const bt = fitBradleyTerry(c);
  const plain = names.map((n) => bt[c.models.indexOf(n)]!);
  const sigma = deltaSd(obs);
  const gamma = questionDifficulty(obs, questions.size, plain);
  const lambda = (LAMBDA * obs.length) / M;
  const fit = fitLengthModel(obs, M, { sigma, gamma, lambda });
  const lc = lcWinRates(obs, M, fit);
  // question bootstrap: every match of a drawn question counts as often as the question is drawn; none on
  // too few questions, where its interval would not hold
  const withheld = byQuestion ? intervalsWithheld(questions.size) : undefined;
  const perObs = new Float64Array(obs.length);
  let failedRounds = 0;
  const samples = withheld
    ? []
    : clusterBootstrap(
        questions.size,
        (counts) => {
          obs.forEach((ob, n) => (perObs[n] = counts[ob.q]!));
          const f = fitLengthModel(obs, M, { sigma, gamma, lambda, weights: perObs, init: fit, tol: 1e-8 });
          const r = lcWinRates(obs, M, f, perObs);
          if (!f.converged || !Number.isFinite(f.beta)) {
            failedRounds++;
            return new Float64Array(M + 1).fill(NaN);
          }
          return [...r, f.beta];
        },
        { ...o, rounds },
      );
  const iv = columnIntervals(samples, M + 1, level);
  const b = iv[M]!;
  const effect: LengthEffect = {
    coefficient: fit.beta,
    se: clusteredSeBeta(obs, M, fit),
    seIndependent: fit.seBeta,
    lo: finite(b.lo),
    hi: finite(b.hi),
    unit: `log-odds of winning per unit of tanh(length difference / ${sigma.toFixed(0)} characters)`,
    sigma,
    perThousandChars: (fit.beta / sigma) * 1000,
    support: lengthSupport(obs),
  };
  return {
    effect,
    notEstimable: null,
    models: rowsOf((m) => ({ lcWinRate: lc[m]!, lo: finite(iv[m]!.lo), hi: finite(iv[m]!.hi) })),
    measure,
    level,
    rounds: withheld ? 0 : rounds,
    failedRounds,
    ...(withheld ? { intervalsWithheld: withheld } : {}),
  };
}

function lengthSupport(obs: LengthObs[]): LengthSupport {
  const decisive = obs.filter((ob) => ob.y !== 0.5);
  return {
    matches: obs.length,
    decisive: decisive.length,
    questions: new Set(decisive.map((ob) => ob.q)).size,
  };
}

/** Why β cannot be estimated (ties tell nothing of length; its SE is clustered by question), or null. */
function whyNotEstimable(obs: LengthObs[]): LengthNotEstimable | null {
  const decisive = obs.filter((ob) => ob.y !== 0.5);
  const counts = lengthSupport(obs);
  if (!decisive.length)
    return { reason: `no decisive outcomes: all ${obs.length} matches are ties`, ...counts };
  if (counts.questions < 2)
    return {
      reason: `too little data: ${decisive.length} decisive outcome(s) on 1 question; the effect needs decisive outcomes on at least 2 questions`,
      ...counts,
    };
  if (decisive.every((ob) => ob.delta === decisive[0]!.delta))
    return { reason: 'no length differences among the decisive outcomes', ...counts };
  return null;
}
