// Position bias: how a judge's verdict depends on which answer it was shown first (FairEval's table).
import { clusterBootstrap, columnIntervals, DEFAULT_LEVEL, type BootstrapOptions } from './bootstrap.ts';
import { signTestP } from './sign-test.ts';
import type { MatchOutcome, MatchGame } from '../types.ts';
import { pairGames } from '../outcomes.ts';
import { toPosition } from '../verdict/parse.ts';
import { fewQuestionsForInterval, MIN_QUESTIONS_FOR_INTERVALS } from './rating-rows.ts';

/** One stored pairwise game as the bias report needs it. */
export interface BiasGame extends MatchGame {
  category: string;
  /** MEC sample index (absent: 0); see stats/slot.ts for which game of a slot counts in conflicts */
  sample?: number;
}

export type BiasDimension = 'pair' | 'category' | 'turn';

export interface BiasRow {
  /** the pair ("model1 vs model2"), or "*" when pairs are pooled */
  pair: string;
  category: string;
  turn: number | '*';
  games: number;
  /** games with an unparsable verdict (left out of every rate) */
  errors: number;
  /** model 1's win rate in the games where it was shown first (as A), and second (as B): wins over all
   * non-error games of that order, so ties are in the denominator (a tie is not a win) */
  winFirst: number | null;
  winSecond: number | null;
  /** percentile intervals of winFirst / winSecond at `level`, questions resampled (null: no games, or fewer
   * than MIN_QUESTIONS_FOR_INTERVALS questions behind the row: see `note`) */
  winFirstLo: number | null;
  winFirstHi: number | null;
  winSecondLo: number | null;
  winSecondHi: number | null;
  level: number;
  /** distinct questions with a parsed game in the row (the bootstrap's clusters) */
  questions: number;
  /** why the row has no interval (too few questions) */
  note?: string;
  /** of the decisive games, the share that picked whichever answer was shown first */
  positionA: number | null;
  /** matches with both orders judged and no error */
  matches: number;
  /** share of those whose two orders disagree */
  conflict: number | null;
  /** of the conflicting matches: both games picked position A / both picked position B / one said tie */
  favoursFirst: number;
  favoursSecond: number;
  withTie: number;
  /** exact two-sided sign test of favoursFirst against favoursSecond (conflicts with a tie left out):
   * the chance of a split at least this uneven if neither position were favoured; null with no such conflict */
  signTestP: number | null;
}

function groupKey(
  g: { model1: string; model2: string; category: string; turn: number },
  by: BiasDimension[],
) {
  return {
    pair: by.includes('pair') ? `${g.model1} vs ${g.model2}` : '*',
    category: by.includes('category') ? g.category : '*',
    turn: by.includes('turn') ? g.turn : ('*' as const),
  };
}

/**
 * The position-bias table from games played in both orders. Several games in one slot (samples) all count as
 * games; a match's conflict uses one game of each order (stats/slot.ts's rule, as outcomes do). Per-order win
 * rates get question-bootstrap percentile intervals.
 */
export function positionBias(
  games: Iterable<BiasGame>,
  by: BiasDimension[] = ['pair'],
  o: BootstrapOptions = {},
): BiasRow[] {
  const level = o.level ?? DEFAULT_LEVEL;
  const rows = new Map<string, { row: BiasRow; t: Tally }>();
  const rowKey = (g: BiasGame) => Object.values(groupKey(g, by)).join('\u0000');
  const list = [...games];
  for (const g of list) {
    const k = groupKey(g, by);
    const key = rowKey(g);
    let r = rows.get(key);
    if (!r) {
      const row: BiasRow = {
        ...k,
        games: 0,
        errors: 0,
        winFirst: null,
        winSecond: null,
        winFirstLo: null,
        winFirstHi: null,
        winSecondLo: null,
        winSecondHi: null,
        level,
        questions: 0,
        positionA: null,
        matches: 0,
        conflict: null,
        favoursFirst: 0,
        favoursSecond: 0,
        withTie: 0,
        signTestP: null,
      };
      const t: Tally = {
        nFirst: 0,
        wFirst: 0,
        nSecond: 0,
        wSecond: 0,
        decisive: 0,
        a: 0,
        conflicts: 0,
        perQuestion: new Map(),
      };
      rows.set(key, (r = { row, t }));
    }
    const { row, t } = r;
    row.games++;
    if (g.verdict === 'error') row.errors++;
    else {
      const first = g.order === 'AB';
      t[first ? 'nFirst' : 'nSecond']++;
      if (g.verdict === 'model_1') t[first ? 'wFirst' : 'wSecond']++;
      let q = t.perQuestion.get(g.questionId);
      if (!q) t.perQuestion.set(g.questionId, (q = [0, 0, 0, 0]));
      q[first ? 0 : 2]!++;
      if (g.verdict === 'model_1') q[first ? 1 : 3]!++;
      const pos = toPosition(g.verdict, g.order);
      if (pos !== 'tie') {
        t.decisive++;
        if (pos === 'A') t.a++;
      }
    }
  }
  for (const m of pairGames(list)) {
    const r = rows.get(rowKey((m.ab ?? m.ba)!))!;
    const ab = m.ab?.verdict;
    const ba = m.ba?.verdict;
    if (ab === undefined || ba === undefined || ab === 'error' || ba === 'error') continue;
    r.row.matches++;
    if (ab === ba) continue;
    r.t.conflicts++;
    const p1 = toPosition(ab, 'AB');
    const p2 = toPosition(ba, 'BA');
    if (p1 === 'tie' || p2 === 'tie') r.row.withTie++;
    else if (p1 === 'A') r.row.favoursFirst++;
    else r.row.favoursSecond++;
  }
  const out = [...rows.values()].map(({ row, t }) => {
    row.winFirst = t.nFirst ? t.wFirst / t.nFirst : null;
    row.winSecond = t.nSecond ? t.wSecond / t.nSecond : null;
    row.positionA = t.decisive ? t.a / t.decisive : null;
    row.conflict = row.matches ? t.conflicts / row.matches : null;
    row.signTestP = signTestP(row.favoursFirst, row.favoursFirst + row.favoursSecond);
    const per = [...t.perQuestion.values()];
    row.questions = per.length;
    if (per.length && per.length < MIN_QUESTIONS_FOR_INTERVALS)
      row.note = fewQuestionsForInterval(per.length);
    else if (per.length) {
      const rate = (w: Float64Array, n: number, x: number) => {
        let num = 0;
        let den = 0;
        per.forEach((q, c) => {
          num += w[c]! * q[x]!;
          den += w[c]! * q[n]!;
        });
        return den ? num / den : NaN;
      };
      const rates = (w: Float64Array) => [rate(w, 0, 1), rate(w, 2, 3)];
      const [f, s] = columnIntervals(clusterBootstrap(per.length, rates, o), 2, level);
      if (row.winFirst !== null) [row.winFirstLo, row.winFirstHi] = [f!.lo, f!.hi];
      if (row.winSecond !== null) [row.winSecondLo, row.winSecondHi] = [s!.lo, s!.hi];
    }
    return row;
  });
  return sortRows(out);
}

interface Tally {
  nFirst: number;
  wFirst: number;
  nSecond: number;
  wSecond: number;
  decisive: number;
  a: number;
  conflicts: number;
  /** per question: [games first, model-1 wins first, games second, model-1 wins second] */
  perQuestion: Map<number, number[]>;
}

export interface ConflictRow {
  pair: string;
  category: string;
  turn: number | '*';
  /** matches with a combined outcome (errors left out) */
  matches: number;
  inconsistent: number;
  /** inconsistent / matches: the share whose two orders disagreed */
  conflict: number | null;
  ties: number;
}

/**
 * The conflict rate from recorded combined outcomes (the MT-Bench release's gpt4_pair split has no
 * per-order games, only model_a / model_b / tie / inconsistent), so per-order win rates are not known.
 */
export function conflictFromOutcomes(
  outcomes: Iterable<MatchOutcome & { category: string }>,
  by: BiasDimension[] = [],
): ConflictRow[] {
  const rows = new Map<string, ConflictRow>();
  for (const o of outcomes) {
    if (o.outcome === 'error') continue;
    const [m1, m2] = o.model1 < o.model2 ? [o.model1, o.model2] : [o.model2, o.model1];
    const k = groupKey({ model1: m1, model2: m2, category: o.category, turn: o.turn }, by);
    const key = `${k.pair}\u0000${k.category}\u0000${k.turn}`;
    let r = rows.get(key);
    if (!r) rows.set(key, (r = { ...k, matches: 0, inconsistent: 0, conflict: null, ties: 0 }));
    r.matches++;
    if (o.outcome === 'inconsistent') r.inconsistent++;
    if (o.outcome === 'tie') r.ties++;
  }
  for (const r of rows.values()) r.conflict = r.matches ? r.inconsistent / r.matches : null;
  return sortRows([...rows.values()]);
}

function sortRows<T extends { pair: string; category: string; turn: number | '*' }>(rows: T[]): T[] {
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return rows.sort(
    (a, b) => cmp(a.pair, b.pair) || cmp(a.category, b.category) || cmp(String(a.turn), String(b.turn)),
  );
}
