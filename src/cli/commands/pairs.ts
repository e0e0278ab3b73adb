// Labelled pair sets: `arena import pairs DIR`, `arena accuracy`, and the judge leaderboard (`arena judges --board`).
import { defineCommand } from 'citty';
import { bootArgs, bootOptions } from '../boot-args.ts';
import * as figures from '../../core/format.ts';
import { dbArg, jsonArg, print, printTable, printJson, withImportStore, withStore } from '../shared.ts';

// one spelling per kind of figure, shared with the site (core/format.ts)
const pct = figures.pct;
const fix = figures.kappa;
const range = (iv: { lo: number; hi: number } | undefined, f: (x: number) => string) =>
  iv && Number.isFinite(iv.lo) ? figures.interval(iv.lo, iv.hi, f) : figures.MISSING;

export const importPairsCommand = defineCommand({
  meta: {
    name: 'pairs',
    description:
      "labelled pair sets in LLMBar's layout: every <set>/dataset.json below DIR (gold labels: judge `gold`) and <set>/evaluators/<LLM>/<strategy>/result.json (judge <LLM>/<strategy>, both orders)",
  },
  args: {
    ...dbArg,
    dir: { type: 'positional', required: true, description: "a directory like LLMBar's Dataset/LLMBar" },
  },
  async run({ args }) {
    const { importPairs } = await import('../../importers/pairs.ts');
    const r = await withImportStore(args.db, (store) => importPairs(store, args.dir));
    for (const s of r.sets)
      print(`${s.set}: ${s.items} labelled pairs${s.judges.length ? `; judges ${s.judges.join(', ')}` : ''}`);
    print(
      `imported into ${args.db}: ${r.sets.length} set(s), ${r.counts.questions} items, ${r.counts.votes} gold labels, ${r.counts.games} games${r.gamesAlreadyStored ? ` (${r.gamesAlreadyStored} already stored, left as they are)` : ''}`,
    );
  },
});

export const accuracyCommand = defineCommand({
  meta: {
    name: 'accuracy',
    description:
      "accuracy of judges on labelled pair sets: per set and judge, correct in each order and in both, order agreement, Cohen's kappa vs the label and between orders, with bootstrap intervals over items",
  },
  args: {
    ...dbArg,
    ...jsonArg,
    ...bootArgs,
    judge: { type: 'string', description: 'only this judge (e.g. GPT-4/Vanilla)' },
    set: { type: 'string', description: 'only this set (e.g. Natural, Adversarial/Neighbor)' },
  },
  async run({ args }) {
    const { accuracyReport } = await import('../../reports/accuracy.ts');
    await withStore(args.db, { mustExist: true }, async (store) => {
      const rows = await accuracyReport(store, {
        ...bootOptions(args),
        ...(args.judge ? { judge: args.judge } : {}),
        ...(args.set ? { set: args.set } : {}),
      });
      if (args.json) return printJson(rows);
      if (!rows.length)
        return print(
          'no judge has games on a labelled set (import LLMBar with `arena import pairs DIR`, or `arena run ... --set NAME`)',
        );
      printTable(rows, (r) => ({
        set: r.set,
        judge: r.judge,
        ...(rows.some((x) => !x.prompt.startsWith('llmbar/')) ? { prompt: r.prompt } : {}),
        items: r.total,
        ...(rows.some((x) => x.missing) ? { missing: r.missing } : {}),
        'correct AB': r.correctAB,
        'correct BA': r.correctBA,
        both: r.correctBoth,
        'orders agree': r.agreeOrders,
        accuracy: pct(r.accuracy),
        [`${Math.round(r.level * 100)}% interval`]: range(r.intervals.accuracy, (x) => pct(x)),
        'kappa AB': fix(r.kappaAB),
        'kappa BA': fix(r.kappaBA),
        'kappa orders': fix(r.kappaOrders),
        errors: r.errors,
      }));
    });
  },
});

/** `arena judges --board`: the judge leaderboard (src/reports/judge-quality/board.ts). */
export async function printBoard(db: string, o: { json?: boolean; judges?: string[] }): Promise<void> {
  const { judgeBoard } = await import('../../reports/judge-quality/board.ts');
  await withStore(db, { mustExist: true }, async (store) => {
    const rows = await judgeBoard(store, o.judges ? { judges: o.judges } : {});
    if (o.json) return printJson(rows);
    if (!rows.length) return print('no judges in the database');
    // spelled as the site's /judges board spells them: "62.5% (55.0% – 70.1%)", "0.612 (0.540 – 0.680)"
    const rate = (r: { value: number | null; lo: number | null; hi: number | null } | null) =>
      r && r.value !== null
        ? `${figures.pct(r.value)}${r.lo !== null ? ` (${figures.interval(r.lo, r.hi, figures.pct)})` : ''}`
        : figures.MISSING;
    const sets = [
      ...new Set(
        rows.flatMap((r) => r.accuracy.filter((a) => a.group || !a.set.includes('/')).map((a) => a.set)),
      ),
    ].sort();
    print(
      'judge leaderboard: accuracy on labelled sets and agreement with the experts, each with a 95% interval (rank: 1 + judges whose interval lies wholly above)',
    );
    printTable(rows, (r) => {
      const s1 = r.experts.find((e) => e.turn === 0 && e.setup === 'with-tie');
      const s2 = r.experts.find((e) => e.turn === 0 && e.setup === 'without-tie');
      return {
        judge: r.judge,
        rank: r.rank ?? '',
        'labelled accuracy': rate(r.accuracyOverall),
        ...Object.fromEntries(
          sets.map((s) => {
            const a = r.accuracy.find((x) => x.set === s);
            return [s, rate(a ? { value: a.accuracy, lo: a.lo, hi: a.hi } : null)];
          }),
        ),
        'rank (experts)': r.rankExperts ?? '',
        'experts S1 kappa': s1
          ? `${figures.kappa(s1.kappa)}${s1.lo !== null ? ` (${figures.interval(s1.lo, s1.hi, figures.kappa)})` : ''}`
          : '',
        'S2 agree': s2 ? figures.pct(s2.ratio) : '',
      };
    });
    if (rows.some((r) => r.accuracy.some((a) => a.group)))
      print(
        "a family of sets (e.g. Adversarial): the mean of its sets' accuracies, as LLMBar's paper reports it (--json: pooledAccuracy over the items pooled)",
      );
    print('\nbehaviour (from games; "recorded": from combined verdicts only)');
    printTable(rows, (r) => ({
      judge: r.judge,
      games: figures.count(r.games),
      from: r.source,
      consistency: rate(r.consistency),
      'picks first': rate(r.firstPosition),
      errors: rate(r.errorRate),
      ties: rate(r.tieRate),
      'to longer': rate(r.longerShare),
      '$ / 1k games': figures.usd(r.costPer1000Games),
      's / 1k games': figures.seconds(r.secondsPer1000Games),
    }));
  });
}
