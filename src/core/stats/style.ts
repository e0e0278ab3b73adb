// Style control: a contextual Bradley–Terry model with answer-style features, as Chatbot Arena and Arena-Hard
// control for style (FastChat's compute_style_control): P(a wins) = σ(ln10 · (r_a − r_b) + Σ_f β_f x_f), x_f the
// z-scored style difference of feature f (styleDesign), ties half a win, fitted with FastChat's L2 penalty
// (reg = 0.5: half of scikit-learn's C = 1, as FastChat no longer duplicates every battle). Pure.
import {
  clusterBootstrap,
  columnIntervals,
  DEFAULT_LEVEL,
  DEFAULT_ROUNDS,
  DEFAULT_SEED,
  ranksFromIntervals,
  type Interval,
} from './bootstrap.ts';
import { intervalsWithheld, MIN_QUESTIONS, type IntervalsWithheld } from './rating-rows.ts';
import { fitBradleyTerry, INIT, SCALE, type CollapsedBattles } from '../ratings.ts';
import { battleTable, questionsPerModel, resamplePairs, type BattleTable } from './battle-table.ts';
import { sandwichCovariance, sandwichVariances } from './sandwich.ts';
import { tQuantile } from './normal.ts';
import {
  battleColumns,
  featureSupports,
  styleDesign,
  supportShortfall,
  type FeatureSupport,
  type StyleDesign,
} from './style-columns.ts';
import { fitStyle, fitStyleScores } from './style-fit.ts';

export { MIN_FEATURE_SUPPORT } from './style-columns.ts';

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

/** Intervals and Rank (UB) are null on too few questions (styleControlChecked) */
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
  /** its standard error, clustered by question (the sandwich of the one fit) */
  se: number;
  support: FeatureSupport;
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

export type StyleOptions = {
  reg?: number;
  rounds?: number;
  level?: number;
  seed?: number;
  intervals?: StyleIntervals;
};

export interface CheckedStyleResult extends StyleResult {
  /** set when the battles rest on fewer than MIN_QUESTIONS_FOR_INTERVALS questions: no interval, and why */
  intervalsWithheld?: IntervalsWithheld;
}

/** styleControl with the small-sample rule: below MIN_QUESTIONS_FOR_INTERVALS questions, no interval, and why. */
export function styleControlChecked(
  battles: StyleBattle[],
  groups: StyleGroup[],
  o: StyleOptions = {},
): CheckedStyleResult {
  const withheld = intervalsWithheld(new Set(battles.map((b) => b.cluster)).size);
  if (!withheld) return styleControl(battles, groups, o);
  const r = styleControl(battles, groups, { ...o, rounds: 0 });
  const none = { lo: null, hi: null };
  return {
    ...r,
    rows: r.rows.map((row) => ({ ...row, ...none, rank: null, rawLo: null, rawHi: null, rawRank: null })),
    features: r.features.map((f) => ({ ...f, ...none })),
    intervalsWithheld: withheld,
  };
}

/**
 * Style-controlled ratings and coefficients beside plain Bradley–Terry, with percentile intervals from one question
 * bootstrap (features keep their full-data standardisation, as FastChat's bootstrap does), or with `intervals:
 * 'sandwich'` from the question-clustered sandwich of the one fit (no refits).
 */
export function styleControl(
  battles: StyleBattle[],
  groups: StyleGroup[],
  o: StyleOptions = {},
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
  const reg = o.reg ?? STYLE_REG;
  const level = o.level ?? DEFAULT_LEVEL;
  const rounds = o.intervals === 'sandwich' ? 0 : (o.rounds ?? DEFAULT_ROUNDS);
  const seed = o.seed ?? DEFAULT_SEED;
  const n = d.models.length;
  const k = d.features.length;
  // plain Bradley–Terry of the same battles, as `arena ratings` fits it (ratings.ts); the contextual fit starts
  // from its ratings (mean 0, as the contextual fit's rating steps keep them)
  const table = battleTable(battles, { models: d.models, clusters: d.clusters });
  const plain = fitBradleyTerry(table.pairs);
  const fullRaw = Float64Array.from(plain, (r) => (r - INIT) / SCALE);
  const init = new Float64Array(n + k);
  init.set(fullRaw);
  // its last pass gives the coefficients' sandwich (and, with --intervals sandwich, every rating's)
  const fit = fitStyleScores(d, { reg, init });
  const full = fit.theta;
  // the models a rating is centred on: those seen on >= MIN_QUESTIONS questions (as arena intervals centres
  // them), so a sparse model that runs off in a round drags no one else; all when none is
  const seen = questionsPerModel(table).map((q) => q >= MIN_QUESTIONS);
  const anchor = seen.some(Boolean) ? seen : seen.map(() => true);
  const anchored = anchor.filter(Boolean).length;
  const shiftOf = (x: Float64Array) => {
    let sum = 0;
    let c = 0;
    for (let m = 0; m < n; m++) if (anchor[m]) ((sum += x[m]!), c++);
    return sum / c;
  };
  const fullShift = shiftOf(full);
  const fullRawShift = shiftOf(fullRaw);
  // the sandwich of the one fit: each rating centred on the anchored models (θ_m − mean_anchor θ), then each
  // coefficient
  const v = sandwichVariances(
    fit.H,
    fit.S,
    d.clusters.length,
    Array.from({ length: n + k }, (_, p) => {
      const c = new Float64Array(n + k);
      if (p < n) for (let a = 0; a < n; a++) if (anchor[a]) c[a] = -1 / anchored;
      c[p]! += 1;
      return c;
    }),
  );
  const se = Float64Array.from({ length: k }, (_, f) => Math.sqrt(v[n + f]!));
  const t = tQuantile(1 - (1 - level) / 2, d.clusters.length - 1);
  const iv =
    o.intervals === 'sandwich'
      ? [
          ...Array.from({ length: n }, (_, m) => {
            const r = INIT + SCALE * (full[m]! - fullShift);
            const h = t * SCALE * Math.sqrt(v[m]!);
            return { lo: r - h, hi: r + h };
          }),
          ...Array.from({ length: k }, (_, f) => {
            const h = t * Math.sqrt(v[n + f]!);
            return { lo: full[n + f]! - h, hi: full[n + f]! + h };
          }),
          ...plainSandwich(table, anchor, level),
        ]
      : styleBootstrap(d, table, { reg, full, plain, shiftOf }, { rounds, seed, level });
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

/** The plain ratings' intervals from sandwich.ts's question-clustered covariance (± t(Q − 1) · se). */
function plainSandwich(table: BattleTable, anchor: boolean[], level: number): Interval[] {
  const { ratings, covariance, clusters } = sandwichCovariance(table, 'question', 0, anchor);
  const n = ratings.length;
  const t = tQuantile(1 - (1 - level) / 2, clusters - 1);
  return Array.from(ratings, (r, m) => {
    const h = t * Math.sqrt(covariance[m * n + m]!);
    return { lo: r - h, hi: r + h };
  });
}

/**
 * Percentile intervals from the question bootstrap, in the columns n controlled ratings, k coefficients, n plain
 * ratings: each round refits both models, warm-started from the full fits.
 */
function styleBootstrap(
  d: StyleDesign,
  table: BattleTable,
  fits: { reg: number; full: Float64Array; plain: Float64Array; shiftOf: (x: Float64Array) => number },
  o: { rounds: number; seed: number; level: number },
): Interval[] {
  const { reg, full, plain, shiftOf } = fits;
  const n = d.models.length;
  const k = d.features.length;
  const weights = new Float64Array(d.y.length);
  const np = table.pairs.i.length;
  const round: CollapsedBattles = { ...table.pairs, w: new Float64Array(np), s: new Float64Array(np) };
  const samples = clusterBootstrap(
    d.clusters.length,
    (counts) => {
      for (let r = 0; r < weights.length; r++) weights[r] = counts[d.cluster[r]!]!;
      const s = fitStyle(d, { reg, weights, init: full, tol: 1e-8 });
      const sr = fitBradleyTerry(resamplePairs(table, counts, round), undefined, { init: plain, tol: 1e-8 });
      const out = new Float64Array(2 * n + k);
      const sh = shiftOf(s);
      const shr = shiftOf(sr);
      for (let m = 0; m < n; m++) {
        out[m] = INIT + SCALE * (s[m]! - sh);
        out[n + k + m] = INIT + (sr[m]! - shr);
      }
      for (let f = 0; f < k; f++) out[n + f] = s[n + f]!;
      return out;
    },
    { rounds: o.rounds, seed: o.seed },
  );
  return columnIntervals(samples, 2 * n + k, o.level);
}
