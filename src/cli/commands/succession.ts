// `arena judges succession --from OLD --to NEW`: the new judge plays a bridge of the old judge's matches, then the report.
import { defineCommand } from 'citty';
import { tmpdir } from 'node:os';
import { int, list, num, oneOf } from '../format.ts';
import { judgeCallArgs, judgeSetupOf, stoppingJudges, settingsOf } from '../judge-args.ts';
import { processLiveness } from '../liveness.ts';
import { dbArg, exitStatus, openStore, printJson } from '../shared.ts';
import { checkModels, checkTurns } from '../validate.ts';
import { printSuccession } from './succession-print.ts';
import type { Game } from '../../core/types.ts';
import type { RunRecord } from '../../storage/store.ts';

export const successionCommand = defineCommand({
  meta: {
    name: 'succession',
    description:
      "a new judge plays a bridge of the old judge's matches (stratified by model pair and category, in rounds until the figures are precise or at --max-calls; resumable, paid once), then the two side by side: agreement and Cohen's kappa, inconsistency and position bias, each model's rating under both with the difference, Kendall's tau, agreement with people; all with 95% intervals",
  },
  args: {
    ...dbArg,
    json: {
      type: 'boolean',
      description: 'print the report as one JSON object, each figure as { value, lo, hi }',
    },
    from: { type: 'string', required: true, description: 'the old judge (its games or recorded verdicts)' },
    to: { type: 'string', required: true, description: 'the new judge, as `arena run --judge` names it' },
    models: { type: 'string', description: "comma-separated models (default: the old judge's)" },
    turn: { type: 'string', default: '1,2', description: 'turns to bridge, comma-separated' },
    precision: {
      type: 'string',
      default: '0.05',
      description:
        "stop once agreement's and Cohen's kappa's 95% intervals are each within this of their estimate",
    },
    'rating-precision': {
      type: 'string',
      default: '50',
      description: "... and every model's rating difference (Elo points) is within this",
    },
    'max-calls': {
      type: 'string',
      description:
        "the bridge's judge calls at most (default: a quarter of a full replay, a bridge of at most 25% of the old judge's matches)",
    },
    round: {
      type: 'string',
      description: 'matches per round (default: a twentieth of the bridge candidates, at least 60)',
    },
    seed: { type: 'string', default: '1', description: "the bridge order's and the bootstrap's seed" },
    prompts: { type: 'string', description: 'prompt set, as `arena run --prompts`' },
    reference: { type: 'string', default: 'gpt-4', description: 'reference answer source' },
    parser: { type: 'string', default: 'last', description: 'last | fastchat' },
    temperature: {
      type: 'string',
      description:
        'sampling temperature of the new judge (default 0 for chat models, none sent to reasoning models)',
    },
    ...judgeCallArgs,
  },
  async run({ args }) {
    const { checkApiKeys } = await import('../../judges/registry.ts');
    const { fatalStopError } = await import('../../judges/fatal-stop.ts');
    const { runSuccession } = await import('../../engine/succession.ts');
    const { successionReport } = await import('../../reports/succession.ts');
    const { judgeData } = await import('../../reports/results.ts');
    const { ensureRunPrompts } = await import('../../importers/builtin.ts');
    const { spillGames } = await import('../../storage/recovery.ts');
    const parser = oneOf(args.parser, 'parser', ['last', 'fastchat'] as const)!;
    const setup = judgeSetupOf(args.to, args);
    checkApiKeys([setup], process.env);
    const { open, ctl, refused } = stoppingJudges();
    const judge = await open(setup);
    const store = openStore(args.db, { mustExist: true });
    const onSignal = () => ctl.abort(new Error('interrupted'));
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const old = (await judgeData(store, args.from)).outcomes;
      const models = list(args.models) ?? [...new Set(old.flatMap((o) => [o.model1, o.model2]))].sort();
      const turns = list(args.turn)!.map((t) => int(t, 'turn')!);
      await checkModels(store, models, 'models', { withVotes: false });
      await checkTurns(store, turns);
      await ensureRunPrompts(store, ['pairwise-all'], args.prompts);
      const run = await runSuccession({
        store,
        judge,
        from: args.from,
        mode: 'pairwise-all',
        models,
        turns,
        ...(args.prompts ? { promptSet: args.prompts } : {}),
        referenceSource: args.reference,
        parser,
        settings: settingsOf(args),
        concurrency: int(args.concurrency, 'concurrency')!,
        signal: ctl.signal,
        precision: num(args.precision, 'precision')!,
        ratingPrecision: num(args['rating-precision'], 'rating-precision')!,
        ...(args['max-calls'] === undefined ? {} : { maxCalls: int(args['max-calls'], 'max-calls')! }),
        ...(args.round ? { round: int(args.round, 'round')! } : {}),
        seed: int(args.seed, 'seed')!,
        onRound: (r) =>
          process.stderr.write(
            `round ${r.round}: ${r.matches} match(es) (both orders); ${r.bridge} of ${r.candidates} bridge candidates played (${judge.id})\n`,
          ),
        ...processLiveness(),
        spill: (games: Game[], rec: RunRecord) => spillGames(args.db, tmpdir(), games, rec),
      });
      if (refused()) throw fatalStopError(refused()!);
      if (run.stop === 'failed') exitStatus.code = 2;
      if (run.stop === 'interrupted') exitStatus.code = 130;
      const report = await successionReport(store, args.from, judge.id, { seed: int(args.seed, 'seed')! });
      const { stop, paid, rounds, candidates } = run;
      const out = { stop, paid, rounds, candidates, ...report };
      if (args.json) return printJson(out);
      printSuccession(out);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await judge.close?.();
      await store.close();
    }
  },
});
