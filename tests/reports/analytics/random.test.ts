import { describe, expect, it } from 'vitest';
import { binomial, logFactorial, multinomial, seededRng } from '../../../src/core/stats/random.ts';

function moments(xs: number[]) {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const v = xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1);
  return { m, v };
}

describe('seeded random numbers', () => {
  it('the same seed gives the same stream; different seeds differ; values lie in [0, 1)', () => {
    const a = seededRng(7);
    const b = seededRng(7);
    const c = seededRng(8);
    const xa = Array.from({ length: 1000 }, a);
    expect(Array.from({ length: 1000 }, b)).toEqual(xa);
    expect(Array.from({ length: 1000 }, c)).not.toEqual(xa);
    expect(xa.every((x) => x >= 0 && x < 1)).toBe(true);
    const { m, v } = moments(xa);
    expect(Math.abs(m - 0.5)).toBeLessThan(0.03);
    expect(Math.abs(v - 1 / 12)).toBeLessThan(0.01);
  });

  it('logFactorial matches the exact sum on both sides of its table', () => {
    let exact = 0;
    for (let k = 1; k <= 2000; k++) {
      exact += Math.log(k);
      if (k === 10 || k === 255 || k === 256 || k === 2000) expect(logFactorial(k)).toBeCloseTo(exact, 8);
    }
  });

  // mean n p and variance n p (1 - p): both the inversion branch and the BTRS branch
  for (const [n, p] of [
    [20, 0.1],
    [50, 0.7],
    [1000, 0.03],
    [100000, 0.4],
  ] as const) {
    it(`binomial(${n}, ${p}) has the right mean and variance`, () => {
      const rng = seededRng(n);
      const xs = Array.from({ length: 20000 }, () => binomial(rng, n, p));
      const { m, v } = moments(xs);
      const sd = Math.sqrt(n * p * (1 - p));
      expect(xs.every((x) => Number.isInteger(x) && x >= 0 && x <= n)).toBe(true);
      expect(Math.abs(m - n * p)).toBeLessThan((5 * sd) / Math.sqrt(20000));
      expect(v / (n * p * (1 - p))).toBeGreaterThan(0.95);
      expect(v / (n * p * (1 - p))).toBeLessThan(1.05);
    });
  }

  it('multinomial draws sum to n with per-cell means n p_k', () => {
    const rng = seededRng(3);
    const p = [5, 1, 0, 3, 1];
    const out = new Float64Array(p.length);
    const acc = new Float64Array(p.length);
    for (let r = 0; r < 5000; r++) {
      multinomial(rng, 1000, p, out);
      expect(out.reduce((a, b) => a + b, 0)).toBe(1000);
      out.forEach((x, k) => (acc[k]! += x));
    }
    expect(acc[2]).toBe(0);
    p.forEach((pk, k) => expect(Math.abs(acc[k]! / 5000 - (1000 * pk) / 10)).toBeLessThan(1));
  });
});
