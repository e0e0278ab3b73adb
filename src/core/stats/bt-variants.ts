// Two Bradley–Terry variants beside the plain fit, by maximum likelihood: Rao–Kupper ties (P(i beats j) =
// π_i / (π_i + θ π_j), θ ≥ 1: a tie is an outcome of its own, likeliest between equal models), and a position term
// (each game on its own, P(first shown wins) = σ(β_first − β_second + h): a preference for the first position is
// estimated, not averaged away by the two orders). Ratings on the usual scale. Pure.
import type { Battle } from '../ratings.ts';
import { dampedNewton, type Objective } from '../newton.ts';
import type { MatchGame } from '../types.ts';
import { connectedModelGroups } from '../groups.ts';
import { scoreOf } from '../outcomes.ts';

const ALPHA = Math.log(10) / 400;

interface VariantFit {
  models: string[];
  /** Elo-scale ratings, mean 1000 in each group of models that met */
  ratings: number[];
  /** each model's group (1 = the largest), only where the models form more than one: ratings of two groups are
   * not comparable */
  group?: number[];
  logLik: number;
  iterations: number;
  converged: boolean;
}

export interface RaoKupperFit extends VariantFit {
  /** θ ≥ 1 */
  theta: number;
  /** the chance of a tie between two equal models: (θ − 1) / (θ + 1) */
  tieAtEqual: number;
}

export interface PositionFit extends VariantFit {
  /** being shown first, in rating points */
  position: number;
  /** the chance that the first-shown of two equal models wins (ties half) */
  firstAtEqual: number;
}

/**
 * Maximise `ll` (value and gradient) over x, starting at x0, by the damped Newton method with a line search; the
 * Hessian from central differences of the gradient, symmetrised.
 */
function newton(
  ll: (x: Float64Array, g: Float64Array) => number,
  x0: Float64Array,
): { x: Float64Array; value: number; iterations: number; converged: boolean } {
  const n = x0.length;
  const gp = new Float64Array(n);
  const gm = new Float64Array(n);
  const objective: Objective = (x, d, final) => {
    if (!d) return ll(x, gp);
    const value = ll(x, d.g);
    // a step that ends the fit needs no Hessian
    if (final) return value;
    const H = d.H;
    for (let l = 0; l < n; l++) {
      const e = 1e-5 * Math.max(1, Math.abs(x[l]!));
      const xl = x[l]!;
      x[l] = xl + e;
      ll(x, gp);
      x[l] = xl - e;
      ll(x, gm);
      x[l] = xl;
      for (let k = 0; k < n; k++) H[k * n + l] = -(gp[k]! - gm[k]!) / (2 * e);
    }
    for (let k = 0; k < n; k++)
      for (let l = 0; l < k; l++) H[k * n + l] = H[l * n + k] = (H[k * n + l]! + H[l * n + k]!) / 2;
    return value;
  };
  const x = Float64Array.from(x0);
  const r = dampedNewton(objective, x, {
    maxIter: 200,
    tol: 1e-9,
    maxStep: 2,
    ridge: 1e-10,
    lineSearch: true,
  });
  return { x, value: r.value, iterations: r.iterations, converged: r.converged };
}

/**
 * The matches' models (sorted) and the fit's strengths: the first model of each group that met pinned at 0 (a free
 * offset between groups would leave the Hessian singular), the others free; the fit's own term at `free`.
 */
function strengths(matches: { model1: string; model2: string }[]) {
  const models = [...new Set(matches.flatMap((m) => [m.model1, m.model2]))].sort();
  const idx = new Map(models.map((m, k) => [m, k]));
  const groupOf = new Int32Array(models.length);
  const slot = new Int32Array(models.length);
  const groups = connectedModelGroups(matches).map((g) => g.map((m) => idx.get(m)!));
  groups.forEach((g, k) => g.forEach((i) => (groupOf[i] = k)));
  const pinned = new Set(groups.map((g) => Math.min(...g)));
  let free = 0;
  for (let k = 0; k < models.length; k++) slot[k] = pinned.has(k) ? -1 : free++;
  const beta = (x: Float64Array, k: number) => (slot[k]! < 0 ? 0 : x[slot[k]!]!);
  const add = (g: Float64Array, k: number, v: number) => {
    if (slot[k]! >= 0) g[slot[k]!]! += v;
  };
  /** Elo-scale ratings, each group centred at 1000 */
  const ratings = (x: Float64Array): number[] => {
    const mean = groups.map((g) => g.reduce((a, i) => a + beta(x, i), 0) / g.length);
    return models.map((_, k) => (beta(x, k) - mean[groupOf[k]!]!) / ALPHA + 1000);
  };
  const group = groups.length > 1 ? { group: Array.from(groupOf, (k) => k + 1) } : {};
  return { models, idx, free, beta, add, ratings, group };
}

/** Rao–Kupper ties: wins and ties per pair of models. */
export function fitRaoKupper(battles: readonly Battle[]): RaoKupperFit {
  const { models, idx, free, beta, add, ratings, group } = strengths(
    battles.map((b) => ({ model1: b.a, model2: b.b })),
  );
  // per unordered pair: [i, j, i won, j won, ties]
  const pairs = new Map<string, [number, number, number, number, number]>();
  for (const b of battles) {
    let i = idx.get(b.a)!;
    let j = idx.get(b.b)!;
    let s: number = b.score;
    if (i > j) [i, j, s] = [j, i, 1 - s];
    const key = `${i},${j}`;
    const p = pairs.get(key) ?? [i, j, 0, 0, 0];
    if (s === 1) p[2]++;
    else if (s === 0) p[3]++;
    else p[4]++;
    pairs.set(key, p);
  }
  const rows = [...pairs.values()];
  // x = (the free β, ν) with θ = 1 + e^ν
  const ll = (x: Float64Array, g: Float64Array) => {
    g.fill(0);
    const nu = x[free]!;
    const theta = 1 + Math.exp(nu);
    let v = 0;
    let dTheta = 0;
    for (const [i, j, wi, wj, t] of rows) {
      const [bi, bj] = [beta(x, i), beta(x, j)];
      // shift by the larger strength so the exponentials stay finite
      const m = Math.max(bi, bj);
      const [ei, ej] = [Math.exp(bi - m), Math.exp(bj - m)];
      const A = ei + theta * ej;
      const B = ej + theta * ei;
      const [lA, lB] = [Math.log(A) + m, Math.log(B) + m];
      // (no ties: their term is 0, also where θ reaches 1 and its log −∞)
      v += wi * (bi - lA) + wj * (bj - lB) + (t && t * (Math.log(theta * theta - 1) + bi + bj - lA - lB));
      // d/dβ_i, d/dβ_j, d/dθ
      const dAi = ei / A;
      const dAj = (theta * ej) / A;
      const dBi = (theta * ei) / B;
      const dBj = ej / B;
      const gi = wi * (1 - dAi) - wj * dBi + t * (1 - dAi - dBi);
      const gj = -wi * dAj + wj * (1 - dBj) + t * (1 - dAj - dBj);
      dTheta +=
        -wi * (ej / A) - wj * (ei / B) + (t && t * ((2 * theta) / (theta * theta - 1) - ej / A - ei / B));
      add(g, i, gi);
      add(g, j, gj);
    }
    g[free] = dTheta * (theta - 1);
    return v;
  };
  const x0 = new Float64Array(free + 1);
  x0[free] = Math.log(0.5);
  const r = newton(ll, x0);
  const theta = 1 + Math.exp(r.x[free]!);
  return {
    models,
    ratings: ratings(r.x),
    ...group,
    theta,
    tieAtEqual: (theta - 1) / (theta + 1),
    logLik: r.value,
    iterations: r.iterations,
    converged: r.converged,
  };
}

/** A position term: every game on its own, the first-shown answer's score (ties half). */
export function fitPositionBT(games: readonly MatchGame[]): PositionFit {
  const played = games.filter((g) => g.verdict !== 'error');
  const { models, idx, free, beta, add, ratings, group } = strengths(played);
  // per ordered (first, second): [first, second, first's score, games]
  const cells = new Map<string, [number, number, number, number]>();
  for (const g of played) {
    const [first, second] = g.order === 'AB' ? [g.model1, g.model2] : [g.model2, g.model1];
    const s1 = scoreOf(g.verdict);
    const s = g.order === 'AB' ? s1 : 1 - s1;
    const [f, sc] = [idx.get(first)!, idx.get(second)!];
    const key = `${f},${sc}`;
    const c = cells.get(key) ?? [f, sc, 0, 0];
    c[2] += s;
    c[3]++;
    cells.set(key, c);
  }
  const rows = [...cells.values()];
  // x = (the free β, h)
  const ll = (x: Float64Array, g: Float64Array) => {
    g.fill(0);
    const h = x[free]!;
    let v = 0;
    for (const [f, s, score, count] of rows) {
      const z = beta(x, f) - beta(x, s) + h;
      // log σ(z) and log σ(−z), stably
      const lp = -Math.log1p(Math.exp(-Math.abs(z))) + Math.min(0, z);
      const lq = lp - z;
      v += score * lp + (count - score) * lq;
      const d = score - count / (1 + Math.exp(-z));
      add(g, f, d);
      add(g, s, -d);
      g[free]! += d;
    }
    return v;
  };
  const r = newton(ll, new Float64Array(free + 1));
  const h = r.x[free]!;
  return {
    models,
    ratings: ratings(r.x),
    ...group,
    position: h / ALPHA,
    firstAtEqual: 1 / (1 + Math.exp(-h)),
    logLik: r.value,
    iterations: r.iterations,
    converged: r.converged,
  };
}
