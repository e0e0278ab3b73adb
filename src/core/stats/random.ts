// A seeded PRNG and the few distributions the bootstraps need, so every interval is reproducible.
// Pure: no node:*, no Math.random.

/** Uniform in [0, 1). */
export type Rng = () => number;

/** xoshiro128** seeded through splitmix32: fast, 2^128 period, good enough for bootstraps. */
export function seededRng(seed: number): Rng {
  let x = seed >>> 0;
  const split = () => {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split();
  let b = split();
  let c = split();
  let d = split();
  return () => {
    const r = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return r / 4294967296;
  };
}

function rotl(v: number, k: number): number {
  return (v << k) | (v >>> (32 - k));
}

/** Integer in [0, n). */
export function randInt(rng: Rng, n: number): number {
  return Math.floor(rng() * n);
}

/** Standard normal (Box–Muller). */
export function normal(rng: Rng): number {
  let u = 0;
  while (u === 0) u = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/**
 * Binomial(n, p). Inversion when n·min(p, 1-p) < 10, otherwise Hörmann's BTRS transformed
 * rejection (the algorithm numpy uses for large means), so a draw costs O(1) at any n.
 */
export function binomial(rng: Rng, n: number, p: number): number {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  if (p > 0.5) return n - binomial(rng, n, 1 - p);
  if (n * p < 10) {
    // inversion by sequential search
    const q = 1 - p;
    const s = p / q;
    const a = (n + 1) * s;
    let r = q ** n;
    let u = rng();
    let x = 0;
    while (u > r) {
      u -= r;
      x++;
      if (x > n) return n;
      r *= a / x - s;
    }
    return x;
  }
  const spq = Math.sqrt(n * p * (1 - p));
  const b = 1.15 + 2.53 * spq;
  const a = -0.0873 + 0.0248 * b + 0.01 * p;
  const c = n * p + 0.5;
  const vr = 0.92 - 4.2 / b;
  // the constants of the slow path are computed only when a draw needs it (about one in seven)
  let alpha = 0;
  let lpq = 0;
  let m = 0;
  let h = NaN;
  for (;;) {
    const u = rng() - 0.5;
    const v = rng();
    const us = 0.5 - Math.abs(u);
    const k = Math.floor(((2 * a) / us + b) * u + c);
    if (k < 0 || k > n) continue;
    if (us >= 0.07 && v <= vr) return k;
    if (Number.isNaN(h)) {
      alpha = (2.83 + 5.1 / b) * spq;
      lpq = Math.log(p / (1 - p));
      m = Math.floor((n + 1) * p);
      h = logFactorial(m) + logFactorial(n - m);
    }
    const lv = Math.log((v * alpha) / (a / (us * us) + b));
    if (lv <= h - logFactorial(k) - logFactorial(n - k) + (k - m) * lpq) return k;
  }
}

/**
 * Multinomial(n, p) into `out` by conditional binomials. `p` need not sum to 1 (it is normalised).
 */
export function multinomial(rng: Rng, n: number, p: ArrayLike<number>, out: Float64Array | Int32Array): void {
  let total = 0;
  for (let k = 0; k < p.length; k++) total += p[k]!;
  let left = n;
  let mass = total;
  for (let k = 0; k < p.length; k++) {
    if (left === 0 || mass <= 0) {
      out[k] = 0;
      continue;
    }
    const pk = p[k]!;
    const x = k === p.length - 1 ? left : binomial(rng, left, Math.min(1, pk / mass));
    out[k] = x;
    left -= x;
    mass -= pk;
  }
}

const LOG_FACT_TABLE: number[] = (() => {
  const t = [0];
  for (let i = 1; i < 256; i++) t.push(t[i - 1]! + Math.log(i));
  return t;
})();

/** log(k!) : a table below 256, Stirling's series above. */
export function logFactorial(k: number): number {
  if (k < 256) return LOG_FACT_TABLE[k]!;
  const x = k + 1;
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + 1 / (12 * x) - 1 / (360 * x * x * x);
}
