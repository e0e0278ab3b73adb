// One joint model of a judge's pairwise outcomes with a length term, after AlpacaEval 2's length-controlled
// win rate (Dubois et al. 2024), adapted from "model against a baseline" to a tournament of all pairs:
//
//   logit P(i wins) = θ_i − θ_j + β · tanh(Δ / σ) + (ψ_i − ψ_j) · γ_q
//
// θ: model strengths (θ of the first model pinned at 0); β: the length effect; Δ: i's answer length minus j's,
// σ: its standard deviation over the data (AlpacaEval's "std_delta_len"); γ_q: the question's difficulty, fixed
// before the fit (questionDifficulty); ψ: each model's weight on it, L2-penalised towards 0 with strength
// λ = LAMBDA × matches / models (a tournament has no baseline to pull them to). Ties count half
// (quasi-likelihood, as AlpacaEval and FastChat do). A model's length-controlled win rate is its predicted
// win rate with Δ = 0 over the matches it played. Pure.
import { solveSpd } from '../linalg.ts';
import { sandwichVariances } from './sandwich.ts';
import { dampedNewton, type Objective } from '../newton.ts';

export const LAMBDA = 0.2;

export interface LengthObs {
  /** model indices */
  i: number;
  j: number;
  /** question index */
  q: number;
  /** length of i's answer minus j's (characters) */
  delta: number;
  /** 1 i won, 0 j won, 0.5 tie */
  y: number;
}

export interface LengthModelFit {
  theta: Float64Array;
  beta: number;
  psi: Float64Array;
  /** standard errors from the inverse of the penalised observed information */
  seBeta: number;
  sigma: number;
  gamma: Float64Array;
  lambda: number;
  iterations: number;
  converged: boolean;
}

/** The standard deviation of the length differences (n − 1 in the denominator, as pandas' std). */
export function deltaSd(obs: LengthObs[]): number {
  const n = obs.length;
  if (n < 2) return 1;
  let m = 0;
  for (const o of obs) m += o.delta;
  m /= n;
  let v = 0;
  for (const o of obs) v += (o.delta - m) ** 2;
  const sd = Math.sqrt(v / (n - 1));
  return sd > 0 ? sd : 1;
}

/**
 * γ for every observation: the share of the other matches of its question (leave-one-out: a match's own outcome
 * never enters its covariate) won by the model with the higher `rating`, ties half, standardised; 0 where unknown.
 */
export function questionDifficulty(
  obs: LengthObs[],
  nQuestions: number,
  rating: ArrayLike<number>,
): Float64Array {
  const sum = new Float64Array(nQuestions);
  const n = new Float64Array(nQuestions);
  const own = obs.map((o) =>
    rating[o.i] === rating[o.j] ? NaN : rating[o.i]! > rating[o.j]! ? o.y : 1 - o.y,
  );
  obs.forEach((o, k) => {
    if (Number.isNaN(own[k]!)) return;
    sum[o.q]! += own[k]!;
    n[o.q]! += 1;
  });
  const raw = obs.map((o, k) => {
    const self = Number.isNaN(own[k]!) ? 0 : 1;
    const m = n[o.q]! - self;
    return m > 0 ? (sum[o.q]! - (self ? own[k]! : 0)) / m : NaN;
  });
  let mean = 0;
  let c = 0;
  for (const x of raw) if (!Number.isNaN(x)) ((mean += x), c++);
  mean = c ? mean / c : 0;
  let v = 0;
  for (const x of raw) if (!Number.isNaN(x)) v += (x - mean) ** 2;
  const sd = c ? Math.sqrt(v / c) : 0;
  return Float64Array.from(raw, (x) => (Number.isNaN(x) || !(sd > 0) ? 0 : (x - mean) / sd));
}

/**
 * Fit the joint model. `weights` (one per observation) rescale the observations, which is how a bootstrap
 * round refits; `init` warm-starts Newton. σ, γ and λ are given (fixed from the full data).
 */
export function fitLengthModel(
  obs: LengthObs[],
  nModels: number,
  o: {
    sigma: number;
    gamma: Float64Array;
    lambda: number;
    weights?: Float64Array;
    init?: { theta: Float64Array; beta: number; psi: Float64Array };
    tol?: number;
    maxIter?: number;
  },
): LengthModelFit {
  const M = nModels;
  const P = M - 1 + 1 + M; // θ_1..θ_{M-1}, β, ψ_0..ψ_{M-1}
  const B = M - 1;
  const b = new Float64Array(P);
  if (o.init) {
    for (let m = 1; m < M; m++) b[m - 1] = o.init.theta[m]! - o.init.theta[0]!;
    b[B] = o.init.beta;
    for (let m = 0; m < M; m++) b[B + 1 + m] = o.init.psi[m]!;
  }
  const x = obs.map((ob) => Math.tanh(ob.delta / o.sigma));
  const idx = new Int32Array(5);
  const val = new Float64Array(5);
  const objective: Objective = (_b, d) => {
    const { g, H } = d!;
    for (let m = 0; m < M; m++) {
      const k = B + 1 + m;
      g[k]! -= o.lambda * b[k]!;
      H[k * P + k]! += o.lambda;
    }
    for (let k = 0; k < obs.length; k++) {
      const w = o.weights ? o.weights[k]! : 1;
      if (!w) continue;
      const ob = obs[k]!;
      const nnz = designRow(ob, x[k]!, o.gamma[k]!, B, idx, val);
      let eta = 0;
      for (let a = 0; a < nnz; a++) eta += b[idx[a]!]! * val[a]!;
      const p = 1 / (1 + Math.exp(-eta));
      const r = w * (ob.y - p);
      const h = w * p * (1 - p);
      for (let a = 0; a < nnz; a++) {
        const ia = idx[a]!;
        g[ia]! += r * val[a]!;
        // the lower triangle only: the Cholesky factor reads nothing else
        for (let c = 0; c < nnz; c++) if (idx[c]! <= ia) H[ia * P + idx[c]!]! += h * val[a]! * val[c]!;
      }
    }
    return NaN;
  };
  // a step is scaled so that no coordinate moves by more than 2
  const fit = dampedNewton(objective, b, {
    maxIter: o.maxIter ?? 100,
    tol: o.tol ?? 1e-10,
    maxStep: 2,
    scale: true,
    ridge: 1e-12,
  });
  const H = fit.d.H;
  // the information at the optimum for the standard error of β: H was built at the last iterate
  const e = new Float64Array(P);
  e[B] = 1;
  const inv = solveSpd(H, e, P)[B]!;
  const theta = new Float64Array(M);
  for (let m = 1; m < M; m++) theta[m] = b[m - 1]!;
  return {
    theta,
    beta: b[B]!,
    psi: b.slice(B + 1),
    seBeta: Math.sqrt(inv),
    sigma: o.sigma,
    gamma: o.gamma,
    lambda: o.lambda,
    iterations: fit.iterations,
    converged: fit.converged,
  };
}

/** Observation `ob`'s row of the design (θ of model 0 pinned; x its tanh length term, gq its γ) into idx/val. */
function designRow(
  ob: LengthObs,
  x: number,
  gq: number,
  B: number,
  idx: Int32Array,
  val: Float64Array,
): number {
  let nnz = 0;
  if (ob.i > 0) ((idx[nnz] = ob.i - 1), (val[nnz++] = 1));
  if (ob.j > 0) ((idx[nnz] = ob.j - 1), (val[nnz++] = -1));
  ((idx[nnz] = B), (val[nnz++] = x));
  // ψ's terms only where the question's difficulty is not 0
  if (gq !== 0) ((idx[nnz] = B + 1 + ob.i), (val[nnz++] = gq), (idx[nnz] = B + 1 + ob.j), (val[nnz++] = -gq));
  return nnz;
}

/**
 * The question-clustered sandwich standard error of β (as stats/sandwich.ts for Bradley–Terry): a question's
 * matches are correlated, which `seBeta` (the observed information alone) ignores.
 */
export function clusteredSeBeta(obs: LengthObs[], nModels: number, f: LengthModelFit): number {
  const M = nModels;
  const P = M - 1 + 1 + M;
  const B = M - 1;
  const H = new Float64Array(P * P);
  for (let m = 0; m < M; m++) H[(B + 1 + m) * P + B + 1 + m] = f.lambda;
  const nQ = obs.reduce((mx, ob) => Math.max(mx, ob.q + 1), 0);
  const S = new Float64Array(nQ * P);
  const idx = new Int32Array(5);
  const val = new Float64Array(5);
  obs.forEach((ob, k) => {
    const gq = f.gamma[k]!;
    const x = Math.tanh(ob.delta / f.sigma);
    const nnz = designRow(ob, x, gq, B, idx, val);
    const eta = f.theta[ob.i]! - f.theta[ob.j]! + f.beta * x + (f.psi[ob.i]! - f.psi[ob.j]!) * gq;
    const p = 1 / (1 + Math.exp(-eta));
    for (let a = 0; a < nnz; a++) {
      S[ob.q * P + idx[a]!]! += (ob.y - p) * val[a]!;
      for (let c = 0; c < nnz; c++) H[idx[a]! * P + idx[c]!]! += p * (1 - p) * val[a]! * val[c]!;
    }
  });
  for (let d = 0; d < P; d++) H[d * P + d]! += 1e-12;
  const e = new Float64Array(P);
  e[B] = 1;
  return Math.sqrt(sandwichVariances(H, S, nQ, [e])[0]!);
}

/** Predicted win rate of every model at zero length difference, over the observations it took part in. */
export function lcWinRates(
  obs: LengthObs[],
  nModels: number,
  f: LengthModelFit,
  weights?: Float64Array,
): Float64Array {
  const s = new Float64Array(nModels);
  const n = new Float64Array(nModels);
  obs.forEach((ob, k) => {
    const w = weights ? weights[k]! : 1;
    if (!w) return;
    const gq = f.gamma[k]!;
    const p = 1 / (1 + Math.exp(-(f.theta[ob.i]! - f.theta[ob.j]! + (f.psi[ob.i]! - f.psi[ob.j]!) * gq)));
    s[ob.i]! += w * p;
    n[ob.i]! += w;
    s[ob.j]! += w * (1 - p);
    n[ob.j]! += w;
  });
  return s.map((x, m) => (n[m] ? x / n[m]! : NaN));
}
