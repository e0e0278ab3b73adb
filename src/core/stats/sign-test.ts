// The exact two-sided sign test (a binomial test of p = 1/2). Pure.
import { logFactorial } from './random.ts';

/** P(X = k) for X ~ Binomial(n, 1/2). */
function halfBinomialPmf(n: number, k: number): number {
  return Math.exp(logFactorial(n) - logFactorial(k) - logFactorial(n - k) - n * Math.LN2);
}

/** Two-sided p-value of k successes in n trials under p = 1/2 (as scipy's binomtest); null when n = 0. */
export function signTestP(k: number, n: number): number | null {
  if (!(n > 0)) return null;
  const lo = Math.min(k, n - k);
  let tail = 0;
  for (let x = 0; x <= lo; x++) tail += halfBinomialPmf(n, x);
  return Math.min(1, 2 * tail);
}
