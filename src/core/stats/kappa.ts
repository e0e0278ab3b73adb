// Cohen's kappa: agreement corrected for chance, beside FastChat's S1/S2 agreement ratios.
import type { AgreementSetup, Comparison, Label } from './agreement.ts';
export { comparisons, type Comparison } from './agreement.ts';
import { clusterBootstrap, columnIntervals, DEFAULT_LEVEL, type BootstrapOptions } from './bootstrap.ts';

const LABELS: Label[] = ['a', 'b', 'tie'];

/** Cohen's kappa from a k×k confusion matrix (row: rater 1, column: rater 2). NaN when undefined (no items, or chance agreement 1). */
export function kappaFromConfusion(m: ArrayLike<number>, k: number): number {
  let n = 0;
  let agree = 0;
  const row = new Float64Array(k);
  const col = new Float64Array(k);
  for (let i = 0; i < k; i++)
    for (let j = 0; j < k; j++) {
      const x = m[i * k + j]!;
      n += x;
      row[i]! += x;
      col[j]! += x;
      if (i === j) agree += x;
    }
  if (!n) return NaN;
  let pe = 0;
  for (let i = 0; i < k; i++) pe += (row[i]! / n) * (col[i]! / n);
  const po = agree / n;
  // chance agreement 1 (both raters always give the same single label): kappa is 0/0, undefined, not 1
  if (pe >= 1 - 1e-12) return NaN;
  return (po - pe) / (1 - pe);
}

/** Cohen's kappa of two raters' labels on the same items. */
export function cohensKappa<T>(pairs: Iterable<[T, T]>): number {
  const cats = new Map<T, number>();
  const list = [...pairs];
  for (const [x, y] of list) for (const v of [x, y]) if (!cats.has(v)) cats.set(v, cats.size);
  const k = cats.size;
  const m = new Float64Array(k * k);
  for (const [x, y] of list) m[cats.get(x)! * k + cats.get(y)!]!++;
  return kappaFromConfusion(m, k);
}

export interface KappaRow {
  turn: number;
  category: string;
  setup: AgreementSetup;
  /** comparisons (for the same judge twice: unordered pairs of votes) */
  total: number;
  agree: number;
  ratio: number;
  /** NaN when undefined (chance agreement 1: both sides always gave one and the same label) */
  kappa: number;
  /** bootstrap percentile interval of kappa, questions resampled; null when the row rests on fewer than
   * MIN_KAPPA_QUESTIONS questions (too few clusters for a percentile interval) or kappa is undefined */
  lo: number | null;
  hi: number | null;
  level: number;
  /** distinct questions (the bootstrap's clusters) behind the row */
  questions: number;
  /** bootstrap rounds in which kappa was undefined (counted, left out of the interval) */
  nanRounds: number;
  /** why there is no interval, or what to keep in mind */
  note?: string;
}

/**
 * Fewer questions than this and a question-bootstrap percentile interval of kappa is not trustworthy
 * (with 10 questions it piles up at the boundary, e.g. [0.769, 1]): such rows get no interval, only a note.
 */
export const MIN_KAPPA_QUESTIONS = 30;

/**
 * Agreement and kappa per turn (and per category when `categoryOf` is given, plus an "all" row), with
 * question-level bootstrap intervals. S2 ("without-tie") drops comparisons in which either side is a tie.
 */
export function kappaTable(
  comps: Comparison[],
  o: BootstrapOptions & { categoryOf?: (questionId: number) => string | undefined; same?: boolean } = {},
): KappaRow[] {
  const level = o.level ?? DEFAULT_LEVEL;
  const groups = new Map<string, { turn: number; category: string; comps: Comparison[] }>();
  const push = (turn: number, category: string, c: Comparison) => {
    const key = `${turn}\u0000${category}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { turn, category, comps: [] }));
    g.comps.push(c);
  };
  for (const c of comps) {
    push(c.turn, 'all', c);
    const cat = o.categoryOf?.(c.questionId);
    if (cat !== undefined) push(c.turn, cat, c);
  }
  const rows: KappaRow[] = [];
  const sorted = [...groups.values()].sort(
    (a, b) =>
      a.turn - b.turn ||
      (a.category === 'all' ? -1 : b.category === 'all' ? 1 : a.category < b.category ? -1 : 1),
  );
  for (const g of sorted) {
    for (const setup of ['with-tie', 'without-tie'] as const) {
      const used = setup === 'with-tie' ? g.comps : g.comps.filter((c) => c.x !== 'tie' && c.y !== 'tie');
      // confusion matrix per question, so a bootstrap round is a weighted sum
      const qIndex = new Map<number, number>();
      for (const c of used) if (!qIndex.has(c.questionId)) qIndex.set(c.questionId, qIndex.size);
      const per = new Float64Array(qIndex.size * 9);
      for (const c of used)
        per[qIndex.get(c.questionId)! * 9 + LABELS.indexOf(c.x) * 3 + LABELS.indexOf(c.y)]!++;
      const kappaOf = (weights?: Float64Array) => {
        const m = new Float64Array(9);
        for (let q = 0; q < qIndex.size; q++) {
          const w = weights ? weights[q]! : 1;
          if (w) for (let k = 0; k < 9; k++) m[k]! += w * per[q * 9 + k]!;
        }
        return kappaFromConfusion(m, 3);
      };
      const agree = used.filter((c) => c.x === c.y).length;
      const div = o.same ? 2 : 1;
      const kappa = kappaOf();
      const nq = qIndex.size;
      let lo: number | null = null;
      let hi: number | null = null;
      let nanRounds = 0;
      let note: string | undefined;
      if (!used.length) note = 'no comparisons';
      else if (Number.isNaN(kappa))
        note = 'kappa undefined: chance agreement is 1 (both sides gave one and the same label throughout)';
      else if (nq < MIN_KAPPA_QUESTIONS)
        note = `${nq} questions (fewer than ${MIN_KAPPA_QUESTIONS}): too few for an interval`;
      else {
        const rounds = clusterBootstrap(nq, (w) => [kappaOf(w)], o);
        nanRounds = rounds.filter((r) => Number.isNaN(r[0]!)).length;
        ({ lo, hi } = columnIntervals(rounds, 1, level)[0]!);
        if (nanRounds)
          note = `${nanRounds} of ${rounds.length} bootstrap rounds had kappa undefined and were left out`;
      }
      rows.push({
        turn: g.turn,
        category: g.category,
        setup,
        total: used.length / div,
        agree: agree / div,
        ratio: used.length ? agree / used.length : 0,
        kappa,
        lo,
        hi,
        level,
        questions: nq,
        nanRounds,
        ...(note ? { note } : {}),
      });
    }
  }
  return rows;
}
