// The exact (Clopper–Pearson) interval: closed forms at the ends, a textbook value, mirror symmetry for fractional
// counts. Its use in checkpoint reports: tests/ops/checkpoints-small.test.ts (tests/reference/checkpoint_exact.py).
import { describe, expect, it } from 'vitest';
import { betaCdf, clopperPearson, exactWhenAlike } from '../../../src/core/stats/exact.ts';

describe('the exact interval of a proportion', () => {
  it('is one-sided at 0 and n: p^n = 0.025 there, so 5 wins in 5 is [0.478, 1], never a point', () => {
    for (const n of [1, 5, 30, 80]) {
      expect(clopperPearson(n, n)).toEqual({ lo: expect.closeTo(0.025 ** (1 / n), 10), hi: 1 });
      expect(clopperPearson(0, n)).toEqual({ lo: 0, hi: expect.closeTo(1 - 0.025 ** (1 / n), 10) });
    }
    expect(clopperPearson(5, 5).lo).toBeCloseTo(0.4782, 4);
  });

  it('matches the textbook value for 3 of 10 and mirrors for fractional counts', () => {
    const i = clopperPearson(3, 10);
    expect(i.lo).toBeCloseTo(0.0667395, 6);
    expect(i.hi).toBeCloseTo(0.6524529, 6);
    for (const x of [0.5, 2.5, 7.25]) {
      const a = clopperPearson(x, 10);
      const b = clopperPearson(10 - x, 10);
      expect(a.lo).toBeCloseTo(1 - b.hi, 10);
      expect(a.hi).toBeCloseTo(1 - b.lo, 10);
    }
    // the Beta distribution function at a few known points: Beta(1, 1) is uniform, Beta(2, 1) is x²
    expect(betaCdf(0.3, 1, 1)).toBeCloseTo(0.3, 12);
    expect(betaCdf(0.3, 2, 1)).toBeCloseTo(0.09, 12);
  });

  it('applies only where every value is the same, rescaled from the range', () => {
    expect(exactWhenAlike([1, 0.5, 1], [0, 1])).toBeUndefined();
    expect(exactWhenAlike([], [0, 1])).toBeUndefined();
    const d = exactWhenAlike(Array(30).fill(1), [-1, 1])!;
    expect(d.hi).toBe(1);
    expect(d.lo).toBeCloseTo(2 * 0.025 ** (1 / 30) - 1, 10);
  });
});
