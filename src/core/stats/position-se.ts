// The standard error of the position term of Bradley–Terry (stats/bt-variants.ts), clustered by question: the games
// of one question share its difficulty and the judge's reading of it, so they are not independent. The sandwich of
// (β_1 .. β_{n−1}, h) at the fit, as for the length model's β and the ratings (stats/sandwich.ts). Pure.
import type { MatchGame } from '../types.ts';
import { scoreOf } from '../outcomes.ts';
import type { PositionFit } from './bt-variants.ts';
import { solveSpd } from '../linalg.ts';
import { sandwichVariances } from './sandwich.ts';

const ALPHA = Math.log(10) / 400;

export interface PositionSe {
  /** the position term's standard error in rating points, clustered by question */
  se: number;
  /** the same from the information alone (every game independent) */
  seIndependent: number;
  /** questions the games are on (the clusters) */
  questions: number;
}

/** The clustered standard error of `fit.position` over the games it was fitted on (error games left out). */
export function positionSe(games: readonly MatchGame[], fit: PositionFit): PositionSe {
  const n = fit.models.length;
  const P = n; // β_1 .. β_{n−1}, then h
  const idx = new Map(fit.models.map((m, k) => [m, k]));
  const h = fit.position * ALPHA;
  const H = new Float64Array(P * P);
  const scores = new Map<number, Float64Array>();
  const v: [number, number][] = [];
  for (const g of games) {
    if (g.verdict === 'error') continue;
    const [first, second] = g.order === 'AB' ? [g.model1, g.model2] : [g.model2, g.model1];
    const f = idx.get(first)!;
    const s = idx.get(second)!;
    const s1 = scoreOf(g.verdict);
    const y = g.order === 'AB' ? s1 : 1 - s1;
    const z = (fit.ratings[f]! - fit.ratings[s]!) * ALPHA + h;
    const p = 1 / (1 + Math.exp(-z));
    // the game's design row: +1 for the first-shown model, −1 for the second (model 0 pinned), +1 for h
    v.length = 0;
    if (f > 0) v.push([f - 1, 1]);
    if (s > 0) v.push([s - 1, -1]);
    v.push([P - 1, 1]);
    let q = scores.get(g.questionId);
    if (!q) scores.set(g.questionId, (q = new Float64Array(P)));
    for (const [a, x] of v) {
      q[a]! += (y - p) * x;
      for (const [b, w] of v) H[a * P + b]! += p * (1 - p) * x * w;
    }
  }
  const Q = scores.size;
  const S = new Float64Array(Q * P);
  [...scores.values()].forEach((q, c) => S.set(q, c * P));
  const e = new Float64Array(P);
  e[P - 1] = 1;
  return {
    se: Math.sqrt(sandwichVariances(H, S, Q, [e])[0]!) / ALPHA,
    seIndependent: Math.sqrt(solveSpd(H, e, P)[P - 1]!) / ALPHA,
    questions: Q,
  };
}
