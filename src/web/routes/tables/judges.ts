// The judges page's tables: the judges, the judge leaderboard, accuracy on labelled sets, consistency,
// agreement and position bias.
import { ACCURACY_STATS } from '../../../core/stats/pair-accuracy.ts';
import { BOARD_COLUMNS, flatBoardRow } from '../../../reports/judge-quality/board-table.ts';
import { QUERY } from '../../params.ts';
import type { Site } from '../../site.ts';
import type { Tables } from './table.ts';

export function judgeTables(s: Site): Tables {
  const { catalog, judges } = s.data;
  return {
    judges: {
      query: QUERY.none,
      describe: 'every judge with its stored games and recorded votes',
      columns: ['judge', 'games', 'votes'],
      rows: () => catalog.judges(),
    },
    consistency: {
      query: QUERY.none,
      describe: "each judge's consistency across the two orders of a match",
      columns: ['judge', 'matches', 'consistent', 'inconsistent', 'error', 'consistency'],
      rows: () => judges.consistency(),
    },
    agreement: {
      query: QUERY.none,
      describe: 'agreement of every pair of judges per turn, with ties (S1) and without (S2)',
      columns: [
        'judge1',
        'judge2',
        'turn',
        'setup',
        'total',
        'agree',
        'ratio',
        'kappa',
        'kappaLo',
        'kappaHi',
        'level',
      ],
      rows: () => judges.agreement(),
    },
    'position-bias': {
      query: QUERY.none,
      describe:
        "each judge's position bias: share of decisive games picking the first-shown answer, and how often the two orders conflict",
      columns: [
        'judge',
        'source',
        'games',
        'errors',
        'positionA',
        'matches',
        'conflicts',
        'conflict',
        'favoursFirst',
        'favoursSecond',
        'withTie',
        'signTestP',
      ],
      rows: () => judges.bias(),
    },
    'judge-board': {
      query: QUERY.none,
      describe:
        'the judge leaderboard: accuracy on labelled sets (overall and per set), agreement with the experts (S1 kappa, S2, per turn in `experts`), consistency, first-position preference, error, tie and longer-answer rates, cost and seconds per 1,000 games; `Lo`/`Hi` are 95% intervals',
      columns: BOARD_COLUMNS,
      rows: async () => (await judges.judgeBoard()).map(flatBoardRow),
    },
    accuracy: {
      query: QUERY.none,
      describe:
        "accuracy of every judge on every labelled pair set (`arena accuracy`): items correct in each order and in both, order agreement, Cohen's kappa, with 95% intervals over items in `intervals`",
      columns: [
        'set',
        'judge',
        'prompt',
        'total',
        'missing',
        'correctAB',
        'correctBA',
        'correctBoth',
        'agreeOrders',
        'errors',
        ...ACCURACY_STATS,
        'intervals',
        'level',
      ],
      rows: () => judges.accuracy(),
    },
  };
}
