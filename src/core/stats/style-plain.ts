// Plain Bradley–Terry beside style control (style.ts), solved on ordered-pair cells: without features a battle's row
// of the design is its pair's, so the likelihood of a pair's battles is that of one row weighted by their number with
// their mean score (the same function, summed in another order). A million battles among 100 models are 9,900
// cells. The question-clustered sandwich takes its Hessian from the cells and its questions' scores from one pass
// over the battles. Pure.
import { fitStyle, fitStyleInformation, type FitDesign, type StyleFitScores } from './style-fit.ts';

const ALPHA = Math.LN10;

/** The battles' ordered pairs as the rows of a design without features, and which cell each battle is in. */
export interface PairCells {
  /** one row per ordered pair that met; y: the weighted mean score of its battles */
  design: FitDesign;
  /** per cell: the summed weight of its battles (0: none drawn) */
  weights: Float64Array;
  /** models × models: the cell of each ordered pair (−1: none); a battle's cell is that of its pair */
  index: Int32Array;
  /** per cell: the summed weighted score (scratch for weighCells) */
  scores: Float64Array;
}

/** The cells of a design's battles, each battle of weight 1. */
export function pairCells(d: FitDesign): PairCells {
  const n = d.models.length;
  const N = d.y.length;
  const index = new Int32Array(n * n).fill(-1);
  const ca: number[] = [];
  const cb: number[] = [];
  for (let r = 0; r < N; r++) {
    const key = d.a[r]! * n + d.b[r]!;
    let c = index[key]!;
    if (c < 0) {
      index[key] = c = ca.length;
      ca.push(d.a[r]!);
      cb.push(d.b[r]!);
    }
  }
  const m = ca.length;
  const design: FitDesign = {
    models: d.models,
    features: [],
    a: Int32Array.from(ca),
    b: Int32Array.from(cb),
    y: new Float64Array(m),
    x: new Float64Array(0),
    clusters: [],
    cluster: new Int32Array(0),
  };
  const cells = { design, weights: new Float64Array(m), index, scores: new Float64Array(m) };
  weighCells(cells, d);
  return cells;
}

/** Set the cells' weights and mean scores from the battles' weights: their question's count, or 1 each. */
export function weighCells(cells: PairCells, d: FitDesign, counts?: ArrayLike<number>): void {
  const { weights: W, scores: Ys, index } = cells;
  const n = d.models.length;
  W.fill(0);
  Ys.fill(0);
  for (let r = 0; r < d.y.length; r++) {
    const w = counts ? counts[d.cluster[r]!]! : 1;
    if (!w) continue;
    const c = index[d.a[r]! * n + d.b[r]!]!;
    W[c]! += w;
    Ys[c]! += w * d.y[r]!;
  }
  const Y = cells.design.y;
  for (let c = 0; c < W.length; c++) Y[c] = W[c] ? Ys[c]! / W[c]! : 0;
}

/** The plain fit on the cells as they are weighed now (weighCells). */
export function fitPlain(
  cells: PairCells,
  o: { reg: number; init?: Float64Array; tol?: number },
): Float64Array {
  return fitStyle(cells.design, { ...o, weights: cells.weights });
}

/**
 * The plain fit of every battle (each of weight 1), with its Hessian and the questions' scores at the fit: what
 * sandwichVariances needs, as fitStyleScores gives it for the contextual fit.
 */
export function fitPlainScores(cells: PairCells, d: FitDesign, reg: number): StyleFitScores {
  weighCells(cells, d);
  const { theta, H } = fitStyleInformation(cells.design, { reg, weights: cells.weights });
  const n = d.models.length;
  const { a: ca, b: cb } = cells.design;
  const p = Float64Array.from(ca, (a, c) => 1 / (1 + Math.exp(-ALPHA * (theta[a]! - theta[cb[c]!]!))));
  const S = new Float64Array(d.clusters.length * n);
  for (let r = 0; r < d.y.length; r++) {
    const a = d.a[r]!;
    const b = d.b[r]!;
    const e = d.y[r]! - p[cells.index[a * n + b]!]!;
    const q = d.cluster[r]! * n;
    S[q + a]! += e * ALPHA;
    S[q + b]! += e * -ALPHA;
  }
  return { theta, H, S };
}
