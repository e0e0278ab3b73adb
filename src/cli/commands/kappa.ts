import { defineCommand } from 'citty';
import { bootArgs, bootOptions } from '../boot-args.ts';
import { MIN_KAPPA_QUESTIONS } from '../../core/stats/kappa.ts';
import { kappaReport } from '../../reports/analytics.ts';
import * as figures from '../../core/format.ts';
import { dbArg, jsonArg, print, printTable, printJson, withStore } from '../shared.ts';
import { checkJudges, twoJudges, twoJudgesArg } from '../validate.ts';
import { pct } from './analytics-shared.ts';

export const kappaCommand = defineCommand({
  meta: {
    name: 'kappa',
    description:
      "agreement (S1 with ties, S2 without) with Cohen's kappa and question-level bootstrap intervals, per turn (and category)",
  },
  args: {
    ...dbArg,
    ...jsonArg,
    ...twoJudgesArg,
    category: { type: 'boolean', description: 'also one row per category' },
    ...bootArgs,
  },
  async run({ args }) {
    const [a, b] = twoJudges(args.judge);
    const o = bootOptions(args);
    await withStore(args.db, { readonly: true }, async (store) => {
      await checkJudges(store, [a, b]);
      const rows = await kappaReport(store, a, b, { ...o, byCategory: Boolean(args.category) });
      if (args.json) return printJson(rows);
      printTable(rows, (r) => ({
        turn: r.turn,
        category: r.category,
        setup: r.setup,
        questions: r.questions,
        total: r.total,
        agree: r.agree,
        ratio: pct(r.ratio),
        kappa: figures.kappa(r.kappa),
        lo: figures.kappa(r.lo),
        hi: figures.kappa(r.hi),
        note: r.note ?? '',
      }));
      const nan = rows.reduce((s, r) => s + r.nanRounds, 0);
      print(
        `\nkappa intervals: ${Math.round(o.level * 100)}% bootstrap percentile intervals, questions resampled, ${o.rounds} rounds, seed ${o.seed}; none for a row on fewer than ${MIN_KAPPA_QUESTIONS} questions${nan ? `; ${nan} rounds in all had kappa undefined (chance agreement 1) and were left out` : ''}`,
      );
    });
  },
});
