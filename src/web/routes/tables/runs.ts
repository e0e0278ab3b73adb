// The runs and refreshes pages' tables.
import { QUERY } from '../../params.ts';
import type { Site } from '../../site.ts';
import type { Tables } from './table.ts';

export function runTables(s: Site): Tables {
  const { history } = s.data;
  return {
    runs: {
      query: QUERY.limit,
      describe:
        'the last runs, newest first: when, which judge, how many games, tokens; ?limit= (default 30)',
      columns: [
        'id',
        'startedAt',
        'finishedAt',
        'judge',
        'mode',
        'status',
        'planned',
        'toPlay',
        'played',
        'failed',
        'tokensIn',
        'tokensOut',
        'cost',
      ],
      rows: async (q) => history.runs(q.limit),
    },
    refreshes: {
      query: QUERY.limit,
      describe:
        'the last refreshes (`arena refresh`), newest first: status, why degraded, games played, calls, cost; ?limit= (default 30)',
      columns: [
        'id',
        'startedAt',
        'finishedAt',
        'status',
        'reasons',
        'newModels',
        'changedAnswers',
        'played',
        'failed',
        'skipped',
        'calls',
        'cost',
        'estCost',
        'line',
      ],
      rows: async (q) => history.refreshes(q.limit),
    },
  };
}
