// The dense linear algebra every fit uses: small symmetric systems (a few hundred parameters at most), row-major
// Float64Array m × m. Cholesky factorisation and solves, an inverse, a graph Laplacian's pseudo-inverse. Pure.

/**
 * The lower Cholesky factor L (row-major) of a symmetric H, reading only its lower triangle. Positive definite: a
 * pivot that rounding drives to zero or below is floored at 1e-300. `semidefinite`: a pivot below 1e-12 of the
 * largest diagonal entry gives a zero column (a centred covariance has rank m − 1).
 */
export function cholesky(H: ArrayLike<number>, m: number, semidefinite = false): Float64Array {
  const L = new Float64Array(m * m);
  let floor = 0;
  if (semidefinite) {
    floor = 1e-300;
    for (let k = 0; k < m; k++) floor = Math.max(floor, Math.abs(H[k * m + k]!));
    floor *= 1e-12;
  }
  for (let i = 0; i < m; i++) {
    const ri = i * m;
    for (let j = 0; j <= i; j++) {
      const rj = j * m;
      let sum = H[ri + j]!;
      for (let k = 0; k < j; k++) sum -= L[ri + k]! * L[rj + k]!;
      if (semidefinite) {
        if (i === j) L[ri + i] = sum > floor ? Math.sqrt(sum) : 0;
        else L[ri + j] = L[rj + j]! > 0 ? sum / L[rj + j]! : 0;
      } else if (i === j) L[ri + i] = Math.sqrt(Math.max(sum, 1e-300));
      else L[ri + j] = sum / L[rj + j]!;
    }
  }
  return L;
}

/** Solve L Lᵀ x = g (L from cholesky) into `x`; `y` is scratch. Both may be passed to reuse them. */
export function choleskySolve(
  L: Float64Array,
  g: ArrayLike<number>,
  m: number,
  x = new Float64Array(m),
  y = new Float64Array(m),
): Float64Array {
  for (let i = 0; i < m; i++) {
    let sum = g[i]!;
    const ri = i * m;
    for (let k = 0; k < i; k++) sum -= L[ri + k]! * y[k]!;
    y[i] = sum / L[ri + i]!;
  }
  for (let i = m - 1; i >= 0; i--) {
    let sum = y[i]!;
    for (let k = i + 1; k < m; k++) sum -= L[k * m + i]! * x[k]!;
    x[i] = sum / L[i * m + i]!;
  }
  return x;
}

/** Solve H x = g for a symmetric positive definite H. */
export function solveSpd(H: ArrayLike<number>, g: ArrayLike<number>, m: number): Float64Array {
  return choleskySolve(cholesky(H, m), g, m);
}

/** The inverse of A by Gauss–Jordan with partial pivoting (for matrices that need not be definite). */
export function invert(A: ArrayLike<number>, m: number): Float64Array {
  const a = Float64Array.from(A);
  const inv = new Float64Array(m * m);
  for (let d = 0; d < m; d++) inv[d * m + d] = 1;
  for (let col = 0; col < m; col++) {
    let piv = col;
    for (let r = col + 1; r < m; r++) if (Math.abs(a[r * m + col]!) > Math.abs(a[piv * m + col]!)) piv = r;
    if (piv !== col)
      for (let k = 0; k < m; k++) {
        [a[col * m + k], a[piv * m + k]] = [a[piv * m + k]!, a[col * m + k]!];
        [inv[col * m + k], inv[piv * m + k]] = [inv[piv * m + k]!, inv[col * m + k]!];
      }
    const d = a[col * m + col]!;
    for (let k = 0; k < m; k++) {
      a[col * m + k]! /= d;
      inv[col * m + k]! /= d;
    }
    for (let r = 0; r < m; r++) {
      if (r === col) continue;
      const f = a[r * m + col]!;
      if (!f) continue;
      for (let k = 0; k < m; k++) {
        a[r * m + k]! -= f * a[col * m + k]!;
        inv[r * m + k]! -= f * inv[col * m + k]!;
      }
    }
  }
  return inv;
}

/** The Moore–Penrose inverse of a connected graph's Laplacian: (L + 11ᵀ/n)⁻¹ − 11ᵀ/n. */
export function pseudoInverse(L: ArrayLike<number>, n: number): Float64Array {
  const scale = Math.max(...Array.from({ length: n }, (_, k) => L[k * n + k]!), 1e-300);
  const A = Float64Array.from(L, (x) => x / scale + 1 / n);
  const inv = invert(A, n);
  return Float64Array.from(inv, (x) => (x - 1 / n) / scale);
}

/** The product A B of two m × m matrices. */
export function multiply(A: Float64Array, B: Float64Array, m: number): Float64Array {
  const C = new Float64Array(m * m);
  for (let i = 0; i < m; i++)
    for (let k = 0; k < m; k++) {
      const a = A[i * m + k]!;
      if (!a) continue;
      for (let j = 0; j < m; j++) C[i * m + j]! += a * B[k * m + j]!;
    }
  return C;
}

/** Add w (e_a − e_b)(e_a − e_b)ᵀ to the n × n matrix L: one edge of a weighted graph Laplacian. */
export function addEdge(L: Float64Array, n: number, a: number, b: number, w: number): void {
  L[a * n + a]! += w;
  L[b * n + b]! += w;
  L[a * n + b]! -= w;
  L[b * n + a]! -= w;
}

/** The variance of x_i − x_j under the n × n covariance C (0 where rounding makes it negative). */
export function differenceVariance(C: ArrayLike<number>, n: number, i: number, j: number): number {
  return Math.max(0, C[i * n + i]! + C[j * n + j]! - 2 * C[i * n + j]!);
}
