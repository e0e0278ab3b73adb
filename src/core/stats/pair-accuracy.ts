// Accuracy of a judge on a labelled pair set (LLMBar's shape): each item has a gold label (which output
// is better) and the judge's two games (AB: output_1 shown first; BA: swapped, verdict mapped back). Pure.
import {
  clusterBootstrap,
  columnIntervals,
  DEFAULT_LEVEL,
  DEFAULT_ROUNDS,
  DEFAULT_SEED,
  drawClusterCounts,
  percentileInterval,
  type BootstrapOptions,
  type Interval,
} from './bootstrap.ts';
import { seededRng } from './random.ts';
import { kappaFromConfusion } from './kappa.ts';
import type { Order, Verdict } from '../types.ts';

/** One labelled item: its id and which output is better. */
export interface LabelledItem {
  questionId: number;
  gold: 'model_1' | 'model_2';
}

/** A judge's game on a labelled item: only the item and the order matter (a match's game is a MatchGame). */
export interface LabelledGame {
  questionId: number;
  order: Order;
  verdict: Verdict;
}

/** The categories a verdict falls in for kappa: an unparsed verdict is its own category. */
const CATS: Verdict[] = ['model_1', 'model_2', 'tie', 'error'];
const K = CATS.length;

export interface AccuracyRow {
  set: string;
  judge: string;
  /** the prompt scheme of the games (a judge run with two schemes gets a row for each) */
  prompt: string;
  /** items with both orders judged (the denominator of every rate) */
  total: number;
  /** items of the set without a game in one order or both (left out) */
  missing: number;
  correctAB: number;
  correctBA: number;
  correctBoth: number;
  /** items whose two orders gave the same verdict (two errors agree, as in LLMBar's count) */
  agreeOrders: number;
  /** games whose verdict did not parse */
  errors: number;
  /** Cohen's kappa of each order's verdicts against the label, and of one order against the other */
  kappaAB: number | null;
  kappaBA: number | null;
  kappaOrders: number | null;
  /** correctAB/total, correctBA/total, their mean, correctBoth/total, agreeOrders/total */
  accuracyAB: number | null;
  accuracyBA: number | null;
  accuracy: number | null;
  accuracyBoth: number | null;
  agreeRate: number | null;
  /** percentile bootstrap intervals over items, at `level` */
  intervals: Record<(typeof ACCURACY_STATS)[number], Interval>;
  level: number;
}

interface Paired {
  gold: number;
  ab: number;
  ba: number;
}

const idx = (v: Verdict) => {
  const i = CATS.indexOf(v);
  return i < 0 ? K - 1 : i;
};

/** The rates and kappas of paired items, each item weighted by w (its bootstrap multiplicity). */
function stats(items: Paired[], w?: Float64Array): number[] {
  const ab = new Float64Array(K * K);
  const ba = new Float64Array(K * K);
  const ord = new Float64Array(K * K);
  let n = 0;
  let cAB = 0;
  let cBA = 0;
  let both = 0;
  let agree = 0;
  for (let i = 0; i < items.length; i++) {
    const x = w ? w[i]! : 1;
    if (!x) continue;
    const it = items[i]!;
    n += x;
    ab[it.ab * K + it.gold]! += x;
    ba[it.ba * K + it.gold]! += x;
    ord[it.ab * K + it.ba]! += x;
    if (it.ab === it.gold) cAB += x;
    if (it.ba === it.gold) cBA += x;
    if (it.ab === it.gold && it.ba === it.gold) both += x;
    if (it.ab === it.ba) agree += x;
  }
  return [
    cAB / n,
    cBA / n,
    (cAB + cBA) / 2 / n,
    both / n,
    agree / n,
    kappaFromConfusion(ab, K),
    kappaFromConfusion(ba, K),
    kappaFromConfusion(ord, K),
  ];
}

const finite = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x : null);

/** The rates and kappas of an accuracy row, in its column order; each has an interval in `intervals`. */
export const ACCURACY_STATS = [
  'accuracyAB',
  'accuracyBA',
  'accuracy',
  'accuracyBoth',
  'agreeRate',
  'kappaAB',
  'kappaBA',
  'kappaOrders',
] as const;

/** Each item with both orders judged, paired with its label; the rest counted as missing. */
function pairItems(
  items: LabelledItem[],
  games: Iterable<LabelledGame>,
): { paired: Paired[]; missing: number; errors: number } {
  const byItem = new Map<number, { ab?: Verdict; ba?: Verdict }>();
  for (const g of games) {
    const e = byItem.get(g.questionId) ?? {};
    if (g.order === 'AB') e.ab = g.verdict;
    else e.ba = g.verdict;
    byItem.set(g.questionId, e);
  }
  const paired: Paired[] = [];
  let missing = 0;
  let errors = 0;
  for (const it of items) {
    const e = byItem.get(it.questionId);
    if (!e || e.ab === undefined || e.ba === undefined) {
      missing++;
      continue;
    }
    errors += Number(e.ab === 'error') + Number(e.ba === 'error');
    paired.push({ gold: idx(it.gold), ab: idx(e.ab), ba: idx(e.ba) });
  }
  return { paired, missing, errors };
}

/** Accuracy (the mean of the two orders) of paired items, each weighted by w (its bootstrap multiplicity). */
const meanAccuracy = (items: Paired[], w?: Float64Array): number => stats(items, w)[2]!;

export interface FamilyAccuracy {
  /** items with both orders judged, over the family's sets */
  total: number;
  /** sets with at least one such item: the sets averaged */
  sets: number;
  /** the mean of the sets' accuracies, each set weighing the same (how LLMBar's paper reports a family) */
  accuracy: number | null;
  /** the accuracy over the family's items pooled (a large set weighs more) */
  pooledAccuracy: number | null;
  /** percentile interval of `accuracy` from a stratified bootstrap: each set's items drawn on their own */
  lo: number;
  hi: number;
}

/**
 * A family of sets (LLMBar's Adversarial: Neighbor, GPTInst, GPTOut, Manual) as its paper reports it: the
 * mean of the sets' accuracies, with a stratified item bootstrap, and the pooled accuracy beside it.
 */
export function familyAccuracy(
  members: { items: LabelledItem[]; games: Iterable<LabelledGame> }[],
  o: BootstrapOptions = {},
): FamilyAccuracy {
  const strata = members.map((m) => pairItems(m.items, m.games).paired).filter((p) => p.length);
  const total = strata.reduce((n, p) => n + p.length, 0);
  if (!strata.length) return { total, sets: 0, accuracy: null, pooledAccuracy: null, lo: NaN, hi: NaN };
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rng = seededRng(o.seed ?? DEFAULT_SEED);
  const buffers = strata.map((p) => new Float64Array(p.length));
  const rounds: number[] = [];
  for (let b = 0; b < (o.rounds ?? DEFAULT_ROUNDS); b++)
    rounds.push(mean(strata.map((p, k) => meanAccuracy(p, drawClusterCounts(rng, p.length, buffers[k]!)))));
  return {
    total,
    sets: strata.length,
    accuracy: mean(strata.map((p) => meanAccuracy(p))),
    pooledAccuracy: meanAccuracy(strata.flat()),
    ...percentileInterval(rounds, o.level ?? DEFAULT_LEVEL),
  };
}

/**
 * One row for a judge on a set. The latest game of each order counts (as outcomes do); an item
 * without both games is `missing`, not wrong.
 */
export function accuracyRow(
  set: string,
  judge: string,
  prompt: string,
  items: LabelledItem[],
  games: Iterable<LabelledGame>,
  o: BootstrapOptions = {},
): AccuracyRow {
  const level = o.level ?? DEFAULT_LEVEL;
  const { paired, missing, errors } = pairItems(items, games);
  const total = paired.length;
  const count = (f: (p: Paired) => boolean) => paired.filter(f).length;
  const point = total ? stats(paired) : [];
  const n = ACCURACY_STATS.length;
  const iv = total
    ? columnIntervals(
        clusterBootstrap(total, (w) => stats(paired, w), o),
        n,
        level,
      )
    : ACCURACY_STATS.map(() => ({ lo: NaN, hi: NaN }));
  const intervals = Object.fromEntries(ACCURACY_STATS.map((s, i) => [s, iv[i]!])) as AccuracyRow['intervals'];
  return {
    set,
    judge,
    prompt,
    total,
    missing,
    correctAB: count((p) => p.ab === p.gold),
    correctBA: count((p) => p.ba === p.gold),
    correctBoth: count((p) => p.ab === p.gold && p.ba === p.gold),
    agreeOrders: count((p) => p.ab === p.ba),
    errors,
    kappaAB: finite(point[5]),
    kappaBA: finite(point[6]),
    kappaOrders: finite(point[7]),
    accuracyAB: finite(point[0]),
    accuracyBA: finite(point[1]),
    accuracy: finite(point[2]),
    accuracyBoth: finite(point[3]),
    agreeRate: finite(point[4]),
    intervals,
    level,
  };
}
