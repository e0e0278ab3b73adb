import { defineCommand } from 'citty';
import type { BiasDimension } from '../../core/stats/bias.ts';
import { biasReport } from '../../reports/analytics.ts';
import { MIN_QUESTIONS_FOR_INTERVALS } from '../../core/stats/rating-rows.ts';
import { list, oneOf, withInterval } from '../format.ts';
import { dbArg, jsonArg, print, printTable, printJson, withJudge } from '../shared.ts';
import { pct, fix, gapTable } from './analytics-shared.ts';

export const biasCommand = defineCommand({
  meta: {
    name: 'bias',
    description:
      "position bias of a judge: model 1's win rate when shown first and second, and the conflict rate (the two orders disagree)",
  },
  args: {
    ...dbArg,
    ...jsonArg,
    judge: { type: 'string', description: 'judge name (see `arena judges`; default: the only judge)' },
    by: {
      type: 'string',
      default: 'pair',
      description: 'group rows by any of pair, category, turn (comma-separated; "" pools everything)',
    },
  },
  async run({ args }) {
    const by = (list(args.by) ?? []).map((d) =>
      oneOf(d, 'by', ['pair', 'category', 'turn'] as const)!,
    ) as BiasDimension[];
    await withJudge(args, async (store, judge) => {
      const r = await biasReport(store, judge, by);
      if (args.json) return printJson(r);
      if (!r.games.length && !r.recorded.length)
        return print(`no pairwise games or recorded verdicts for judge "${judge}" (see \`arena judges\`)`);
      if (r.games.length) {
        print(`position bias of ${judge}, from games judged in both orders:`);
        printTable(r.games, (g) => ({
          pair: g.pair,
          category: g.category,
          turn: g.turn,
          games: g.games,
          errors: g.errors,
          questions: g.questions,
          'model 1 wins shown first': withInterval(pct(g.winFirst), g.winFirstLo, g.winFirstHi, pct),
          'shown second': withInterval(pct(g.winSecond), g.winSecondLo, g.winSecondHi, pct),
          'picks position A': pct(g.positionA),
          matches: g.matches,
          conflict: pct(g.conflict),
          'favours first': g.favoursFirst,
          'favours second': g.favoursSecond,
          'one tie': g.withTie,
          'sign test p':
            g.signTestP === null
              ? ''
              : g.signTestP < 1e-4
                ? g.signTestP.toExponential(1)
                : fix(g.signTestP, 4),
        }));
        print(
          `\nwin rates: model 1's wins / its games in that order; ties are in the denominator (a tie is not a win). [lo, hi]: ${Math.round((r.games[0]?.level ?? 0.95) * 100)}% percentile intervals, questions resampled (1000 rounds, seed 1); none for a row on fewer than ${MIN_QUESTIONS_FOR_INTERVALS} questions (the question bootstrap needs about ${MIN_QUESTIONS_FOR_INTERVALS} for its interval to hold).` +
            `\nconflicts: one game per order (the lowest MEC sample index, the latest among equal ones). sign test p: exact two-sided binomial test of "favours first" against "favours second" (one-tie conflicts left out).`,
        );
      }
      if (r.byGap)
        print(
          `\nconflict rate of the first samples by calibrated score gap (score-based games):\n${gapTable(r.byGap)}`,
        );
      if (r.recorded.length) {
        print(
          `${r.games.length ? '\n' : ''}conflict rate of ${judge}'s recorded verdicts (combined outcomes only: no per-order games, so no per-order win rates):`,
        );
        printTable(r.recorded, (c) => ({
          pair: c.pair,
          category: c.category,
          turn: c.turn,
          matches: c.matches,
          inconsistent: c.inconsistent,
          conflict: pct(c.conflict),
          ties: c.ties,
        }));
      }
    });
  },
});
