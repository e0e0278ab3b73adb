// The home page's comparison of GPT-4 and the study's judge as a table (src/reports/site/duel-rows.ts).
import { duelPair } from '../../../reports/judge-quality/duel.ts';
import { DUEL_COLUMNS, duelRows } from '../../../reports/site/duel-rows.ts';
import { QUERY } from '../../params.ts';
import type { Site } from '../../site.ts';
import type { Tables } from './table.ts';

export function duelTables(s: Site): Tables {
  const { catalog, judges } = s.data;
  return {
    'judge-duel': {
      query: QUERY.none,
      describe:
        "GPT-4 beside the study's judge (the home page's reading): inconsistency, its ratio, agreement with the experts and Pearson's r of the adjusted win rates, on the matches both read in both orders (same matches) and each on its own matches, with 95% question-bootstrap intervals; empty without both judges",
      columns: DUEL_COLUMNS,
      rows: async () => {
        const pair = duelPair(await catalog.rankedJudges());
        return pair ? duelRows(await judges.duel(pair)) : [];
      },
    },
  };
}
