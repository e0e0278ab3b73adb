// The one module of dense linear algebra (src/core/linalg.ts) that every fit uses.
import { describe, expect, it } from 'vitest';
import { cholesky, choleskySolve, invert, multiply, pseudoInverse, solveSpd } from '../../src/core/linalg.ts';

const close = (a: ArrayLike<number>, b: ArrayLike<number>, digits = 12) =>
  Array.from(a).forEach((x, k) => expect(x).toBeCloseTo(b[k]!, digits));

describe('linalg', () => {
  const H = Float64Array.from([4, 2, 0.6, 2, 2, 0.5, 0.6, 0.5, 3]);

  it('factorises, solves and inverts a positive definite matrix', () => {
    const L = cholesky(H, 3);
    close(multiply(L, Float64Array.from([L[0]!, L[3]!, L[6]!, 0, L[4]!, L[7]!, 0, 0, L[8]!]), 3), H);
    const x = solveSpd(H, [1, 2, 3], 3);
    close(
      Float64Array.from([0, 1, 2], (i) => H[i * 3]! * x[0]! + H[i * 3 + 1]! * x[1]! + H[i * 3 + 2]! * x[2]!),
      [1, 2, 3],
    );
    close(choleskySolve(L, [1, 2, 3], 3), x);
    close(multiply(invert(H, 3), H, 3), [1, 0, 0, 0, 1, 0, 0, 0, 1]);
  });

  it('a semi-definite factor has a zero column where the matrix has no rank; the definite one floors its pivot', () => {
    // a centred covariance: rank 2 of 3
    const C = Float64Array.from([2, -1, -1, -1, 2, -1, -1, -1, 2]);
    const L = cholesky(C, 3, true);
    expect(L[8]).toBe(0);
    close(multiply(L, Float64Array.from([L[0]!, L[3]!, L[6]!, 0, L[4]!, L[7]!, 0, 0, L[8]!]), 3), C);
    expect(cholesky(C, 3)[8]).toBeCloseTo(0, 100);
    expect(Number.isFinite(cholesky(C, 3)[8]!)).toBe(true);
  });

  it("the pseudo-inverse of a connected graph's Laplacian: P L P = P, rows summing to 0", () => {
    const Lap = Float64Array.from([2, -1, -1, -1, 1, 0, -1, 0, 1]);
    const P = pseudoInverse(Lap, 3);
    close(multiply(multiply(P, Lap, 3), P, 3), P);
    for (let i = 0; i < 3; i++) expect(P[i * 3]! + P[i * 3 + 1]! + P[i * 3 + 2]!).toBeCloseTo(0, 12);
  });
});
