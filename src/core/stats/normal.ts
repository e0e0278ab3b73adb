// The normal and Student's t pieces the interval methods share: quantiles and correlated draws. Pure.
import { normal, seededRng } from './random.ts';
import { cholesky } from '../linalg.ts';

/**
 * Draws from N(mean, cov) (positive semi-definite), or the multivariate t with `df` degrees of freedom, each
 * handed to `each` in one array that the next draw overwrites (no array kept per draw).
 */
export function normalDraws(
  mean: ArrayLike<number>,
  cov: Float64Array,
  draws: number,
  seed: number,
  df: number | undefined,
  each: (row: Float64Array, draw: number) => void,
): void {
  const n = mean.length;
  const L = cholesky(cov, n, true);
  const rng = seededRng(seed);
  const e = new Float64Array(n);
  const row = new Float64Array(n);
  for (let b = 0; b < draws; b++) {
    for (let k = 0; k < n; k++) e[k] = normal(rng);
    if (df !== undefined && Number.isFinite(df)) {
      const chi = 2 * gamma(rng, df / 2); // χ²_df
      const f = Math.sqrt(df / chi);
      for (let k = 0; k < n; k++) e[k]! *= f;
    }
    for (let a = 0; a < n; a++) {
      let s = mean[a]!;
      for (let k = 0; k <= a; k++) s += L[a * n + k]! * e[k]!;
      row[a] = s;
    }
    each(row, b);
  }
}

/** Gamma(shape, 1) by Marsaglia and Tsang's squeeze method (shape < 1 boosted by U^(1/shape)). */
function gamma(rng: () => number, shape: number): number {
  if (shape < 1) {
    let u = 0;
    while (u === 0) u = rng();
    return gamma(rng, shape + 1) * u ** (1 / shape);
  }
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rng();
    if (u < 1 - 0.0331 * x ** 4) return d * v;
    if (u > 0 && Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** Student's t quantile by the Cornish–Fisher expansion in 1/df (error < 1e-4 for df ≥ 10 at 95%; exact as df → ∞). */
export function tQuantile(p: number, df: number): number {
  const z = normalQuantile(p);
  if (!Number.isFinite(df)) return z;
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  const z9 = z ** 9;
  return (
    z +
    (z3 + z) / (4 * df) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3) +
    (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * df ** 4)
  );
}

/** The standard normal quantile (Acklam's rational approximation: relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) return p === 0 ? -Infinity : p === 1 ? Infinity : NaN;
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lowP = 0.02425;
  // the upper tail mirrors the lower one
  if (p > 1 - lowP) return -normalQuantile(1 - p);
  if (p < lowP) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
    );
  }
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}
