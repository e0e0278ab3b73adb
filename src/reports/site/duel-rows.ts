// The rows of /api/judge-duel: two judges compared, one figure per row, like for like (the matches both read in both
// orders) and each judge on its own matches, with intervals flattened.
import type { Estimate } from '../../core/stats/like-for-like.ts';
import type { JudgeDuel } from '../judge-quality/duel.ts';

export const DUEL_COLUMNS = [
  'basis',
  'figure',
  'judge',
  'turn',
  'setup',
  'value',
  'lo',
  'hi',
  'count',
  'total',
  'questions',
  'level',
  'rounds',
  'intervalsWithheld',
] as const;

type DuelRow = Partial<Record<(typeof DUEL_COLUMNS)[number], string | number | null>>;

/** One row per figure: `same matches` (like for like) first, then `own matches`. */
export function duelRows(d: JudgeDuel): DuelRow[] {
  const l = d.likeForLike;
  const o = d.ownMatches;
  const [a, b] = l.judges;
  const pair = `${b.judge} / ${a.judge}`;
  const common = (x: typeof l | typeof o, basis: string) => ({
    basis,
    questions: x.questions,
    level: x.level,
    rounds: x.rounds,
    intervalsWithheld: x.intervalsWithheld?.reason ?? null,
  });
  const est = (e: Estimate) => ({ value: e.value, lo: e.interval?.lo ?? null, hi: e.interval?.hi ?? null });
  const same = common(l, 'same matches');
  const own = common(o, 'own matches');
  return [
    ...l.judges.map((j) => ({
      ...same,
      figure: 'inconsistency',
      judge: j.judge,
      ...est(j.inconsistency),
      count: j.inconsistency.inconsistent,
      total: l.matches,
    })),
    { ...same, figure: 'inconsistency ratio', judge: pair, ...est(l.inconsistencyRatio), total: l.matches },
    ...l.judges.flatMap((j) =>
      j.agreement.map((g) => ({
        ...same,
        figure: 'agreement with the experts',
        judge: j.judge,
        turn: g.turn,
        setup: g.setup,
        ...est(g),
        count: g.agree,
        total: g.total,
      })),
    ),
    { ...same, figure: 'pearson r', judge: pair, ...est(l.r), total: l.matches },
    ...o.judges.map((j) => ({
      ...own,
      figure: 'inconsistency',
      judge: j.judge,
      ...est(j.inconsistency),
      count: j.inconsistent,
      total: j.matches,
    })),
    { ...own, figure: 'inconsistency ratio', judge: pair, ...est(o.inconsistencyRatio) },
    { ...own, figure: 'pearson r', judge: pair, ...est(o.r), total: o.r.matches },
  ];
}
