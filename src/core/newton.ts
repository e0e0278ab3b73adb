// The one damped Newton method every fit uses: maximise an objective from its gradient and negative Hessian, with
// the step limited (separable data would otherwise send it to infinity) and, where a full step can overshoot, halved
// until the objective does not fall. Pure.
import { cholesky, choleskySolve } from './linalg.ts';

/** The gradient of the objective and its negative Hessian (only the lower triangle is read). */
export interface Derivatives {
  g: Float64Array;
  H: Float64Array;
}

/**
 * The objective at x (maximised). With `d`, it also fills d.g and d.H (both zero on entry); d.H is absent when the
 * solver steps with a fixed factor. `final`: the step to x is small enough to end the fit if it is taken (a fit
 * may then skip derivatives it will not use, or compute what it wants at the fit).
 */
export type Objective = (x: Float64Array, d: Derivatives | undefined, final: boolean) => number;

export interface NewtonOptions {
  maxIter: number;
  /** the fit ends when no coordinate moves by tol or more */
  tol: number;
  /** the largest move of a coordinate: each is clamped to it, or with `scale` the whole step is scaled to it */
  maxStep: number;
  scale?: boolean;
  /** added to the Hessian's diagonal: keeps it definite along a direction the data do not determine */
  ridge?: number;
  /** halve a step until the objective does not fall (needs an objective that returns its value) */
  lineSearch?: boolean;
  /** a fixed Cholesky factor to step with instead of the Hessian (the chord method: no factorisation per step) */
  factor?: Float64Array;
  /** adjusts a step before it is limited (e.g. drops a direction the objective is flat along) */
  project?: (step: Float64Array) => void;
}

export interface NewtonResult {
  iterations: number;
  converged: boolean;
  /** the objective at x when it was evaluated there (with a line search), else at the last point evaluated */
  value: number;
  /** the derivatives last computed: at the returned x after a line search, else one step before it */
  d: Derivatives;
}

/** Maximise f from x (moved in place to the fit). */
export function dampedNewton(f: Objective, x: Float64Array, o: NewtonOptions): NewtonResult {
  const P = x.length;
  // with a fixed factor the objective is handed no Hessian to fill
  const fresh = (): Derivatives =>
    o.factor
      ? ({ g: new Float64Array(P) } as Derivatives)
      : { g: new Float64Array(P), H: new Float64Array(P * P) };
  let cur = fresh();
  let cand = o.lineSearch ? fresh() : cur;
  const want = (d: Derivatives): Derivatives => {
    d.g.fill(0);
    d.H?.fill(0);
    return d;
  };
  const step = new Float64Array(P);
  const work = new Float64Array(P);
  const next = new Float64Array(o.lineSearch ? P : 0);
  let value = o.lineSearch ? f(x, want(cur), false) : NaN;
  for (let iter = 0; iter < o.maxIter; iter++) {
    if (!o.lineSearch) value = f(x, want(cur), false);
    if (!o.factor && o.ridge) for (let p = 0; p < P; p++) cur.H[p * P + p]! += o.ridge;
    choleskySolve(o.factor ?? cholesky(cur.H, P), cur.g, P, step, work);
    o.project?.(step);
    // a Hessian that is not definite here (far from the fit, or rounding in a numerical one) gives no Newton step:
    // step along the gradient instead, taken only where the objective rises (it has no scale to stop it overshooting)
    let alongGradient = false;
    for (let p = 0; p < P; p++) if (!Number.isFinite(step[p]!)) alongGradient = true;
    if (alongGradient) step.set(cur.g);
    let big = 0;
    for (let p = 0; p < P; p++) big = Math.max(big, Math.abs(step[p]!));
    const s = o.scale && big > o.maxStep ? o.maxStep / big : 1;
    for (let p = 0; p < P; p++)
      step[p] = o.scale ? s * step[p]! : Math.max(-o.maxStep, Math.min(o.maxStep, step[p]!));
    let move = 0;
    for (let p = 0; p < P; p++) move = Math.max(move, Math.abs(step[p]!));
    if (!o.lineSearch) {
      for (let p = 0; p < P; p++) x[p]! += step[p]!;
      if (move < o.tol) return { iterations: iter + 1, converged: true, value, d: cur };
      continue;
    }
    for (let t = 1; ; t /= 2) {
      // no point along the step where the objective is defined and does not fall: the fit ends where it is
      if (t < 2 ** -60) return { iterations: iter + 1, converged: false, value, d: cur };
      for (let p = 0; p < P; p++) next[p] = x[p]! + t * step[p]!;
      const final = t * move < o.tol;
      const v = f(next, want(cand), final);
      // a step that barely moves is taken (rounding decides whether such an objective rises), unless it leaves the
      // objective's domain (−∞ there)
      const taken = alongGradient
        ? v > value || (final && v >= value)
        : v >= value - 1e-12 * Math.abs(value) || (t < 1e-6 && v > -Infinity);
      if (taken) {
        x.set(next);
        value = v;
        [cur, cand] = [cand, cur];
        if (final) return { iterations: iter + 1, converged: true, value, d: cur };
        break;
      }
    }
  }
  return { iterations: o.maxIter, converged: false, value, d: cur };
}
