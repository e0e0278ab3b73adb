// The leaderboard and model pages' tables: standings with ratings, single-answer grading, the win matrix and
// one model's standing per category, per turn and against each opponent.
import { STANDING_COLUMNS } from '../../../core/standings.ts';
import { QUERY, type Query } from '../../params.ts';
import type { Site } from '../../site.ts';
import type { Tables } from './table.ts';

const MATRIX = ['model', 'opponent', 'battles', 'win', 'loss', 'tie', 'error', 'winRateAdjusted'] as const;

export function leaderboardTables(s: Site): Tables {
  const { check } = s;
  const { leaderboards } = s.data;
  const model = async (q: Query) =>
    leaderboards.model(await check.judge(q), await check.model('model', q.model));
  return {
    leaderboard: {
      query: QUERY.filter,
      describe:
        "one judge's standings with Bradley–Terry rating and 95% interval (a note where not estimable), Rank (UB), the rank range from simultaneous intervals of all pairs (rankBest/rankWorst, joint) and of the model's own comparisons (marginalRankBest/marginalRankWorst), and the preliminary mark; ?judge=&turn=1|2|both&category= (group: set when the judge's models form groups that never met; ranks and ratings are per group)",
      columns: [
        'rank',
        ...STANDING_COLUMNS,
        'rating',
        'ratingLo',
        'ratingHi',
        'ratingNote',
        'rankUB',
        'rankBest',
        'rankWorst',
        'marginalRankBest',
        'marginalRankWorst',
        'preliminary',
        'group',
      ],
      rows: async (q) => leaderboards.leaderboard(await check.judge(q), await check.filter(q)),
    },
    single: {
      query: QUERY.filterNoJudge,
      describe:
        "single-answer grading: each model's mean score (1–10) per turn and overall, per judge; ?turn=&category=",
      columns: ['judge', 'model', 'turn1', 'turn2', 'score', 'n', 'error'],
      rows: async (q) =>
        (await leaderboards.single(await check.filter(q))).flatMap((t) =>
          t.rows.map((r) => ({ judge: t.judge, ...r })),
        ),
    },
    matrix: {
      query: QUERY.filter,
      describe: 'the pairwise win matrix and battle counts of one judge; ?judge=&turn=&category=',
      columns: MATRIX,
      rows: async (q) => (await leaderboards.matrix(await check.judge(q), await check.filter(q))).cells,
    },
    'model-categories': {
      query: QUERY.model,
      describe: "one model's standing per category; ?model=&judge=",
      columns: ['category', ...STANDING_COLUMNS],
      rows: async (q) => (await model(q)).byCategory,
    },
    'model-turns': {
      query: QUERY.model,
      describe: "one model's standing per turn; ?model=&judge=",
      columns: ['turn', ...STANDING_COLUMNS],
      rows: async (q) => (await model(q)).byTurn,
    },
    'model-opponents': {
      query: QUERY.model,
      describe: 'one model against each opponent, strongest showing first; ?model=&judge=',
      columns: MATRIX,
      rows: async (q) => (await model(q)).opponents,
    },
  };
}
