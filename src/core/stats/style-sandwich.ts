// Sandwich intervals for style control: every interval from the question-clustered sandwich of one fit
// (ratings ± t(Q − 1) · se, as `arena intervals --method sandwich` does for plain Bradley–Terry), no bootstrap
// round. At a million battles this is one fit and one small solve per model instead of 1,000 refits.
import { tQuantile } from './normal.ts';
import { INIT, SCALE } from '../ratings.ts';
import type { StyleFitScores } from './style-fit.ts';
import { sandwichVariances } from './sandwich.ts';

interface Bounds {
  lo: number;
  hi: number;
}

/** A fit with what its sandwich needs, and the shift its ratings are shown with. */
interface ShownFit extends StyleFitScores {
  shift: number;
}

/**
 * Intervals in the layout of the bootstrap's first columns: n controlled ratings, k coefficients (the plain ratings'
 * come from sandwich.ts); and the coefficients' standard errors from the same sandwich (styleSandwichSe's).
 * A rating is shown centred on the `anchor` models' mean, so its variance is that of θ_m − mean_anchor θ.
 */
export function styleSandwichIntervals(
  fit: ShownFit,
  shape: { models: number; features: number; clusters: number },
  anchor: boolean[],
  level: number,
): { intervals: Bounds[]; se: Float64Array } {
  const { models: n, features: k, clusters: C } = shape;
  const t = tQuantile(1 - (1 - level) / 2, C - 1);
  const anchored = anchor.filter(Boolean).length;
  const centred = (P: number) =>
    Array.from({ length: n }, (_, m) => {
      const c = new Float64Array(P);
      for (let a = 0; a < n; a++) if (anchor[a]) c[a] = -1 / anchored;
      c[m]! += 1;
      return c;
    });
  const unit = (f: number) => {
    const c = new Float64Array(n + k);
    c[n + f] = 1;
    return c;
  };
  const v = sandwichVariances(fit.H, fit.S, C, [
    ...centred(n + k),
    ...Array.from({ length: k }, (_, f) => unit(f)),
  ]);
  const rating = (theta: Float64Array, shift: number, m: number, variance: number) => {
    const r = INIT + SCALE * (theta[m]! - shift);
    const h = t * SCALE * Math.sqrt(variance);
    return { lo: r - h, hi: r + h };
  };
  const intervals = [
    ...Array.from({ length: n }, (_, m) => rating(fit.theta, fit.shift, m, v[m]!)),
    ...Array.from({ length: k }, (_, f) => {
      const h = t * Math.sqrt(v[n + f]!);
      return { lo: fit.theta[n + f]! - h, hi: fit.theta[n + f]! + h };
    }),
  ];
  return { intervals, se: Float64Array.from({ length: k }, (_, f) => Math.sqrt(v[n + f]!)) };
}
