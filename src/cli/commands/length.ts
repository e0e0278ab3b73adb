import { defineCommand } from 'citty';
import { bootArgs, bootOptions } from '../boot-args.ts';
import { lengthReport } from '../../reports/analytics.ts';
import { dbArg, jsonArg, judgeTurnArgs, print, printTable, printJson, withJudge } from '../shared.ts';
import { pct, fix } from './analytics-shared.ts';

export const lengthCommand = defineCommand({
  meta: {
    name: 'length',
    description:
      'length awareness: share of decisive verdicts that went to the longer answer; length-controlled win rates beside the raw ones',
  },
  args: { ...dbArg, ...jsonArg, ...judgeTurnArgs, ...bootArgs },
  async run({ args }) {
    const o = bootOptions(args);
    await withJudge(args, async (store, judge, t) => {
      const r = await lengthReport(store, judge, { ...o, ...t });
      if (args.json) return printJson(r);
      const l = r.longer;
      const lvl = `${Math.round(o.level * 100)}%`;
      const missing = r.missingAnswers
        ? `; ${r.missingAnswers} matches left out: answers not in the database`
        : '';
      const none = r.notEstimable?.decisive === 0;
      // nothing decisive: one plain line, the raw win rates, and nothing about a model that was not fitted
      if (none)
        print(
          `${judge}: no decisive verdicts: all ${r.notEstimable!.matches} matches are ties, so there is nothing to estimate the length effect or length-controlled win rates from${missing}`,
        );
      else
        print(
          `${judge}: ${l.toLonger} of ${l.decisive} decisive verdicts (${pct(l.share)}) went to the longer answer (length = ${r.measure})${l.equalLength ? ` (${l.equalLength} between equal lengths left out)` : ''}${missing}`,
        );
      const e = r.lengthEffect;
      if (r.notEstimable && !none) print(`length effect: not estimable: ${r.notEstimable.reason}\n`);
      else if (e)
        print(
          `length effect: ${fix(e.coefficient, 3)} (SE ${fix(e.se, 3)} clustered by question; ${fix(e.seIndependent, 3)} if matches were independent; ${e.lo === null || e.hi === null ? `no ${lvl} interval` : `${lvl} ${fix(e.lo, 3)} to ${fix(e.hi, 3)}`}) log-odds per unit of tanh(Δ / ${fix(e.sigma, 0)} chars); at equal lengths ${fix(e.perThousandChars, 3)} log-odds per 1,000 characters; from ${e.support.decisive} decisive of ${e.support.matches} matches on ${e.support.questions} questions\n`,
        );
      const fitted = !r.notEstimable;
      printTable(r.models, (m) => ({
        model: m.model,
        matches: m.n,
        'win rate': pct(m.winRate),
        ...(fitted
          ? {
              'length-controlled': m.lcWinRate === null ? '–' : pct(m.lcWinRate),
              [`${lvl} lo`]: m.lo === null ? '–' : pct(m.lo),
              [`${lvl} hi`]: m.hi === null ? '–' : pct(m.hi),
            }
          : {}),
        'mean length diff (chars)': fix(m.meanLengthDiff, 0),
      }));
      if (fitted)
        print(
          `\nlength-controlled: one joint model of all matches (model strengths + β·tanh(length difference / σ) + a question-difficulty term, L2-penalised, after AlpacaEval 2), predicted at equal lengths against the same opponents on the same questions (ties count half). ${r.intervalsWithheld ? `No intervals: ${r.intervalsWithheld.reason}` : `Intervals: ${lvl} percentile, questions resampled, ${o.rounds} rounds, seed ${o.seed}${r.failedRounds ? `; ${r.failedRounds} rounds failed to fit and were left out` : ''}`}. SE: clustered by question (the sandwich; the JSON's seIndependent treats matches as independent).`,
        );
    });
  },
});
