// The checkpoints page's table: one row per series, judge and checkpoint.
import { checkpointTableRow } from '../../../reports/site/checkpoints.ts';
import { QUERY } from '../../params.ts';
import type { Site } from '../../site.ts';
import type { Tables } from './table.ts';

export function checkpointTables(s: Site): Tables {
  const { check } = s;
  return {
    checkpoints: {
      query: QUERY.series,
      describe:
        'checkpoint tracking (`arena checkpoints`): per series, judge and checkpoint, the win rate vs the baseline and the paired differences vs the previous and the best earlier checkpoint, with 95% intervals; ?series=',
      columns: [
        'series',
        'baseline',
        'judge',
        'checkpoint',
        'step',
        'model',
        'n',
        'winRate',
        'winRateLo',
        'winRateHi',
        'previous',
        'vsPrevious',
        'vsPreviousLo',
        'vsPreviousHi',
        'bestSoFar',
        'vsBest',
        'vsBestLo',
        'vsBestHi',
        'best',
      ],
      rows: async (q) =>
        (await check.series(q)).flatMap((x) =>
          x.rows.map((r) => checkpointTableRow(x.series, x.baseline, r)),
        ),
    },
  };
}
