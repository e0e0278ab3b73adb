// `arena run`: plan the games a tournament (or a labelled pair set) needs and play those not stored yet: one judge
// (run-progress.ts), several (run-multi.ts), until settled (run-settled.ts), or only the plan (run-dry.ts).
import { defineCommand } from 'citty';
import type { Mode } from '../../core/types.ts';
import { fatalStopError } from '../../judges/fatal-stop.ts';
import { retirementWarning } from '../../core/retirement.ts';
import { costOf, tablePriceOf } from '../../ops/prices.ts';
import type { JudgeCallError } from '../../judges/judge.ts';
import { checkApiKeys, type GovernedJudge } from '../../judges/registry.ts';
import type { SqliteStore } from '../../storage/sqlite.ts';
import { int, list, num, oneOf, UsageError } from '../format.ts';
import { judgeSetupOf, settingsOf, stoppingJudges } from '../judge-args.ts';
import { processLiveness } from '../liveness.ts';
import { drawsBar } from '../progress-bar.ts';
import { updateReports } from '../reports.ts';
import { openStore, recovered } from '../shared.ts';
import { judgeSpecsOf, MODES, runArgs, settleArgs, type RunArgs } from './run-args.ts';
import { prepareStore } from './run-prepare.ts';
import { playWithProgress, reportRun, type RunUi } from './run-progress.ts';

/** One run in progress; `fatal`: the first fatal refusal (a key, a retired model), which stopped it. */
interface RunContext {
  args: RunArgs;
  request: ReturnType<typeof readRequest>;
  store: SqliteStore;
  judge: GovernedJudge;
  makeJudge(spec: string): Promise<GovernedJudge>;
  signal: AbortSignal;
  ui: RunUi;
  fatal(): JudgeCallError | undefined;
}

export default defineCommand({
  meta: {
    name: 'run',
    description: 'plan and play the games that are not stored yet (resumable; never pays twice for a game)',
  },
  args: runArgs,
  async run({ args }) {
    const request = readRequest(args);
    // without a key OpenAI answers every call with 401: say so before the database is opened
    if (!args['dry-run']) checkApiKeys(request.setups.values(), process.env);
    const ui: RunUi = { bar: undefined, interrupted: false };
    const log = (m: string) => process.stderr.write(`${ui.bar && drawsBar() ? '\n' : ''}${m}\n`);
    const { open, ctl, refused } = stoppingJudges({ log, planOnly: !!args['dry-run'] });
    const makeJudge = (spec: string) => open(request.setups.get(spec) ?? judgeSetupOf(spec, args));
    const store = openStore(args.db);
    const judge = await makeJudge(request.judgeSpecs[0]!);
    const retiring = retirementWarning(await judge.retirement(), args['base-url']);
    if (retiring) log(`warning: ${retiring}`);
    const onSignal = () => {
      if (ctl.signal.aborted && !refused()) process.exit(130);
      ui.bar?.stop();
      ui.bar = undefined; // not redrawn after the interruption
      ui.interrupted = true;
      log('interrupted: finishing the games in flight is not waited for; rerun to resume');
      ctl.abort(new Error('interrupted'));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    let played = false;
    try {
      played = await play({ args, request, store, judge, makeJudge, signal: ctl.signal, ui, fatal: refused });
    } finally {
      ui.bar?.stop();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // the games played so far are stored, also after an interruption or a failure
      if (played && args.db !== ':memory:') await refreshReports(store, args.db);
      await judge.close?.();
      await store.close();
    }
  },
});

/** The command line read and checked: modes, models, turns, --until-settled and every judge's setup. */
function readRequest(args: RunArgs) {
  const mode = oneOf(args.mode, 'mode', MODES)! as Mode;
  const parser = oneOf(args.parser, 'parser', ['last', 'fastchat'] as const)!;
  const models = list(args.models) ?? (args.set ? ['output_1', 'output_2'] : undefined);
  if (!models?.length) throw new UsageError('--models needs at least one model');
  if (args.set && mode !== 'pairwise-all')
    throw new UsageError('--set judges the two outputs of each labelled item: use --mode pairwise-all');
  const turns = list(args.turn)!.map((t) => int(t, 'turn')!);
  const concurrency = int(args.concurrency, 'concurrency')!;
  const judgeSpecs = judgeSpecsOf(args); // every --judge, in order
  const settle = settleArgs(args, mode, judgeSpecs.length);
  // every judge's setup (--escalate-to's included) is checked (options, API key) before anything is opened or imported
  const specs = [...judgeSpecs, ...(args['escalate-to'] ? [args['escalate-to']] : [])];
  const setups = new Map(specs.map((spec) => [spec, judgeSetupOf(spec, args)]));
  return { mode, parser, models, turns, concurrency, judgeSpecs, settle, setups };
}

/** An OpenAI judge the price table knows is priced (`arena cost`); any other judge's cost stays unknown. */
function priced(judgeId: string) {
  const price = tablePriceOf(judgeId);
  return price
    ? { costOf: (i: number | null, o: number | null, cached?: number | null) => costOf(price, i, o, cached) }
    : {};
}

/** The plan printed (--dry-run) or played as the request asks; whether a one-judge tournament was played to its end. */
async function play(c: RunContext): Promise<boolean> {
  const { args, request: r, store, judge } = c;
  const spill = await recovered(store, args.db, { dryRun: !!args['dry-run'] });
  const { reader, questionIds } = await prepareStore(store, args, r.mode, r.models, r.turns);
  const common = {
    store,
    judge,
    mode: r.mode,
    models: r.models,
    baseline: args.baseline,
    ...(questionIds ? { questionIds } : {}),
    ...(args.set ? { set: args.set } : {}),
    turns: r.turns,
    ...(args.prompts ? { promptSet: args.prompts } : {}),
    referenceSource: args.reference,
    settings: settingsOf(args),
    ...processLiveness(),
    spill,
  };
  if (args['dry-run']) {
    const { printDryRun } = await import('./run-dry.ts');
    await printDryRun({
      judgeSpecs: r.judgeSpecs,
      judge,
      makeJudge: c.makeJudge,
      common,
      reader,
      store,
      settle: r.settle,
    });
    return false;
  }
  const playing = { ...common, parser: r.parser, concurrency: r.concurrency, signal: c.signal };
  if (r.judgeSpecs.length > 1 || args['escalate-to']) {
    const { runMany } = await import('./run-multi.ts');
    await runMany({
      common: playing,
      judge,
      judgeSpecs: r.judgeSpecs,
      makeJudge: c.makeJudge,
      ...(args['escalate-to'] ? { escalateTo: args['escalate-to'] } : {}),
      below: num(args.below, 'below')!,
      ...(args['softent-above'] !== undefined
        ? { softentAbove: num(args['softent-above'], 'softent-above')! }
        : {}),
    });
  } else if (r.settle) {
    const { playUntilSettled } = await import('./run-settled.ts');
    const { json, ...opts } = r.settle;
    await playUntilSettled({ ...playing, ...priced(judge.id), ...opts }, judge, !!json);
  } else {
    const summary = await playWithProgress({ ...playing, ...priced(judge.id) }, judge, r.concurrency, c.ui);
    c.ui.bar?.stop();
    const fatal = c.fatal();
    if (fatal) {
      const { errors: _e, skipped: _s, ...record } = summary;
      await store.runs.save({ ...record, status: 'failed' });
      throw fatalStopError(fatal);
    }
    reportRun(summary, args.db);
    return true;
  }
  const fatal = c.fatal();
  if (fatal) throw fatalStopError(fatal);
  return false;
}

/** The stored reports brought up to date, best-effort: the games are stored whatever happens here. */
async function refreshReports(store: SqliteStore, db: string): Promise<void> {
  await updateReports(store).catch((e: unknown) =>
    process.stderr.write(
      `reports: not updated (${(e as Error).message}); run \`arena reports --rebuild --db ${db}\` later\n`,
    ),
  );
}
