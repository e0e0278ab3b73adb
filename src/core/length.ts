// Length awareness: does the judge prefer the longer answer, and what is a model's win rate once the
// length difference is accounted for?
import type { Outcome } from './types.ts';

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

/**
 * Logistic regression of y (1 win, 0.5 tie, 0 loss; fractional responses are fine for the quasi-
 * likelihood) on one covariate x: P(y) = sigmoid(b0 + b1 x), by Newton's method. A small ridge keeps
 * separable data (a model that always wins) finite.
 */
export function logistic1(x: ArrayLike<number>, y: ArrayLike<number>, ridge = 1e-6): { b0: number; b1: number } {
  let b0 = 0;
  let b1 = 0;
  for (let iter = 0; iter < 100; iter++) {
    let g0 = -ridge * b0;
    let g1 = -ridge * b1;
    let h00 = ridge;
    let h01 = 0;
    let h11 = ridge;
    for (let k = 0; k < x.length; k++) {
      const p = 1 / (1 + Math.exp(-(b0 + b1 * x[k]!)));
      const r = y[k]! - p;
      const w = p * (1 - p);
      g0 += r;
      g1 += r * x[k]!;
      h00 += w;
      h01 += w * x[k]!;
      h11 += w * x[k]! * x[k]!;
    }
    const det = h00 * h11 - h01 * h01;
    if (!(det > 0)) break;
    let d0 = (h11 * g0 - h01 * g1) / det;
    let d1 = (h00 * g1 - h01 * g0) / det;
    const big = Math.max(Math.abs(d0), Math.abs(d1));
    if (big > 5) {
      d0 *= 5 / big;
      d1 *= 5 / big;
    }
    b0 += d0;
    b1 += d1;
    if (big < 1e-10) break;
  }
  return { b0, b1 };
}

export interface LengthControlledRow {
  model: string;
  /** matches with an outcome (errors left out) */
  n: number;
  /** raw win rate, ties half */
  winRate: number;
  /** predicted win rate at zero length difference */
  lcWinRate: number;
  /** change in log-odds of winning per `unit` characters longer than the opponent */
  slope: number;
  /** mean length difference to the opponent (characters) */
  meanLengthDiff: number;
}

/**
 * Per model, over all its matches: the raw win rate and a length-controlled one, from a logistic model
 * with the length difference (this answer minus the opponent's, in `unit` characters) as covariate,
 * reported at zero difference.
 */
export function lengthControlledWinRates(matches: Iterable<LengthMatch>, unit = 1000): LengthControlledRow[] {
  const per = new Map<string, { x: number[]; y: number[] }>();
  const push = (m: string, x: number, y: number) => {
    let e = per.get(m);
    if (!e) per.set(m, (e = { x: [], y: [] }));
    e.x.push(x);
    e.y.push(y);
  };
  for (const m of matches) {
    if (m.outcome === 'error') continue;
    const y = m.outcome === 'model_1' ? 1 : m.outcome === 'model_2' ? 0 : 0.5;
    const d = (m.len1 - m.len2) / unit;
    push(m.model1, d, y);
    push(m.model2, -d, 1 - y);
  }
  const rows: LengthControlledRow[] = [];
  for (const [model, { x, y }] of per) {
    const { b0, b1 } = logistic1(x, y);
    rows.push({
      model,
      n: y.length,
      winRate: y.reduce((a, b) => a + b, 0) / y.length,
      lcWinRate: 1 / (1 + Math.exp(-b0)),
      slope: b1,
      meanLengthDiff: (unit * x.reduce((a, b) => a + b, 0)) / x.length,
    });
  }
  return rows.sort((a, b) => b.lcWinRate - a.lcWinRate || (a.model < b.model ? -1 : 1));
}
