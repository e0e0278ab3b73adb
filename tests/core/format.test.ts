// Thousands separators without Intl: the same text as ICU's en-US formatting (the reference here), and counts
// and costs never reach Number.prototype.toLocaleString (its first use loads ICU: 20-30 ms of a Worker's request).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { count, grouped, usd } from '../../src/core/format.ts';

describe('grouped', () => {
  it("writes whole numbers as toLocaleString('en-US') does", () => {
    const xs = [
      0,
      -0,
      1,
      -1,
      12,
      999,
      1000,
      -1000,
      1234,
      12345,
      123456,
      1234567,
      -987654321,
      2 ** 53,
      -(2 ** 53),
    ];
    // and 2,000 more of every length up to 21 digits (a fixed linear congruential sequence)
    let s = 12345;
    for (let i = 0; i < 2000; i++) {
      s = (s * 1103515245 + 12345) % 2 ** 31;
      xs.push(Math.round((s / 2 ** 31 - 0.5) * 10 ** (i % 22)));
    }
    for (const x of [...xs, 1e21, 1.5, Infinity, -Infinity, NaN])
      expect(grouped(x), String(x)).toBe(x.toLocaleString('en-US'));
  });
});

describe('count and usd', () => {
  afterEach(() => vi.restoreAllMocks());
  it('never ask Intl (Number.prototype.toLocaleString)', () => {
    const spy = vi.spyOn(Number.prototype, 'toLocaleString');
    expect(count(1234567.4)).toBe('1,234,567');
    expect(count(-999.6)).toBe('-1,000');
    expect(usd(1234.5)).toBe('$1,234.5000');
    expect(usd(-0.0123)).toBe('-$0.0123');
    expect(spy).not.toHaveBeenCalled();
  });
});
