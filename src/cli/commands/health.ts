import { defineCommand } from 'citty';
import { int, list, UsageError, withInterval } from '../format.ts';
import { bootArgs, bootOptions } from '../boot-args.ts';
import { dbArg, jsonArg, judgeTurnArgs, print, printTable, printJson, withStore } from '../shared.ts';
import { HUMAN } from '../../core/constants.ts';

import { kappa as f3, pct } from '../../core/format.ts';

/** ` MC 14–15` when a count moves with the bootstrap rounds drawn, nothing when it does not. */
const mc = (r: { lo: number; hi: number } | null) => (!r || r.lo === r.hi ? '' : `, MC ${r.lo}–${r.hi}`);

/** `0.943 [0.829, 1.000]`, or the point alone when the intervals are withheld (too few questions). */
const shown = (e: { value: number | null; lo: number; hi: number }, withheld: boolean) =>
  withInterval(f3(e.value), withheld ? null : e.lo, e.hi, f3);

export const healthCommand = defineCommand({
  meta: {
    name: 'health',
    description:
      'benchmark health of judges against a reference judge: separability and agreement with confidence, pair-rank Brier score, Spearman and Kendall of the ratings (paired question bootstrap)',
  },
  args: {
    ...dbArg,
    ...jsonArg,
    judge: {
      type: 'string',
      required: true,
      description:
        'judges to assess, comma-separated (e.g. gpt-4,llama-2-70b-instruct-v2; --judges: the old spelling)',
    },
    reference: { type: 'string', default: HUMAN, description: 'the reference judge (human = expert votes)' },
    turn: judgeTurnArgs.turn,
    ...bootArgs,
    rounds: {
      ...bootArgs.rounds,
      description: 'bootstrap rounds (questions resampled, the same draw for judge and reference)',
    },
  },
  async run({ args }) {
    const judges = list(args.judge) ?? [];
    if (!judges.length) throw new UsageError('--judge expects at least one judge');
    const o = bootOptions(args);
    if (o.rounds < 2) throw new UsageError(`--rounds must be at least 2, got ${o.rounds}`);
    const turn = int(args.turn, 'turn');
    const { healthReport } = await import('../../reports/benchmark-health.ts');
    await withStore(args.db, { mustExist: true }, async (store) => {
      const rows = await healthReport(store, judges, args.reference, {
        ...o,
        ...(turn !== undefined ? { turn } : {}),
      });
      if (args.json) return printJson(rows);
      const lvl = `${Math.round(o.level * 100)}%`;
      printTable(rows, (r) => ({
        judge: r.judge,
        reference: r.reference,
        models: r.models.length,
        pairs: r.pairs,
        separability: r.intervalsWithheld
          ? '–'
          : `${pct(r.separability)} (${r.separated}${mc(r.separatedMonteCarlo)})`,
        'reference separability': r.intervalsWithheld
          ? '–'
          : `${pct(r.referenceSeparability)} (${r.referenceSeparated}${mc(r.referenceSeparatedMonteCarlo)})`,
        'agreement w/ confidence': r.intervalsWithheld
          ? '–'
          : `${f3(r.agreementWithConfidence)} (+${r.agreedPairs} −${r.opposedPairs})`,
        'brier (ref. order)': r.brier === null ? '–' : r.brier.toFixed(4),
        'brier (ref. rounds)':
          r.brierReferenceBootstrap === null ? '–' : r.brierReferenceBootstrap.toFixed(4),
        spearman: shown(r.spearman, !!r.intervalsWithheld),
        kendall: shown(r.kendall, !!r.intervalsWithheld),
      }));
      for (const r of rows.filter((x) => x.intervalsWithheld))
        print(
          `${r.judge}: no separability, agreement with confidence or ${Math.round(o.level * 100)}% interval: ${r.intervalsWithheld!.reason}`,
        );
      print(
        `\nover the models both judged; separability: model pairs whose ${lvl} intervals do not overlap, the judge's and the reference's own; agreement with confidence (Arena-Hard): +1 per pair both separate the same way, −1 per pair both separate opposite ways, 0 otherwise, over all pairs (at most the reference's separability); the count's Monte-Carlo range (over 200 resamples of the rounds) follows it where it is not a single value; brier: the judge's bootstrap probability that one model ranks above the other, scored against the reference's point order (ref. order, Arena-Hard's choice, blind to the reference's doubt) and against the reference's own share of rounds (ref. rounds); 0 is perfect, 0.25 a coin; [${lvl} intervals] from ${o.rounds} paired question-bootstrap rounds, seed ${args.seed}`,
      );
    });
  },
});
