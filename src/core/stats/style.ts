// Style control: a contextual Bradley–Terry model with answer-style features, as Chatbot Arena and
// Arena-Hard control for style (FastChat's compute_style_control). For a battle of a against b,
//   P(a wins) = σ(ln10 · (r_a − r_b) + Σ_f β_f x_f),
// where x_f is the style difference (s_a − s_b) / (s_a + s_b + 1) of feature f, z-scored over all
// battles taken in both orientations (see styleDesign); ties count half a win. Ratings and β are fitted together by maximum likelihood with the L2
// penalty FastChat documents: loss + (reg/2)·‖θ‖² over all parameters, reg = 0.5 (half of
// scikit-learn's C = 1, because FastChat no longer duplicates every battle). Solved exactly by Newton's
// method (the penalty makes the problem strictly convex). Pure.
import {
  clusterBootstrap,
  columnIntervals,
  DEFAULT_LEVEL,
  DEFAULT_ROUNDS,
  DEFAULT_SEED,
  ranksFromIntervals,
} from './bootstrap.ts';
import { MIN_QUESTIONS } from './rating-rows.ts';
import { INIT, SCALE } from '../ratings.ts';
import { fitStyle, styleSandwichSe, type FitDesign } from './style-fit.ts';
import { styleSandwichIntervals } from './style-sandwich.ts';

/** FastChat's default L2 strength (rating_systems.py fit_contextual_bt) */
const STYLE_REG = 0.5;

/** The style groups a user asks for (`--style length,markdown`) and the features each one adds. */
const STYLE_GROUPS = { length: ['length'], markdown: ['headers', 'lists', 'bold'] } as const;
export type StyleGroup = keyof typeof STYLE_GROUPS;
export type StyleFeature = (typeof STYLE_GROUPS)[StyleGroup][number];

export interface StyleCounts {
  /** characters of the answer (code blocks included) */
  length: number;
  /** markdown headers (#..######), list items (ordered and unordered), bold spans (** or __), outside code blocks */
  headers: number;
  lists: number;
  bold: number;
}

const CODE_BLOCK = /```[^`]*```/g;

/** Style counts of one text, by Arena-Hard's markdown patterns, with fenced code blocks removed first. */
export function styleCounts(text: string): StyleCounts {
  const prose = text.replace(CODE_BLOCK, '');
  const count = (re: RegExp) => (prose.match(re) ?? []).length;
  let headers = 0;
  for (let h = 1; h <= 6; h++) headers += count(new RegExp(`^#{${h}}\\s`, 'gm'));
  return {
    length: text.length,
    headers,
    lists: count(/^\s*\d+\.\s/gm) + count(/^\s*[-*+]\s/gm),
    bold: count(/\*\*[^*\n]+\*\*/g) + count(/__[^_\n]+__/g),
  };
}

/** Counts of several texts added up (an answer's turns up to the one judged: what the judge read). */
export function addCounts(list: StyleCounts[]): StyleCounts {
  const out: StyleCounts = { length: 0, headers: 0, lists: 0, bold: 0 };
  for (const c of list) for (const k of Object.keys(out) as (keyof StyleCounts)[]) out[k] += c[k];
  return out;
}

export interface StyleBattle {
  a: string;
  b: string;
  score: 0 | 0.5 | 1;
  cluster: string | number;
  styleA: StyleCounts;
  styleB: StyleCounts;
}

/** The z-scored design: per battle, the normalised style difference of each feature. */
interface StyleDesign extends FitDesign {
  models: string[];
  features: StyleFeature[];
  /** features that were asked for but never vary (zero standard deviation), left out */
  constant: StyleFeature[];
  clusters: (string | number)[];
}

/** The battles as columns: models and questions indexed, each asked-for feature's counts for both answers. */
interface BattleColumns {
  models: string[];
  a: Int32Array;
  b: Int32Array;
  y: Float64Array;
  clusters: (string | number)[];
  cluster: Int32Array;
  features: StyleFeature[];
  /** per feature, per battle: the counts of answer a and of answer b */
  sa: Float64Array[];
  sb: Float64Array[];
}

function battleColumns(battles: StyleBattle[], features: StyleFeature[]): BattleColumns {
  const N = battles.length;
  const names = new Set<string>();
  for (const bt of battles) names.add(bt.a).add(bt.b);
  const models = [...names].sort();
  const mi = new Map(models.map((m, k) => [m, k]));
  const clusterIndex = new Map<string | number, number>();
  const [a, b, cluster] = [new Int32Array(N), new Int32Array(N), new Int32Array(N)];
  const y = new Float64Array(N);
  const sa = features.map(() => new Float64Array(N));
  const sb = features.map(() => new Float64Array(N));
  for (let n = 0; n < N; n++) {
    const bt = battles[n]!;
    let c = clusterIndex.get(bt.cluster);
    if (c === undefined) clusterIndex.set(bt.cluster, (c = clusterIndex.size));
    cluster[n] = c;
    a[n] = mi.get(bt.a)!;
    b[n] = mi.get(bt.b)!;
    y[n] = bt.score;
    for (let k = 0; k < features.length; k++) {
      sa[k]![n] = bt.styleA[features[k]!];
      sb[k]![n] = bt.styleB[features[k]!];
    }
  }
  return { models, a, b, y, clusters: [...clusterIndex.keys()], cluster, features, sa, sb };
}

function styleDesign(cols: BattleColumns, features: StyleFeature[]): StyleDesign {
  const N = cols.y.length;
  const kept: StyleFeature[] = [];
  const constant: StyleFeature[] = [];
  const zs: Float64Array[] = [];
  for (const f of features) {
    const sa = cols.sa[cols.features.indexOf(f)]!;
    const sb = cols.sb[cols.features.indexOf(f)]!;
    const v = new Float64Array(N);
    for (let n = 0; n < N; n++) v[n] = (sa[n]! - sb[n]!) / (sa[n]! + sb[n]! + 1);
    // standardised over both orientations of every battle (a vs b and b vs a): mean 0, sd = the root mean
    // square. FastChat centres on the observed mean, which is ~0 only because Chatbot Arena's sides are
    // random; here a pair's model 1 is always the same model, so centring would turn "equal style" into
    // "the average style gap" and credit that gap to the ratings.
    let ss = 0;
    for (let n = 0; n < N; n++) ss += v[n]! * v[n]!;
    const sd = Math.sqrt(ss / N);
    if (!(sd > 1e-12)) {
      constant.push(f);
      continue;
    }
    kept.push(f);
    for (let n = 0; n < N; n++) v[n] = v[n]! / sd;
    zs.push(v);
  }
  const k = kept.length;
  const x = new Float64Array(N * k);
  for (let n = 0; n < N; n++) for (let f = 0; f < k; f++) x[n * k + f] = zs[f]![n]!;
  const { models, a, b, y, clusters, cluster } = cols;
  return { models, features: kept, constant, a, b, y, x, clusters, cluster };
}

/** Intervals and Rank (UB) are null on too few questions (style-small.ts) */
interface StyleRow {
  model: string;
  /** style-controlled rating with its interval and Rank (UB) */
  rating: number;
  lo: number | null;
  hi: number | null;
  rank: number | null;
  /** plain Bradley–Terry (no style terms, no penalty) from the same battles, its interval and Rank (UB) */
  rawRating: number;
  rawLo: number | null;
  rawHi: number | null;
  rawRank: number | null;
}

interface StyleCoefficient {
  lo: number | null;
  hi: number | null;
  feature: StyleFeature;
  /** log-odds of winning per standard deviation of the feature's normalised difference */
  coefficient: number;
  /** its standard error, clustered by question (sandwich; see styleSandwichSe) */
  se: number;
  support: FeatureSupport;
}

/** How much of the data carries a feature: what its coefficient rests on. */
interface FeatureSupport {
  /** distinct answers (model and question) with the feature */
  answers: number;
  /** distinct questions with a battle whose two answers differ in the feature */
  questions: number;
  /** decisive battles that differ in the feature, won (lost) by the answer with more of it */
  won: number;
  lost: number;
}

/**
 * The least support a feature needs for a coefficient: with fewer answers, questions, or decisive battles
 * on either side of the difference, the estimate is set by a handful of verdicts (or by the penalty alone,
 * when the answers carrying it all won or all lost) and is reported as not estimable instead.
 */
export const MIN_FEATURE_SUPPORT = { answers: 10, questions: 5, won: 5, lost: 5 } as const;

/** The support of each of the columns' features (answers, questions, decisive battles on either side). */
function featureSupports(cols: BattleColumns): FeatureSupport[] {
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
  return cols.features.map((_, i) => {
    const [sa, sb] = [cols.sa[i]!, cols.sb[i]!];
    const answers = new Uint8Array(M * T);
    const questions = new Uint8Array(Q);
    const o = { answers: 0, questions: 0, won: 0, lost: 0 };
    for (let r = 0; r < N; r++) {
      const t = qText[cols.cluster[r]!]!;
      const ka = cols.a[r]! * T + t;
      const kb = cols.b[r]! * T + t;
      if (sa[r]! > 0 && !answers[ka]) ((answers[ka] = 1), o.answers++);
      if (sb[r]! > 0 && !answers[kb]) ((answers[kb] = 1), o.answers++);
      const d = sa[r]! - sb[r]!;
      if (!d) continue;
      const q = cols.cluster[r]!;
      if (!questions[q]) ((questions[q] = 1), o.questions++);
      const y = cols.y[r]!;
      if (y === 0.5) continue;
      if (d > 0 === (y === 1)) o.won++;
      else o.lost++;
    }
    return o;
  });
}

/** Why a feature with this support is not estimable, or undefined when it is. */
function supportShortfall(s: FeatureSupport, min = MIN_FEATURE_SUPPORT): string | undefined {
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

export interface StyleResult {
  features: StyleCoefficient[];
  /** asked for but constant over these battles: no coefficient */
  constant: StyleFeature[];
  /** asked for but with too little support (MIN_FEATURE_SUPPORT): left out of the fit, with the reason */
  notEstimableFeatures: { feature: StyleFeature; reason: string; support: FeatureSupport }[];
  rows: StyleRow[];
  battles: number;
  reg: number;
  level: number;
  /** how the intervals were made: percentile of the question bootstrap (`rounds` rounds), or the sandwich (0) */
  intervals: StyleIntervals;
  rounds: number;
  seed: number;
}

/** bootstrap: percentile intervals of refits on resampled questions; sandwich: ± t · the clustered sandwich se */
export type StyleIntervals = 'bootstrap' | 'sandwich';

/**
 * Style-controlled ratings and coefficients beside plain Bradley–Terry, each with percentile intervals
 * from the same question-level bootstrap (all battles of a question move together; features keep
 * their full-data standardisation, as FastChat's bootstrap does), or with `intervals: 'sandwich'` from the
 * question-clustered sandwich of the one fit (style-sandwich.ts).
 */
export function styleControl(
  battles: StyleBattle[],
  groups: StyleGroup[],
  o: { reg?: number; rounds?: number; level?: number; seed?: number; intervals?: StyleIntervals } = {},
): StyleResult {
  const asked = [...new Set(groups.flatMap((g) => STYLE_GROUPS[g]))] as StyleFeature[];
  const cols = battleColumns(battles, asked);
  const supports = featureSupports(cols);
  const support = new Map(asked.map((f, k) => [f, supports[k]!]));
  const notEstimableFeatures = asked.flatMap((f) => {
    const s = support.get(f)!;
    // a feature that never differs is reported as constant, not as unsupported
    if (!s.questions) return [];
    const reason = supportShortfall(s);
    return reason ? [{ feature: f, reason, support: s }] : [];
  });
  const features = asked.filter((f) => !notEstimableFeatures.some((x) => x.feature === f));
  const d = styleDesign(cols, features);
  const raw: StyleDesign = { ...d, features: [], x: new Float64Array(0) };
  const reg = o.reg ?? STYLE_REG;
  const level = o.level ?? DEFAULT_LEVEL;
  const rounds = o.intervals === 'sandwich' ? 0 : (o.rounds ?? DEFAULT_ROUNDS);
  const seed = o.seed ?? DEFAULT_SEED;
  const n = d.models.length;
  const k = d.features.length;
  // plain Bradley–Terry: the same Newton solver without features and with a negligible penalty (it only
  // keeps the solve well posed; the ratings equal the unpenalised maximum-likelihood fit to ~1e-5 points)
  const RAW_REG = 1e-8;
  const full = fitStyle(d, { reg });
  const fullRaw = fitStyle(raw, { reg: RAW_REG });
  // ratings are shown centred on the models seen on >= MIN_QUESTIONS questions (as arena intervals centres
  // them): a sparse model that runs off in a round (it won or lost all its games there) drags no one else
  const C = d.clusters.length;
  const seen = new Uint8Array(n * C);
  const seenCount = new Int32Array(n);
  const see = (m: number, c: number) => {
    if (!seen[m * C + c]) ((seen[m * C + c] = 1), seenCount[m]!++);
  };
  for (let r = 0; r < d.a.length; r++) (see(d.a[r]!, d.cluster[r]!), see(d.b[r]!, d.cluster[r]!));
  const anchored = d.models.map((_, m) => seenCount[m]! >= MIN_QUESTIONS);
  const anchor = anchored.some(Boolean) ? anchored : anchored.map(() => true);
  const shiftOf = (x: Float64Array) => {
    let sum = 0;
    let c = 0;
    for (let m = 0; m < n; m++) if (anchor[m]) ((sum += x[m]!), c++);
    return sum / c;
  };
  const fullShift = shiftOf(full);
  const fullRawShift = shiftOf(fullRaw);
  const bootstrap = () => {
    const weights = new Float64Array(d.y.length);
    const samples = clusterBootstrap(
      d.clusters.length,
      (counts) => {
        for (let r = 0; r < weights.length; r++) weights[r] = counts[d.cluster[r]!]!;
        const s = fitStyle(d, { reg, weights, init: full, tol: 1e-8 });
        const sr = fitStyle(raw, { reg: RAW_REG, weights, init: fullRaw, tol: 1e-8 });
        const out = new Float64Array(2 * n + k);
        const sh = shiftOf(s);
        const shr = shiftOf(sr);
        for (let m = 0; m < n; m++) {
          out[m] = INIT + SCALE * (s[m]! - sh);
          out[n + k + m] = INIT + SCALE * (sr[m]! - shr);
        }
        for (let f = 0; f < k; f++) out[n + f] = s[n + f]!;
        return out;
      },
      { rounds, seed },
    );
    return columnIntervals(samples, 2 * n + k, level);
  };
  // the sandwich's pass over the battles gives the coefficients' se as well
  const sw =
    o.intervals === 'sandwich'
      ? styleSandwichIntervals(
          { design: d, theta: full, reg, shift: fullShift },
          { design: raw, theta: fullRaw, reg: RAW_REG, shift: fullRawShift },
          anchor,
          level,
        )
      : undefined;
  const se = sw?.se ?? styleSandwichSe(d, full, reg);
  const iv = sw?.intervals ?? bootstrap();
  const ivStyle = iv.slice(0, n);
  const ivRaw = iv.slice(n + k);
  const rank = ranksFromIntervals(ivStyle);
  const rawRank = ranksFromIntervals(ivRaw);
  const rows = d.models.map((model, m) => ({
    model,
    rating: INIT + SCALE * (full[m]! - fullShift),
    lo: ivStyle[m]!.lo,
    hi: ivStyle[m]!.hi,
    rank: rank[m]!,
    rawRating: INIT + SCALE * (fullRaw[m]! - fullRawShift),
    rawLo: ivRaw[m]!.lo,
    rawHi: ivRaw[m]!.hi,
    rawRank: rawRank[m]!,
  }));
  rows.sort((x, y) => y.rating - x.rating || (x.model < y.model ? -1 : 1));
  return {
    features: d.features.map((feature, f) => ({
      feature,
      coefficient: full[n + f]!,
      se: se[f]!,
      lo: iv[n + f]!.lo,
      hi: iv[n + f]!.hi,
      support: support.get(feature)!,
    })),
    constant: d.constant,
    notEstimableFeatures,
    rows,
    battles: battles.length,
    reg,
    level,
    intervals: o.intervals ?? 'bootstrap',
    rounds,
    seed,
  };
}
