// The health and style pages' tables (src/reports/site/health-style.ts, views/health-table.ejs,
// views/style-table.ejs).
import {
  HEALTH_COLUMNS,
  healthTableRows,
  STYLE_COLUMNS,
  STYLE_FEATURE_COLUMNS,
} from '../../../reports/site/health-style.ts';
import { QUERY } from '../../params.ts';
import type { Site } from '../../site.ts';
import type { Tables } from './table.ts';

export function healthStyleTables(s: Site): Tables {
  const { check } = s;
  const { health } = s.data;
  return {
    health: {
      query: QUERY.none,
      describe:
        'benchmark health of every judge against the experts: separability and agreement with confidence, pair-rank Brier score, Spearman and Kendall of the ratings with 95% intervals',
      columns: HEALTH_COLUMNS,
      rows: async () => healthTableRows(await health.health()),
    },
    style: {
      query: QUERY.judge,
      describe:
        "one judge's Bradley–Terry ratings controlled for length and markdown, beside the raw ones, with 95% intervals and Rank (UB); ?judge=",
      columns: STYLE_COLUMNS,
      rows: async (q) => (await health.style(await check.judge(q))).rows,
    },
    'style-features': {
      query: QUERY.judge,
      describe:
        'the style coefficients of one judge (log-odds per standard deviation) with their question-clustered standard errors and 95% intervals; features with too little support are left out (see /style); ?judge=',
      columns: STYLE_FEATURE_COLUMNS,
      rows: async (q) => (await health.style(await check.judge(q))).features,
    },
  };
}
