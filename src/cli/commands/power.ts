import { defineCommand } from 'citty';
import { list, num, UsageError } from '../format.ts';
import { dbArg, jsonArg, judgeTurnArgs, print, printTable, printJson, withJudge } from '../shared.ts';
import { checkModels } from '../validate.ts';
import { fix, pct } from './analytics-shared.ts';

export const powerCommand = defineCommand({
  meta: {
    name: 'power',
    description:
      'how many questions it takes to separate two models at a win-rate gap, from the matches they played (default: each model against the next in the standings)',
  },
  args: {
    ...dbArg,
    ...jsonArg,
    ...judgeTurnArgs,
    models: { type: 'string', description: 'two models, comma-separated (default: every adjacent pair)' },
    gap: {
      type: 'string',
      description: 'the win-rate gap to detect, e.g. 0.05 for 55% against 45% (default: the observed gap)',
    },
    alpha: { type: 'string', default: '0.05', description: 'two-sided significance level' },
    power: {
      type: 'string',
      default: '0.8',
      description: 'the chance of separating them when the gap is real',
    },
  },
  async run({ args }) {
    const gap = num(args.gap, 'gap');
    const alpha = num(args.alpha, 'alpha')!;
    const power = num(args.power, 'power')!;
    const models = list(args.models);
    if (models && models.length !== 2)
      throw new UsageError(`--models expects two models, comma-separated, got ${models.length}`);
    await withJudge(args, async (store, judge, t) => {
      if (models) await checkModels(store, models, 'models', { judge });
      const { judgeData } = await import('../../reports/results.ts');
      const { adjacentPower, pairPower } = await import('../../core/stats/power.ts');
      const outcomes = (await judgeData(store, judge)).outcomes.filter(
        (o) => t.turn === undefined || o.turn === t.turn,
      );
      const o = { alpha, power, ...(gap !== undefined ? { gap } : {}) };
      const rows = models ? [pairPower(outcomes, models[0]!, models[1]!, o)] : adjacentPower(outcomes, o);
      if (args.json) return printJson({ judge, ...t, alpha, power, rows });
      if (!rows.length)
        return print(`${judge}: no two models met${t.turn !== undefined ? ` on turn ${t.turn}` : ''}`);
      printTable(rows, (r) => ({
        model: r.model1,
        against: r.model2,
        questions: r.questions,
        matches: r.matches,
        'win rate': pct(r.winRate),
        'SE (questions)': pct(r.se),
        separated: r.separated ? 'yes' : 'no',
        gap: pct(r.gap),
        'questions needed': r.questionsNeeded ?? '–',
        'matches needed': r.matchesNeeded ?? '–',
      }));
      print(
        `\n${judge}: questions needed to tell the win rate from 50% at the gap (${gap === undefined ? 'the observed one' : pct(gap)}), two-sided at ${fix(100 * alpha, 2)}%, with ${fix(100 * power, 0)}% power: n = ((z(1 - α/2) + z(power)) · SD / gap)², SD over questions of the per-question score; matches needed at the current matches per question.`,
      );
    });
  },
});
