// The rating variants page's tables (src/reports/site/variants.ts, views/variants.ejs).
import { POWER_COLUMNS, VARIANT_COLUMNS, VARIANT_TERM_COLUMNS } from '../../../reports/site/variants.ts';
import { QUERY } from '../../params.ts';
import type { Site } from '../../site.ts';
import type { Tables } from './table.ts';

export function variantTables(s: Site): Tables {
  const { check } = s;
  const { variants } = s.data;
  const of = async (q: Parameters<typeof check.judge>[0]) => variants.of(await check.judge(q));
  return {
    variants: {
      query: QUERY.judge,
      describe:
        'one judge\'s Bradley–Terry ratings four ways: a "tie (inconsistent)" as a tie (ours), dropped (FastChat\'s compute_mle_elo), Rao–Kupper ties, and each game on its own with a position term; ?judge=',
      columns: VARIANT_COLUMNS,
      rows: async (q) => (await of(q)).rows,
    },
    'variant-terms': {
      query: QUERY.judge,
      describe:
        "one judge's fitted terms: Rao–Kupper's θ, the position term (rating points) and the length effect (log-odds), with standard errors clustered by question, the same if independent, 95% intervals and support; ?judge=",
      columns: VARIANT_TERM_COLUMNS,
      rows: async (q) => (await of(q)).terms,
    },
    power: {
      query: QUERY.judge,
      describe:
        "questions and matches needed to separate each model from the next in one judge's standings at their observed gap (two-sided 5%, 80% power), as `arena power`; ?judge=",
      columns: POWER_COLUMNS,
      rows: async (q) => (await of(q)).power,
    },
  };
}
