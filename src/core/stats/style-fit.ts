// The numerical core of style control (style.ts): the penalised contextual Bradley–Terry fit by Newton's method, with
// what its question-clustered sandwich needs. A pass over the battles is the cost at scale, so one pass gives a
// candidate point's loss, gradient and Hessian (in compact blocks, spread once at the end), and the pass at the
// converged point also sums each question's score for the sandwich. Pure.

import { dampedNewton, type Objective } from '../newton.ts';

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

/** What one pass fills besides the loss: gradient, Hessian, and (when given) each question's summed score. */
interface Derivatives {
  g: Float64Array;
  H: Float64Array;
  /** questions × parameters: the likelihood's score (not the penalty's) summed over each question's battles */
  S?: Float64Array;
}

/** The compact Hessian blocks of one pass (reused between passes). */
interface Blocks {
  /** models × models: Σ h over the battles of each ordered pair */
  pair: Float64Array;
  /** models × features: Σ h z of the battles where the model is a, minus those where it is b */
  mf: Float64Array;
  /** features × features, upper triangle: Σ h z zᵀ */
  ff: Float64Array;
}

const blocksFor = (n: number, k: number): Blocks => ({
  pair: new Float64Array(n * n),
  mf: new Float64Array(n * k),
  ff: new Float64Array(k * k),
});

/**
 * The penalised negative log-likelihood at theta; with `out` given, also its gradient and Hessian (and the
 * questions' scores when out.S is given; it must be zero on entry). Weights (one per battle) rescale the likelihood
 * terms, never the penalty; a battle of weight 0 is skipped.
 */
function evaluate(
  d: FitDesign,
  theta: Float64Array,
  reg: number,
  weights: Float64Array | undefined,
  out?: Derivatives,
  blocks?: Blocks,
): number {
  const n = d.models.length;
  const k = d.features.length;
  const P = n + k;
  const { a: A, b: B, y: Y, x: X } = d;
  let loss = 0;
  for (let p = 0; p < theta.length; p++) loss += (reg / 2) * theta[p]! ** 2;
  if (!out) {
    for (let r = 0; r < Y.length; r++) {
      const w = weights ? weights[r]! : 1;
      if (!w) continue;
      let eta = ALPHA * (theta[A[r]!]! - theta[B[r]!]!);
      for (let f = 0; f < k; f++) eta += X[r * k + f]! * theta[n + f]!;
      // −[y log σ(η) + (1 − y) log(1 − σ(η))] = log(1 + e^η) − y η, computed without overflow
      loss += w * ((eta > 0 ? eta + Math.log1p(Math.exp(-eta)) : Math.log1p(Math.exp(eta))) - Y[r]! * eta);
    }
    return loss;
  }
  const { g, S } = out;
  const { pair, mf, ff } = blocks ?? blocksFor(n, k);
  pair.fill(0);
  mf.fill(0);
  ff.fill(0);
  for (let p = 0; p < P; p++) g[p] = reg * theta[p]!;
  const C = d.cluster;
  for (let r = 0; r < Y.length; r++) {
    const w = weights ? weights[r]! : 1;
    if (!w) continue;
    const a = A[r]!;
    const b = B[r]!;
    const rk = r * k;
    let eta = ALPHA * (theta[a]! - theta[b]!);
    for (let f = 0; f < k; f++) eta += X[rk + f]! * theta[n + f]!;
    const y = Y[r]!;
    const em = Math.exp(-eta);
    loss += w * ((eta > 0 ? eta + Math.log1p(em) : Math.log1p(Math.exp(eta))) - y * eta);
    const pr = 1 / (1 + em);
    const e = w * (y - pr);
    const h = w * pr * (1 - pr);
    // gradient of the loss: −e · row, row = (α e_a − α e_b, z); Hessian: h · row rowᵀ
    g[a]! -= ALPHA * e;
    g[b]! += ALPHA * e;
    pair[a * n + b]! += h;
    for (let f = 0; f < k; f++) {
      const z = X[rk + f]!;
      g[n + f]! -= e * z;
      const hz = h * z;
      mf[a * k + f]! += hz;
      mf[b * k + f]! -= hz;
      for (let f2 = f; f2 < k; f2++) ff[f * k + f2]! += hz * X[rk + f2]!;
    }
    if (!S) continue;
    const c = C[r]! * P;
    S[c + a]! += e * ALPHA;
    S[c + b]! += e * -ALPHA;
    for (let f = 0; f < k; f++) S[c + n + f]! += e * X[rk + f]!;
  }
  spread(out.H, reg, { pair, mf, ff }, n, k);
  return loss;
}

/** The full (models + features)² Hessian from the compact blocks, with the penalty on the diagonal. */
function spread(H: Float64Array, reg: number, { pair, mf, ff }: Blocks, n: number, k: number): void {
  const P = n + k;
  H.fill(0);
  for (let p = 0; p < P; p++) H[p * P + p] = reg;
  const aa = ALPHA * ALPHA;
  for (let a = 0; a < n; a++)
    for (let b = 0; b < n; b++) {
      const v = pair[a * n + b]!;
      if (!v) continue;
      const h = aa * v;
      H[a * P + a]! += h;
      H[b * P + b]! += h;
      H[a * P + b]! -= h;
      H[b * P + a]! -= h;
    }
  for (let m = 0; m < n; m++)
    for (let f = 0; f < k; f++) {
      const v = ALPHA * mf[m * k + f]!;
      H[m * P + n + f]! += v;
      H[(n + f) * P + m]! += v;
    }
  for (let f = 0; f < k; f++)
    for (let f2 = f; f2 < k; f2++) {
      const v = ff[f * k + f2]!;
      H[(n + f) * P + n + f2]! += v;
      if (f2 !== f) H[(n + f2) * P + n + f]! += v;
    }
}

interface FitOptions {
  reg: number;
  /** one per battle, e.g. its question's bootstrap multiplicity: rescale the likelihood terms, never the penalty */
  weights?: Float64Array;
  /** a warm start (ratings, then coefficients) */
  init?: Float64Array;
  tol?: number;
  maxIter?: number;
}

/** The fit and, at it, the penalised Hessian and the questions' summed scores: what the sandwich needs. */
export interface StyleFitScores {
  theta: Float64Array;
  /** (models + features)², row-major: the penalised information at theta */
  H: Float64Array;
  /** questions × (models + features): each question's score at theta */
  S: Float64Array;
}

/** The penalised contextual Bradley–Terry fit: loss + (reg/2)·‖θ‖², θ = (ratings, feature coefficients). */
export function fitStyle(d: FitDesign, o: FitOptions): Float64Array {
  return newton(d, o, false).theta;
}

/** fitStyle, with the Hessian and the questions' scores at the fit taken from its last pass (unweighted fits). */
export function fitStyleScores(d: FitDesign, o: Omit<FitOptions, 'weights'>): StyleFitScores {
  const r = newton(d, o, true);
  return { theta: r.theta, H: r.H, S: r.S! };
}

/** Newton's iterations on the loss; `scores`: the returned point's pass also sums the questions' scores. */
function newton(
  d: FitDesign,
  o: FitOptions,
  scores: boolean,
): { theta: Float64Array; H: Float64Array; S?: Float64Array } {
  const n = d.models.length;
  const P = n + d.features.length;
  const blocks = blocksFor(n, d.features.length);
  const theta = o.init ? Float64Array.from(o.init) : new Float64Array(P);
  let S: Float64Array | undefined;
  const questions = () => new Float64Array(d.clusters.length * P);
  const objective: Objective = (x, der, final) => {
    // a step that ends the fit needs no derivatives, unless the sandwich wants them (and the questions' scores)
    // at the returned point
    const out =
      der && (!final || scores) ? { ...der, S: final && scores ? (S = questions()) : undefined } : undefined;
    const loss = evaluate(d, x, o.reg, o.weights, out, blocks);
    // the solver maximises: the loss's gradient turned round (its Hessian is the negative Hessian wanted)
    if (out) for (let p = 0; p < P; p++) out.g[p] = -out.g[p]!;
    return -loss;
  };
  const fit = dampedNewton(objective, theta, {
    maxIter: o.maxIter ?? 100,
    tol: o.tol ?? 1e-10,
    // backtracking, unlimited: a full Newton step can overshoot when a rare feature has large z-scores
    maxStep: Infinity,
    lineSearch: true,
    // the likelihood is flat along "all ratings + c" and θ_r stays at mean 0: drop the rating step's
    // (rounding-only) mean, which with a tiny penalty would keep the iteration from converging
    project: (step) => {
      let mean = 0;
      for (let m = 0; m < n; m++) mean += step[m]! / n;
      for (let m = 0; m < n; m++) step[m]! -= mean;
    },
  });
  if (scores && !fit.converged) {
    // the iterations ran out before a converging step: one pass at the returned point
    S = questions();
    evaluate(d, theta, o.reg, o.weights, { ...fit.d, S }, blocks);
  }
  return { theta, H: fit.d.H, S };
}
