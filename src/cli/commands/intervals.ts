import { defineCommand } from 'citty';
import { fewQuestionsNote, MIN_QUESTIONS } from '../../core/stats/rating-rows.ts';
import { bootArgs, bootOptions } from '../boot-args.ts';
import { PRELIMINARY_MAX_WIDTH, PRELIMINARY_MIN_BATTLES } from '../../core/stats/rank-intervals.ts';
import { intervalReport } from '../../reports/analytics.ts';
import { num, oneOf, UsageError } from '../format.ts';
import * as figures from '../../core/format.ts';
import { dbArg, jsonArg, judgeTurnArgs, print, printTable, printJson, withJudge } from '../shared.ts';
import { pct, priorArg, priorOption } from './analytics-shared.ts';

export const intervalsCommand = defineCommand({
  meta: {
    name: 'intervals',
    description:
      'Bradley–Terry ratings and win rates with bootstrap intervals (questions resampled) and a rank that respects them',
  },
  args: {
    ...dbArg,
    ...jsonArg,
    ...judgeTurnArgs,
    unit: {
      type: 'string',
      default: 'question',
      description:
        'question (all games of a question move together) | game (single games; too narrow when games of a question are correlated)',
    },
    ...priorArg,
    method: {
      type: 'string',
      default: 'bootstrap',
      description: 'bootstrap (refit per round) | sandwich (robust CLT: one fit, clusters = --unit)',
    },
    'min-battles': {
      type: 'string',
      default: String(PRELIMINARY_MIN_BATTLES),
      description: 'a model with fewer decided battles is marked preliminary',
    },
    'max-width': {
      type: 'string',
      default: String(PRELIMINARY_MAX_WIDTH),
      description: 'a model whose interval is wider (rating points) is marked preliminary',
    },
    ...bootArgs,
  },
  async run({ args }) {
    const unit = oneOf(args.unit, 'unit', ['question', 'game'] as const)!;
    const method = oneOf(args.method, 'method', ['bootstrap', 'sandwich'] as const)!;
    const o = bootOptions(args);
    const prior = priorOption(args.prior);
    const minBattles = num(args['min-battles'], 'min-battles')!;
    const maxWidth = num(args['max-width'], 'max-width')!;
    if (minBattles < 0 || maxWidth <= 0)
      throw new UsageError('--min-battles must be at least 0 and --max-width above 0');
    await withJudge(args, async (store, judge, t) => {
      const r = await intervalReport(store, judge, { ...o, unit, method, prior, minBattles, maxWidth, ...t });
      if (args.json) return printJson(r);
      if (!r.ratings.rows.length)
        return print(`no pairwise results for judge "${judge}" (see \`arena judges\`)`);
      const lvl = `${Math.round(o.level * 100)}%`;
      const wr = new Map(r.winRates.map((w) => [w.model, w]));
      printTable(r.ratings.rows, (x) => {
        const w = wr.get(x.model)!;
        const group = (x as { group?: number }).group;
        return {
          ...(group ? { group } : {}),
          'rank (UB)': x.rankFromPoint ? `${x.rank} (by rating)` : x.rank,
          'rank range (joint)': rankRange(x.rankBest, x.rankWorst),
          'rank range (marginal)': rankRange(x.marginalRankBest, x.marginalRankWorst),
          model: `${x.model}${x.preliminary ? ' *' : ''}`,
          rating: figures.rating(x.rating),
          [`${lvl} lo`]: figures.rating(x.lo),
          [`${lvl} hi`]: figures.rating(x.hi),
          matches: w.matches,
          'win rate': pct(w.winRate),
          'win lo': w.lo === null ? '–' : pct(w.lo),
          'win hi': w.hi === null ? '–' : pct(w.hi),
          note: x.note ?? '',
        };
      });
      if (r.ratings.separatedRounds)
        print(
          `\n${r.ratings.separatedRounds} of ${r.ratings.rounds} bootstrap rounds were separated (some model won or lost every game it played in them); in those rounds such a model's rating is infinite, and the others are centred without it`,
        );
      if (r.ratings.disconnected)
        print(
          `\nthese groups of models were never compared with one another, so each group is fitted and ranked on its own (mean 1000 in each; ratings of different groups are not comparable): ${r.ratings.disconnected.map((g, k) => `${k + 1} {${g.join(', ')}}`).join(' ')}`,
        );
      const how =
        method === 'sandwich'
          ? `${lvl} sandwich (robust CLT) intervals, ${unit === 'question' ? 'clustered by question' : 'one cluster per game'}`
          : `${lvl} bootstrap percentile intervals, ${unit === 'question' ? 'questions resampled (both turns and both orders move together)' : 'single games resampled'}, ${o.rounds} rounds, seed ${o.seed}`;
      print(
        `\n${how}; rank (UB) = 1 + models whose interval lies wholly above; rank range (joint) = best and worst rank consistent with simultaneous ${lvl} intervals of all rating differences; (marginal) = of this model's own differences only (Mogstad et al.); no interval for a model seen on fewer than ${r.ratings.minQuestions ?? MIN_QUESTIONS} questions${prior ? `; prior: ${prior} tie pseudo-game(s) per pair that met` : ''}`,
      );
      if (r.ratings.fewQuestions !== undefined)
        print(
          `\n${fewQuestionsNote(r.ratings.fewQuestions)}; each rank follows the ratings alone ("by rating"): 1 + the models rated higher`,
        );
      if (r.ratings.rows.some((x) => x.preliminary))
        print(
          `* preliminary: fewer than ${minBattles} decided battles, an interval wider than ${maxWidth} rating points, or no interval`,
        );
    });
  },
});

/** A rank range as printed: "2", "1–3", or "–" where none is shown (too few questions). */
function rankRange(best: number | null, worst: number | null): string {
  return best === null || worst === null ? '–' : best === worst ? String(best) : `${best}–${worst}`;
}
