// The exact (Clopper–Pearson) interval of a proportion, for x successes of n (x may be fractional: a tie counts
// half). It never collapses to a point, at 0 and 1 included. Pure.

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9: about 15 digits). */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0]!;
  const t = x + 7.5;
  for (let k = 1; k < 9; k++) a += c[k]! / (x + k);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The continued fraction of the incomplete beta (modified Lentz). */
function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return h;
}

/** The regularised incomplete beta I_x(a, b), the Beta(a, b) distribution function at x. */
export function betaCdf(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2)
    ? (front * betaFraction(a, b, x)) / a
    : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** The p-quantile of Beta(a, b), by bisection (to 1e-12). */
function betaQuantile(p: number, a: number, b: number): number {
  let lo = 0;
  let hi = 1;
  for (let k = 0; k < 60; k++) {
    const mid = (lo + hi) / 2;
    if (betaCdf(mid, a, b) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * The two-sided Clopper–Pearson interval at `level` for `x` successes of `n` (0 ≤ x ≤ n): the Beta quantiles
 * Beta(α/2; x, n − x + 1) and Beta(1 − α/2; x + 1, n − x), with 0 and 1 where x is 0 or n (one-sided there).
 */
export function clopperPearson(x: number, n: number, level = 0.95): { lo: number; hi: number } {
  const alpha = 1 - level;
  return {
    lo: x <= 0 ? 0 : betaQuantile(alpha / 2, x, n - x + 1),
    hi: x >= n ? 1 : betaQuantile(1 - alpha / 2, x + 1, n - x),
  };
}

/**
 * The exact interval of a mean of scores within `range` when every score is the same (a bootstrap over them has no
 * spread and would show a point): Clopper–Pearson of their sum rescaled to [0, 1], mapped back; else undefined.
 */
export function exactWhenAlike(
  values: readonly number[],
  range: readonly [number, number],
  level = 0.95,
): { lo: number; hi: number } | undefined {
  const n = values.length;
  if (!n || values.some((v) => v !== values[0])) return undefined;
  const [a, b] = range;
  const x = Math.min(n, Math.max(0, (n * (values[0]! - a)) / (b - a)));
  const e = clopperPearson(x, n, level);
  return { lo: a + (b - a) * e.lo, hi: a + (b - a) * e.hi };
}
