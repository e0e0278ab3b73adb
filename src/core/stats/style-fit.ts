// The numerical core of style control (style.ts): the penalised contextual Bradley–Terry fit by Newton's method and
// its question-clustered sandwich. Rows are battles; each pass over them is the cost at scale, so a Newton step
// evaluates the loss, gradient and Hessian of its candidate point in one pass (the loss decides whether the step is
// taken; the gradient and Hessian are then the next step's). Pure.

const ALPHA = Math.LN10;

/** What the fit reads: per battle, the two models' columns, the outcome, the features, the question. */
export interface FitDesign {
  models: readonly string[];
  features: readonly string[];
  a: Int32Array;
  b: Int32Array;
  y: Float64Array;
  /** row-major battles × features */
  x: Float64Array;
  clusters: readonly (string | number)[];
  cluster: Int32Array;
}

/**
 * The penalised negative log-likelihood at theta; with g and H given, also its gradient and Hessian (filled in).
 * Weights (one per battle) rescale the likelihood terms, never the penalty; a battle of weight 0 is skipped.
 */
function evaluate(
  d: FitDesign,
  theta: Float64Array,
  reg: number,
  weights: Float64Array | undefined,
  g?: Float64Array,
  H?: Float64Array,
): number {
  const n = d.models.length;
  const k = d.features.length;
  const P = n + k;
  const { a: A, b: B, y: Y, x: X } = d;
  let loss = 0;
  for (let p = 0; p < theta.length; p++) loss += (reg / 2) * theta[p]! ** 2;
  if (g && H) {
    for (let p = 0; p < P; p++) g[p] = reg * theta[p]!;
    H.fill(0);
    for (let p = 0; p < P; p++) H[p * P + p] = reg;
  }
  for (let r = 0; r < Y.length; r++) {
    const w = weights ? weights[r]! : 1;
    if (!w) continue;
    const a = A[r]!;
    const b = B[r]!;
    let eta = ALPHA * (theta[a]! - theta[b]!);
    for (let f = 0; f < k; f++) eta += X[r * k + f]! * theta[n + f]!;
    const y = Y[r]!;
    const em = Math.exp(-eta);
    // −[y log σ(η) + (1 − y) log(1 − σ(η))] = log(1 + e^η) − y η, computed without overflow
    loss += w * ((eta > 0 ? eta + Math.log1p(em) : Math.log1p(Math.exp(eta))) - y * eta);
    if (!g || !H) continue;
    const pr = 1 / (1 + em);
    const e = w * (y - pr);
    const h = w * pr * (1 - pr);
    // gradient of the loss: −e · row, row = (α e_a − α e_b, z); Hessian: h · row rowᵀ
    g[a]! -= ALPHA * e;
    g[b]! += ALPHA * e;
    const aa = ALPHA * ALPHA * h;
    H[a * P + a]! += aa;
    H[b * P + b]! += aa;
    H[a * P + b]! -= aa;
    H[b * P + a]! -= aa;
    for (let f = 0; f < k; f++) {
      const z = X[r * k + f]!;
      g[n + f]! -= e * z;
      const af = ALPHA * h * z;
      H[a * P + n + f]! += af;
      H[(n + f) * P + a]! += af;
      H[b * P + n + f]! -= af;
      H[(n + f) * P + b]! -= af;
      for (let f2 = 0; f2 < k; f2++) H[(n + f) * P + n + f2]! += h * z * X[r * k + f2]!;
    }
  }
  return loss;
}

/**
 * The penalised contextual Bradley–Terry fit: loss + (reg/2)·‖θ‖², θ = (ratings, feature coefficients).
 * `weights` (one per battle, e.g. its question's bootstrap multiplicity) rescale the likelihood terms, never the
 * penalty. `init` warm-starts Newton.
 */
export function fitStyle(
  d: FitDesign,
  o: { reg: number; weights?: Float64Array; init?: Float64Array; tol?: number; maxIter?: number },
): Float64Array {
  const n = d.models.length;
  const P = n + d.features.length;
  const { reg, weights } = o;
  const tol = o.tol ?? 1e-10;
  let theta = o.init ? Float64Array.from(o.init) : new Float64Array(P);
  let g = new Float64Array(P);
  let H = new Float64Array(P * P);
  let g2 = new Float64Array(P);
  let H2 = new Float64Array(P * P);
  let next = new Float64Array(P);
  let current = evaluate(d, theta, reg, weights, g, H);
  for (let iter = 0; iter < (o.maxIter ?? 100); iter++) {
    const step = solveSpd(H, g, P);
    // the likelihood is flat along "all ratings + c"; there the exact step is −mean(θ_r), and θ_r starts
    // and stays at mean 0, so drop the (rounding-only) mean of the rating step: with a tiny penalty it
    // would otherwise keep the iteration from converging
    let mean = 0;
    for (let m = 0; m < n; m++) mean += step[m]! / n;
    for (let m = 0; m < n; m++) step[m]! -= mean;
    // backtracking: a full Newton step can overshoot when a rare feature has large z-scores
    let t = 1;
    let max = 0;
    for (;;) {
      max = 0;
      for (let p = 0; p < P; p++) {
        next[p] = theta[p]! - t * step[p]!;
        max = Math.max(max, Math.abs(next[p]! - theta[p]!));
      }
      // a step that converges ends the fit: its gradient and Hessian would go unused
      const last = max < tol;
      const value = evaluate(d, next, reg, weights, last ? undefined : g2, last ? undefined : H2);
      if (value <= current + 1e-12 * Math.abs(current) || t < 1e-6) {
        current = value;
        break;
      }
      t /= 2;
    }
    [theta, next] = [next, theta];
    if (max < tol) break;
    [g, g2] = [g2, g];
    [H, H2] = [H2, H];
  }
  return theta;
}

/**
 * Question-clustered sandwich standard errors of the style coefficients at the fit `theta`:
 * H⁻¹ (Σ_q s_q s_qᵀ) H⁻¹ · Q/(Q − 1), H the penalised information (the penalty makes it invertible along
 * the ratings' common shift), s_q the likelihood's score summed over question q's battles.
 */
export function styleSandwichSe(d: FitDesign, theta: Float64Array, reg: number): Float64Array {
  const n = d.models.length;
  const k = d.features.length;
  return sandwichVariances(
    d,
    theta,
    reg,
    Array.from({ length: k }, (_, f) => {
      const e = new Float64Array(n + k);
      e[n + f] = 1;
      return e;
    }),
  ).map(Math.sqrt);
}

/**
 * The question-clustered sandwich variance of each linear combination cᵀθ of the fit (c of length models +
 * features): cᵀ H⁻¹ (Σ_q s_q s_qᵀ) H⁻¹ c · Q/(Q − 1), with H and s_q as in styleSandwichSe.
 */
export function sandwichVariances(
  d: FitDesign,
  theta: Float64Array,
  reg: number,
  contrasts: Float64Array[],
): Float64Array {
  const n = d.models.length;
  const k = d.features.length;
  const P = n + k;
  const H = new Float64Array(P * P);
  for (let p = 0; p < P; p++) H[p * P + p] = reg;
  const C = d.clusters.length;
  const S = new Float64Array(C * P);
  // a battle's row of the design is sparse: its two models' columns and the features (zeros left out)
  const idx = new Int32Array(2 + k);
  const val = new Float64Array(2 + k);
  for (let r = 0; r < d.y.length; r++) {
    const a = d.a[r]!;
    const b = d.b[r]!;
    let nz = 0;
    idx[nz] = a;
    val[nz++] = ALPHA;
    idx[nz] = b;
    val[nz++] = -ALPHA;
    let eta = ALPHA * (theta[a]! - theta[b]!);
    for (let f = 0; f < k; f++) {
      const z = d.x[r * k + f]!;
      eta += z * theta[n + f]!;
      if (!z) continue;
      idx[nz] = n + f;
      val[nz++] = z;
    }
    const pr = 1 / (1 + Math.exp(-eta));
    const e = d.y[r]! - pr;
    const h = pr * (1 - pr);
    const c = d.cluster[r]!;
    for (let i = 0; i < nz; i++) {
      const u = idx[i]!;
      S[c * P + u]! += e * val[i]!;
      for (let j = 0; j < nz; j++) H[u * P + idx[j]!]! += h * val[i]! * val[j]!;
    }
  }
  const corr = C > 1 ? C / (C - 1) : NaN;
  return Float64Array.from(contrasts, (e) => {
    const hrow = solveSpd(H, e, P);
    let v = 0;
    for (let c = 0; c < C; c++) {
      let u = 0;
      for (let p = 0; p < P; p++) u += hrow[p]! * S[c * P + p]!;
      v += u * u;
    }
    return v * corr;
  });
}

/** Solve H s = g for a symmetric positive definite H (Cholesky). */
function solveSpd(H: Float64Array, g: Float64Array, m: number): Float64Array {
  const L = new Float64Array(m * m);
  for (let i = 0; i < m; i++)
    for (let j = 0; j <= i; j++) {
      let s = H[i * m + j]!;
      for (let k = 0; k < j; k++) s -= L[i * m + k]! * L[j * m + k]!;
      L[i * m + j] = i === j ? Math.sqrt(Math.max(s, 1e-300)) : s / L[j * m + j]!;
    }
  const y = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    let s = g[i]!;
    for (let k = 0; k < i; k++) s -= L[i * m + k]! * y[k]!;
    y[i] = s / L[i * m + i]!;
  }
  const x = new Float64Array(m);
  for (let i = m - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < m; k++) s -= L[k * m + i]! * x[k]!;
    x[i] = s / L[i * m + i]!;
  }
  return x;
}
