// Style control's input (style.ts) as columns: the battles read once into typed arrays (models and questions
// indexed, both answers' counts per feature), each feature's support, and the z-scored design the fit reads. Pure.
import type { FitDesign } from './style-fit.ts';
import type { StyleBattle, StyleFeature } from './style.ts';

/** The z-scored design: per battle, the normalised style difference of each feature. */
export interface StyleDesign extends FitDesign {
  models: string[];
  features: StyleFeature[];
  /** features that were asked for but never vary (zero standard deviation), left out */
  constant: StyleFeature[];
  clusters: (string | number)[];
}

/**
 * The battles as columns: models and questions indexed, and per asked-for feature each battle's normalised style
 * difference (s_a − s_b) / (s_a + s_b + 1) and whether each answer carries it (the counts themselves are not kept).
 */
export interface BattleColumns {
  models: string[];
  a: Int32Array;
  b: Int32Array;
  y: Float64Array;
  clusters: (string | number)[];
  cluster: Int32Array;
  features: StyleFeature[];
  /** battles × features, row-major: the normalised difference (0 exactly when both counts are equal) */
  diff: Float64Array;
  /** per battle, bit 2f: answer a's count of feature f is > 0; bit 2f + 1: answer b's */
  carries: Uint8Array;
}

/** a feature's place among the four counts read from each answer */
const COUNT_INDEX: Record<StyleFeature, number> = { length: 0, headers: 1, lists: 2, bold: 3 };

export function battleColumns(battles: StyleBattle[], features: StyleFeature[]): BattleColumns {
  const N = battles.length;
  const K = features.length;
  const pick = features.map((f) => COUNT_INDEX[f]);
  // models numbered in order of first appearance, renumbered in name order at the end (one pass over the battles)
  const seen = new Map<string, number>();
  const column = (m: string) => {
    let c = seen.get(m);
    if (c === undefined) seen.set(m, (c = seen.size));
    return c;
  };
  const clusterIndex = new Map<string | number, number>();
  const [a, b, cluster] = [new Int32Array(N), new Int32Array(N), new Int32Array(N)];
  const y = new Float64Array(N);
  const diff = new Float64Array(N * K);
  const carries = new Uint8Array(K ? N : 0);
  const ca = new Float64Array(4);
  const cb = new Float64Array(4);
  for (let n = 0; n < N; n++) {
    const bt = battles[n]!;
    let c = clusterIndex.get(bt.cluster);
    if (c === undefined) clusterIndex.set(bt.cluster, (c = clusterIndex.size));
    cluster[n] = c;
    a[n] = column(bt.a);
    b[n] = column(bt.b);
    y[n] = bt.score;
    if (!K) continue;
    // the four counts read by name (a read keyed by the feature's name was most of this pass)
    const A = bt.styleA;
    const B = bt.styleB;
    ((ca[0] = A.length), (ca[1] = A.headers), (ca[2] = A.lists), (ca[3] = A.bold));
    ((cb[0] = B.length), (cb[1] = B.headers), (cb[2] = B.lists), (cb[3] = B.bold));
    let bits = 0;
    for (let k = 0; k < K; k++) {
      const sa = ca[pick[k]!]!;
      const sb = cb[pick[k]!]!;
      diff[n * K + k] = (sa - sb) / (sa + sb + 1);
      if (sa > 0) bits |= 1 << (2 * k);
      if (sb > 0) bits |= 2 << (2 * k);
    }
    carries[n] = bits;
  }
  const models = [...seen.keys()].sort();
  const renumber = new Int32Array(models.length);
  models.forEach((m, k) => (renumber[seen.get(m)!] = k));
  for (let n = 0; n < N; n++) ((a[n] = renumber[a[n]!]!), (b[n] = renumber[b[n]!]!));
  return { models, a, b, y, clusters: [...clusterIndex.keys()], cluster, features, diff, carries };
}

/** The design of the features kept (a subset of the columns' features, in their order), each z-scored. */
export function styleDesign(cols: BattleColumns, features: StyleFeature[]): StyleDesign {
  const N = cols.y.length;
  const K = cols.features.length;
  const { diff } = cols;
  const kept: StyleFeature[] = [];
  const constant: StyleFeature[] = [];
  const from: number[] = [];
  const sds: number[] = [];
  for (const f of features) {
    const i = cols.features.indexOf(f);
    // standardised over both orientations of every battle: mean 0, sd = the root mean square. FastChat's
    // centring on the observed mean works only because Chatbot Arena's sides are random; here it would credit
    // "the average style gap" to the ratings.
    let ss = 0;
    for (let n = 0; n < N; n++) ss += diff[n * K + i]! * diff[n * K + i]!;
    const sd = Math.sqrt(ss / N);
    if (!(sd > 1e-12)) {
      constant.push(f);
      continue;
    }
    kept.push(f);
    from.push(i);
    sds.push(sd);
  }
  const k = kept.length;
  // when every column is kept in place, the differences are scaled where they are (the columns are not read again)
  const inPlace = k === K && from.every((i, j) => i === j);
  const x = inPlace ? diff : new Float64Array(N * k);
  for (let n = 0; n < N; n++) for (let j = 0; j < k; j++) x[n * k + j] = diff[n * K + from[j]!]! / sds[j]!;
  const { models, a, b, y, clusters, cluster } = cols;
  return { models, features: kept, constant, a, b, y, x, clusters, cluster };
}

/** How much of the data carries a feature: what its coefficient rests on. */
export interface FeatureSupport {
  /** distinct answers (model and question) with the feature */
  answers: number;
  /** distinct questions with a battle whose two answers differ in the feature */
  questions: number;
  /** decisive battles that differ in the feature, won (lost) by the answer with more of it */
  won: number;
  lost: number;
}

/** The least support a feature needs for a coefficient: below it the estimate rests on a handful of verdicts. */
export const MIN_FEATURE_SUPPORT = { answers: 10, questions: 5, won: 5, lost: 5 } as const;

/** The support of each of the columns' features (answers, questions, decisive battles on either side). */
export function featureSupports(cols: BattleColumns): FeatureSupport[] {
  const N = cols.y.length;
  const M = cols.models.length;
  const Q = cols.clusters.length;
  // an answer is (model, question as text): question 1 and question "1" are one answer's question
  const textIx = new Map<string, number>();
  const qText = Int32Array.from(cols.clusters, (c) => {
    let v = textIx.get(String(c));
    if (v === undefined) textIx.set(String(c), (v = textIx.size));
    return v;
  });
  const T = textIx.size;
  const K = cols.features.length;
  // one pass for every feature: per feature, its answers (model × question text) and questions seen so far
  const answers = new Uint8Array(K * M * T);
  const questions = new Uint8Array(K * Q);
  const out = cols.features.map(() => ({ answers: 0, questions: 0, won: 0, lost: 0 }));
  for (let r = 0; r < N; r++) {
    const t = qText[cols.cluster[r]!]!;
    const ka = cols.a[r]! * T + t;
    const kb = cols.b[r]! * T + t;
    const q = cols.cluster[r]!;
    const y = cols.y[r]!;
    const carries = cols.carries[r]!;
    for (let i = 0; i < K; i++) {
      const o = out[i]!;
      const bits = carries >> (2 * i);
      const at = i * M * T;
      if (bits & 1 && !answers[at + ka]) ((answers[at + ka] = 1), o.answers++);
      if (bits & 2 && !answers[at + kb]) ((answers[at + kb] = 1), o.answers++);
      // the difference has the sign of s_a − s_b (its denominator is >= 1)
      const d = cols.diff[r * K + i]!;
      if (!d) continue;
      if (!questions[i * Q + q]) ((questions[i * Q + q] = 1), o.questions++);
      if (y === 0.5) continue;
      if (d > 0 === (y === 1)) o.won++;
      else o.lost++;
    }
  }
  return out;
}

/** Why a feature with this support is not estimable, or undefined when it is. */
export function supportShortfall(s: FeatureSupport, min = MIN_FEATURE_SUPPORT): string | undefined {
  const short: string[] = [];
  if (s.answers < min.answers)
    short.push(
      `${s.answers} ${s.answers === 1 ? 'answer carries' : 'answers carry'} it (needs ${min.answers})`,
    );
  if (s.questions < min.questions)
    short.push(
      `${s.questions} ${s.questions === 1 ? 'question differs' : 'questions differ'} in it (needs ${min.questions})`,
    );
  if (s.won < min.won || s.lost < min.lost)
    short.push(
      `the answer with more of it won ${s.won} and lost ${s.lost} decisive battles (needs ${min.won} each)`,
    );
  return short.length ? short.join('; ') : undefined;
}
