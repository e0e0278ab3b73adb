// How a judge behaves, from its stored games, as rates with question-bootstrap intervals: position consistency,
// first-position preference, error, tie and longer-answer rates, as the judge leaderboard shows them. Pure.
import { toPosition } from '../verdict/parse.ts';
import { clusterBootstrap, columnIntervals, DEFAULT_LEVEL, type BootstrapOptions } from './bootstrap.ts';
import type { Outcome, MatchGame } from '../types.ts';
import { pairGames } from '../outcomes.ts';

/** One stored pairwise game as the board needs it. */
export interface BoardGame extends MatchGame {
  /** lengths in characters of the two answers to the judged turn (undefined when not stored) */
  len1?: number;
  len2?: number;
}

/** A rate with its interval; `n` is its denominator. `value` is null when nothing was measured. */
export interface Rate {
  value: number | null;
  lo: number | null;
  hi: number | null;
  n: number;
}

export interface BehaviourRates {
  /** matches with both orders parsed whose two verdicts agree */
  consistency: Rate;
  /** of decisive games, the share that picked the answer shown first */
  firstPosition: Rate;
  errorRate: Rate;
  /** of parsed games, the share that said tie */
  tieRate: Rate;
  /** of decisive games between answers of different length, the share for the longer one */
  longerShare: Rate;
}

const STATS = ['consistency', 'firstPosition', 'errorRate', 'tieRate', 'longerShare'] as const;

/**
 * Ratios of sums per question: every statistic is (sum of numerators) / (sum of denominators), so a
 * bootstrap round reweights whole questions (all games of a question move together).
 */
function ratioRates<K extends string>(
  names: readonly K[],
  clusters: Map<number | string, Float64Array>,
  o: BootstrapOptions = {},
): Record<K, Rate> {
  const rows = [...clusters.values()];
  const w = names.length;
  const ratio = (weights?: Float64Array) => {
    const sum = new Float64Array(2 * w);
    rows.forEach((r, i) => {
      const x = weights ? weights[i]! : 1;
      if (x) for (let k = 0; k < 2 * w; k++) sum[k]! += x * r[k]!;
    });
    return names.map((_, k) => (sum[2 * k + 1]! ? sum[2 * k]! / sum[2 * k + 1]! : NaN));
  };
  const point = ratio();
  const iv = rows.length
    ? columnIntervals(clusterBootstrap(rows.length, ratio, o), w, o.level ?? DEFAULT_LEVEL)
    : [];
  const total = (k: number) => rows.reduce((s, r) => s + r[2 * k + 1]!, 0);
  const fin = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x : null);
  return Object.fromEntries(
    names.map((n, k) => [n, { value: fin(point[k]), lo: fin(iv[k]?.lo), hi: fin(iv[k]?.hi), n: total(k) }]),
  ) as Record<K, Rate>;
}

/** The behaviour rates of one judge's games, with intervals that resample questions. */
export function behaviourRates(games: BoardGame[], o: BootstrapOptions = {}): BehaviourRates {
  const w = STATS.length;
  const clusters = new Map<number, Float64Array>();
  const at = (q: number) => {
    let c = clusters.get(q);
    if (!c) clusters.set(q, (c = new Float64Array(2 * w)));
    return c;
  };
  const add = (c: Float64Array, stat: (typeof STATS)[number], num: number) => {
    const k = STATS.indexOf(stat);
    c[2 * k]! += num;
    c[2 * k + 1]! += 1;
  };
  // every game counts in the game rates; a match's consistency is read from its pair (as outcomes pair them)
  for (const g of games) {
    const c = at(g.questionId);
    add(c, 'errorRate', Number(g.verdict === 'error'));
    if (g.verdict !== 'error') add(c, 'tieRate', Number(g.verdict === 'tie'));
    const p = toPosition(g.verdict, g.order);
    if (p === 'A' || p === 'B') add(c, 'firstPosition', Number(p === 'A'));
    if ((p === 'A' || p === 'B') && g.len1 !== undefined && g.len2 !== undefined && g.len1 !== g.len2)
      add(c, 'longerShare', Number((g.verdict === 'model_1') === g.len1 > g.len2));
  }
  for (const { questionId, ab, ba } of pairGames(games)) {
    if (!ab || !ba || ab.verdict === 'error' || ba.verdict === 'error') continue;
    add(at(questionId), 'consistency', Number(ab.verdict === ba.verdict));
  }
  return ratioRates(STATS, clusters, o);
}

/** Consistency and the longer-answer share from recorded match outcomes (a judge known only by its combined verdicts). */
export function recordedRates(
  outcomes: { questionId: number; outcome: Outcome; len1?: number; len2?: number }[],
  o: BootstrapOptions = {},
): Pick<BehaviourRates, 'consistency' | 'longerShare'> {
  const names = ['consistency', 'longerShare'] as const;
  const clusters = new Map<number, Float64Array>();
  for (const m of outcomes) {
    if (m.outcome === 'error') continue;
    let c = clusters.get(m.questionId);
    if (!c) clusters.set(m.questionId, (c = new Float64Array(4)));
    c[0]! += Number(m.outcome !== 'inconsistent');
    c[1]! += 1;
    if (
      (m.outcome === 'model_1' || m.outcome === 'model_2') &&
      m.len1 !== undefined &&
      m.len2 !== undefined &&
      m.len1 !== m.len2
    ) {
      c[2]! += Number((m.outcome === 'model_1') === m.len1 > m.len2);
      c[3]! += 1;
    }
  }
  return ratioRates(names, clusters, o);
}

/** Rank 1 + the number of entries whose interval lies wholly above this one's (null values are unranked). */
export function ranksWithIntervals(
  xs: { value: number | null; lo: number | null; hi: number | null }[],
): (number | null)[] {
  return xs.map((x) =>
    x.value === null
      ? null
      : 1 +
        xs.filter((y) => y !== x && y.value !== null && y.lo !== null && x.hi !== null && y.lo > x.hi).length,
  );
}
