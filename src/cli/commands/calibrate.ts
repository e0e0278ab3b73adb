import { defineCommand } from 'citty';
import { int, list, num, runName, table, UsageError } from '../format.ts';
import { dbArg, exitStatus, jsonArg, openStore, print, printJson, log } from '../shared.ts';
import { failureLines } from '../errors.ts';
import { judgeCallArgs, judgeSetupOf, stoppingJudges } from '../judge-args.ts';
import { pct, gapTable } from './analytics-shared.ts';
import { processLiveness } from '../liveness.ts';
import { checkModels, checkTurns } from '../validate.ts';

export const calibrateArgs = {
  samples: { type: 'string', default: '3', description: 'MEC: samples per order (k)' },
} as const;

export const calibrateCommand = defineCommand({
  meta: {
    name: 'calibrate',
    description:
      'score-based evidence-first pairwise judging with MEC (k samples at temperature 1) and BPC (both orders); plays what is not stored, then reports',
  },
  args: {
    ...dbArg,
    ...jsonArg,
    judge: {
      type: 'string',
      required: true,
      description: 'openai/<model> or mock/<behaviour>; games are stored as <judge>+fair',
    },
    models: { type: 'string', required: true, description: 'comma-separated models (every pair is judged)' },
    questions: { type: 'string', description: 'comma-separated question ids (default: all)' },
    turn: {
      type: 'string',
      default: '1,2',
      description: 'turns to judge, comma-separated (--turns: the old spelling)',
    },
    ...calibrateArgs,
    temperature: { type: 'string', default: '1', description: 'sampling temperature of the MEC samples' },
    ...judgeCallArgs,
  },
  async run({ args }) {
    const { runCalibrated, calibratedReport } = await import('../../engine/calibrated.ts');
    const { fatalStopError } = await import('../../judges/fatal-stop.ts');
    const models = list(args.models);
    if (!models || models.length < 2) throw new UsageError('--models needs at least two models');
    const samples = int(args.samples, 'samples')!; // at least 1: cli/validate.ts
    const setup = judgeSetupOf(args.judge, args);
    // the key is checked before the database is opened; the first fatal refusal stops the whole run
    const { open, ctl, refused } = stoppingJudges();
    const judge = await open(setup);
    const store = openStore(args.db, { mustExist: true });
    try {
      const turns = list(args.turn)!.map((t) => int(t, 'turn')!);
      await checkModels(store, models, 'models', { withVotes: false });
      await checkTurns(store, turns);
      const questionIds = list(args.questions)?.map((q) => int(q, 'questions')!);
      const run = await runCalibrated({
        store,
        judge,
        models,
        ...(questionIds ? { questionIds } : {}),
        turns,
        samples,
        temperature: num(args.temperature, 'temperature')!,
        maxTokens: int(args['max-tokens'], 'max-tokens')!,
        concurrency: int(args.concurrency, 'concurrency')!,
        signal: ctl.signal,
        ...processLiveness(),
      });
      if (refused()) {
        const { errors: _e, ...record } = run;
        await store.runs.save({ ...record, status: 'failed' });
        throw fatalStopError(refused()!);
      }
      const report = await calibratedReport(store, judge.id, { samples });
      if (args.json) return printJson({ run, report });
      print(
        `${runName(run)}: ${run.played} played, ${run.failed} failed, ${run.planned - run.toPlay} already stored (${run.planned} games = matches x 2 orders x ${samples} samples)`,
      );
      if (run.failed) {
        for (const l of failureLines(run.errors)) log(l);
        exitStatus.code = 2;
      }
      printCalibrated(report);
    } finally {
      await judge.close?.();
      await store.close();
    }
  },
});

function printCalibrated(
  r: Awaited<ReturnType<typeof import('../../engine/calibrated.ts').calibratedReport>>,
) {
  print(
    `\n${r.judge}: ${r.matches} matches, ${r.validSamples} valid samples, ${r.unparsableSamples} unparsable (excluded), ${r.errors} matches with no valid sample in an order (errors)`,
  );
  for (const e of r.errorReasons) print(`  error: ${e}`);
  const first = new Map(r.firstSample.map((s) => [s.model, s]));
  print(
    `\n${table(
      r.calibrated.map((s) => ({
        model: s.model,
        win: s.win,
        loss: s.loss,
        tie: s.tie,
        error: s.error,
        'win rate (MEC+BPC)': pct(s.winRateAdjusted),
        'first sample only': pct(first.get(s.model)?.winRateAdjusted),
        'its conflicts': first.get(s.model)?.inconsistent ?? 0,
      })),
    )}`,
  );
  print(`\nconflict rate of the first samples by calibrated score gap:\n${gapTable(r.byGap)}`);
}
