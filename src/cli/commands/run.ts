import { defineCommand, type ArgsDef, type ParsedArgs } from 'citty';
import type cliProgress from 'cli-progress';
import { drawsBar, progressBar } from '../progress-bar.ts';
import { processLiveness } from '../liveness.ts';
import { runTournament, type RunSummary } from '../../engine/run.ts';
import { setMaxListeners } from 'node:events';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Game, Mode } from '../../core/types.ts';
import { checkApiKeys, openJudge, type GovernedJudge } from '../../judges/registry.ts';
import { authStopError } from '../../judges/auth-stop.ts';
import type { JudgeCallError } from '../../judges/judge.ts';
import { int, list, num, oneOf, UsageError } from '../format.ts';
import { judgeCallArgs, judgeSetupOf } from '../judge-args.ts';
import { dbArg, exitStatus, openStore, print } from '../shared.ts';
import { updateReportsOf } from '../reports.ts';
import { checkModels, checkPairSet, checkTurns } from '../validate.ts';
import { DEFAULT_BASELINE, DEFAULT_REFERENCE_SOURCE } from '../../core/constants.ts';
import { ensureRunPrompts, missingRunPrompts } from '../../importers/builtin.ts';
import type { ImportSources } from '../../importers/import.ts';
import { pendingView, type StoreReader } from '../../storage/pending.ts';
import type { SqliteStore } from '../../storage/sqlite.ts';
import { restoreSpilled, spillGames } from '../../storage/recovery.ts';
import type { RunRecord } from '../../storage/store.ts';

const MODES = ['pairwise-all', 'pairwise-baseline', 'single'] as const;

function answerFiles(paths: string[]): string[] {
  return paths.flatMap((p) =>
    statSync(p).isDirectory()
      ? readdirSync(p)
          .filter((f) => f.endsWith('.jsonl'))
          .sort()
          .map((f) => join(p, f))
      : [p],
  );
}

const runArgs = {
  ...dbArg,
  judge: {
    type: 'string',
    required: true,
    description:
      'openai/<model>, llama-cpp/<path.gguf>[?threads=1&ctx=4096&gpuLayers=auto&sequences=4&grammar=on] or mock/<behaviour>; repeat --judge to play every match with each judge (side by side)',
  },
  'escalate-to': {
    type: 'string',
    description:
      'second judge for the matches the (local) --judge is unsure of: low confidence, inconsistent orders, unparsable',
  },
  below: {
    type: 'string',
    default: '0.6',
    description: "with --escalate-to: escalate a match when a game's verdict probability is below this",
  },
  models: {
    type: 'string',
    description:
      'comma-separated models (pairwise-all pairs them in this order); with --set: output_1,output_2',
  },
  set: {
    type: 'string',
    description:
      'judge a labelled pair set (arena import pairs; e.g. Natural) instead of the tournament: read its accuracy with `arena accuracy`',
  },
  mode: { type: 'string', default: 'pairwise-all', description: MODES.join(' | ') },
  baseline: {
    type: 'string',
    default: DEFAULT_BASELINE,
    description: 'baseline model for pairwise-baseline',
  },
  questions: {
    type: 'string',
    description: 'question.jsonl to import and judge (default: the questions the models have answers for)',
  },
  answers: {
    type: 'string',
    description: 'comma-separated model_answer files or directories to import first',
  },
  turn: {
    type: 'string',
    default: '1,2',
    description: 'turns to judge, comma-separated (--turns: the old spelling)',
  },
  prompts: {
    type: 'string',
    description:
      "prompt set: mt-bench | arena (default: mt-bench when imported); pairwise only, each with its own parser: judgelm | pandalm | autoj | prometheus | arena-hard | llmbar (LLMBar's plain prompt)",
  },
  reference: {
    type: 'string',
    default: DEFAULT_REFERENCE_SOURCE,
    description: 'reference answer source for math/reasoning/coding',
  },
  parser: {
    type: 'string',
    default: 'last',
    description: 'last (the verdict given last) | fastchat (FastChat precedence)',
  },
  temperature: {
    type: 'string',
    default: '0',
    description: "sampling temperature of the judge (part of each game's identity)",
  },
  'max-tokens': {
    type: 'string',
    default: '2048',
    description: "most tokens a judge reply may have (part of each game's identity)",
  },
  concurrency: { type: 'string', default: '8', description: 'judge calls in flight' },
  ...judgeCallArgs,
  'dry-run': { type: 'boolean', description: 'print the plan and exit' },
  json: {
    type: 'boolean',
    description:
      'with --until-settled: print the summary as JSON (why it stopped, matches played per pair, the skipped pairs)',
  },
  'until-settled': {
    type: 'boolean',
    description:
      "play the plan's matches in rounds, each chosen where the intervals are still open; pairwise-all: stop once every pair's order is decided; pairwise-baseline: stop each model once its interval against the baseline excludes 50% (or is narrower than --width). A later full run pays only what was skipped",
  },
  round: {
    type: 'string',
    valueHint: 'MATCHES',
    description:
      'with --until-settled: matches per round (pairwise-baseline: per model; default: a tenth of the plan)',
  },
  width: {
    type: 'string',
    valueHint: 'SHARE',
    description:
      "with --until-settled and pairwise-baseline: also stop a model once its win rate's interval is narrower than this (0-1, e.g. 0.1)",
  },
  target: {
    type: 'string',
    valueHint: 'WIDTH',
    description:
      "with --until-settled: also stop once the rank intervals' widths (worst − best) sum to at most this",
  },
} satisfies ArgsDef;

type RunArgs = ParsedArgs<typeof runArgs>;

export default defineCommand({
  meta: {
    name: 'run',
    description: 'plan and play the games that are not stored yet (resumable; never pays twice for a game)',
  },
  args: runArgs,
  async run({ args }) {
    const mode = oneOf(args.mode, 'mode', MODES)! as Mode;
    const parser = oneOf(args.parser, 'parser', ['last', 'fastchat'] as const)!;
    const models = list(args.models) ?? (args.set ? ['output_1', 'output_2'] : undefined);
    if (!models?.length) throw new UsageError('--models needs at least one model');
    if (args.set && mode !== 'pairwise-all')
      throw new UsageError('--set judges the two outputs of each labelled item: use --mode pairwise-all');
    const turns = list(args.turn)!.map((t) => int(t, 'turn')!);
    const concurrency = int(args.concurrency, 'concurrency')!;
    const judgeSpecs = [args.judge as string | string[]].flat();
    const settle = settleArgs(args, mode, judgeSpecs.length);
    // every judge's setup is checked (options, API key) before anything is opened or imported
    const setups = new Map(
      [...judgeSpecs, ...(args['escalate-to'] ? [args['escalate-to']] : [])].map((spec) => [
        spec,
        judgeSetupOf(spec, args),
      ]),
    );
    const ctl = new AbortController();
    // the first 401/403 stops the whole run: no retry and no other game can fix a refused key
    let fatal: JudgeCallError | undefined;
    const onAuthFailure = (e: JudgeCallError) => {
      fatal = e;
      setImmediate(() => ctl.abort(e));
    };
    // without a key OpenAI answers every call with 401: say so before the database is opened
    if (!args['dry-run']) checkApiKeys(setups.values(), process.env);
    const ui: RunUi = { bar: undefined, interrupted: false };
    const log = (m: string) => process.stderr.write(`${ui.bar && drawsBar() ? '\n' : ''}${m}\n`);
    const makeJudge = (spec: string) =>
      openJudge(setups.get(spec) ?? judgeSetupOf(spec, args), process.env, {
        log,
        onAuthFailure,
        planOnly: !!args['dry-run'],
      });
    const store = openStore(args.db);
    const judge = await makeJudge(judgeSpecs[0]!);
    setMaxListeners(0, ctl.signal); // one listener per game in flight
    const onSignal = () => {
      if (ctl.signal.aborted && !fatal) process.exit(130);
      ui.bar?.stop();
      ui.bar = undefined; // not redrawn after the interruption
      ui.interrupted = true;
      log('interrupted: finishing the games in flight is not waited for; rerun to resume');
      ctl.abort(new Error('interrupted'));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      // verdicts an earlier run paid for but could not store (a full disk) are stored first
      if (!args['dry-run'])
        for (const r of await restoreSpilled(store, args.db, tmpdir()))
          process.stderr.write(
            `stored ${r.games} verdict(s) an earlier run paid for but could not store (${r.file})\n`,
          );
      const { reader, questionIds } = await prepareStore(store, args, mode, models, turns);
      const common = {
        store,
        judge,
        mode,
        models,
        baseline: args.baseline,
        ...(questionIds ? { questionIds } : {}),
        ...(args.set ? { set: args.set } : {}),
        turns,
        ...(args.prompts ? { promptSet: args.prompts } : {}),
        referenceSource: args.reference,
        settings: {
          temperature: num(args.temperature, 'temperature')!,
          maxTokens: int(args['max-tokens'], 'max-tokens')!,
        },
        ...processLiveness(),
        spill: (games: Game[], run: RunRecord) => spillGames(args.db, tmpdir(), games, run),
      };
      if (args['dry-run']) {
        const { printDryRun } = await import('./run-dry.ts');
        await printDryRun({ judgeSpecs, judge, makeJudge, common, reader, store, settle });
        return;
      }
      if (judgeSpecs.length > 1 || args['escalate-to']) {
        const { runMany } = await import('./run-multi.ts');
        await runMany({
          common: { ...common, parser, concurrency, signal: ctl.signal },
          judge,
          judgeSpecs,
          makeJudge,
          ...(args['escalate-to'] ? { escalateTo: args['escalate-to'] } : {}),
          below: num(args.below, 'below')!,
        });
        if (fatal) throw authStopError(fatal);
        return;
      }
      if (settle) {
        const { playUntilSettled } = await import('./run-settled.ts');
        const { json, ...opts } = settle;
        await playUntilSettled(
          { ...common, parser, concurrency, signal: ctl.signal, ...opts },
          judge,
          !!json,
        );
        if (fatal) throw authStopError(fatal);
        return;
      }
      const summary = await playWithProgress(
        { ...common, parser, concurrency, signal: ctl.signal },
        judge,
        concurrency,
        ui,
      );
      ui.bar?.stop();
      if (fatal) {
        const { errors: _e, skipped: _s, ...record } = summary;
        await store.runs.save({ ...record, status: 'failed' });
        throw authStopError(fatal);
      }
      reportRun(summary, args.db);
    } finally {
      ui.bar?.stop();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await judge.close?.();
      await store.close();
    }
    // the games played so far are stored, also after an interruption or a failure
    // reports are refreshed best-effort: several runs ending together can find the file busy, and the games are
    // stored whatever happens here (the site shows a stale report as such; `arena reports --rebuild` catches up)
    if (!args['dry-run'])
      await updateReportsOf(args.db).catch((e: unknown) =>
        process.stderr.write(
          `reports: not updated (${(e as Error).message}); run \`arena reports --rebuild --db ${args.db}\` later\n`,
        ),
      );
  },
});

/** --until-settled's options, checked: undefined without the flag. */
function settleArgs(
  args: RunArgs,
  mode: Mode,
  judges: number,
): { round?: number; target?: number; width?: number; json?: boolean } | undefined {
  if (!args['until-settled']) {
    if (args.round !== undefined || args.target !== undefined || args.width !== undefined || args.json)
      throw new UsageError('--round, --target, --width and --json go with --until-settled');
    return undefined;
  }
  if (mode === 'single')
    throw new UsageError('--until-settled schedules --mode pairwise-all or pairwise-baseline only');
  if (args.width !== undefined && mode !== 'pairwise-baseline')
    throw new UsageError('--width goes with --mode pairwise-baseline (pairwise-all stops on --target)');
  if (args.target !== undefined && mode !== 'pairwise-all')
    throw new UsageError('--target goes with --mode pairwise-all (pairwise-baseline stops on --width)');
  if (judges > 1 || args['escalate-to'])
    throw new UsageError('--until-settled plays one judge (no repeated --judge, no --escalate-to)');
  const round = int(args.round, 'round');
  const target = num(args.target, 'target');
  const width = num(args.width, 'width');
  if (width !== undefined && !(width > 0 && width <= 1))
    throw new UsageError(`--width is a share of wins: a number above 0 and at most 1, not ${args.width}`);
  return {
    ...(round !== undefined ? { round } : {}),
    ...(target !== undefined ? { target } : {}),
    ...(width !== undefined ? { width } : {}),
    ...(args.json ? { json: true } : {}),
  };
}

/** The progress bar (none before the plan, nor after an interruption) and whether the run was interrupted. */
interface RunUi {
  bar: cliProgress.SingleBar | undefined;
  interrupted: boolean;
}

/**
 * The store made ready for the run: --questions and --answers imported, the models, turns or pair set checked,
 * the shipped prompts the run needs imported. A dry run writes nothing: it checks and plans on a view of the
 * database with what a run would import applied (src/storage/pending.ts).
 */
async function prepareStore(
  store: SqliteStore,
  args: RunArgs,
  mode: Mode,
  models: string[],
  turns: number[],
): Promise<{ reader: StoreReader; questionIds: number[] | undefined }> {
  let questionIds: number[] | undefined;
  const dry = !!args['dry-run'];
  let reader: StoreReader = store;
  if (args.questions || args.answers) {
    const sources: ImportSources = {
      ...(args.questions ? { questions: [args.questions] } : {}),
      ...(args.answers ? { answers: answerFiles(list(args.answers)!) } : {}),
    };
    // the importers load only for a run that imports files
    const { importFiles, readImport } = await import('../../importers/import.ts');
    if (dry) reader = pendingView(store, (await readImport(store, sources)).bundle);
    else await importFiles(store, sources);
  }
  if (args.questions)
    questionIds = (await import('../../importers/formats.ts'))
      .parseQuestions(args.questions, readFileSync(args.questions))
      .map((q) => q.id);
  if (args.set)
    await checkPairSet(reader, args.set); // its items are single-turn pairs of output_1 and output_2
  else {
    await checkModels(reader, models, 'models', { withVotes: false });
    if (mode === 'pairwise-baseline')
      await checkModels(reader, [args.baseline], 'baseline', { withVotes: false });
    await checkTurns(reader, turns, 'turn');
  }
  // planning reads only: the shipped prompts the prompt set needs are imported here, once
  if (dry) reader = pendingView(reader, { prompts: await missingRunPrompts(reader, mode, args.prompts) });
  else await ensureRunPrompts(store, [mode], args.prompts);
  return { reader, questionIds };
}

/** One judge's tournament, with its plan on stderr and a progress bar while it plays. */
async function playWithProgress(
  o: Parameters<typeof runTournament>[0],
  judge: GovernedJudge,
  concurrency: number,
  ui: RunUi,
): Promise<RunSummary> {
  const t0 = Date.now();
  return runTournament({
    ...o,
    onPlan: ({ planned, stored, toPlay }) => {
      process.stderr.write(
        `${planned} games planned, ${stored} already stored: ${toPlay} judge calls to make with ${judge.id} (concurrency ${concurrency})\n`,
      );
      if (!toPlay) return;
      ui.bar = progressBar(
        'games {bar} {value}/{total} | {rate}/s | ETA {eta_formatted} | failed {failed} | tokens {tokens} | {tpm}',
      );
      ui.bar.start(toPlay, 0, {
        rate: '0.0',
        failed: 0,
        tokens: 0,
        tpm: tokensPerMinute(0, 0, judge.limits().tpm),
      });
    },
    onProgress: (p) => {
      if (ui.interrupted) return;
      const secs = (Date.now() - t0) / 1000;
      ui.bar?.update(p.done + p.failed, {
        rate: (p.done / Math.max(secs, 1e-3)).toFixed(1),
        failed: p.failed,
        tokens: p.tokensIn + p.tokensOut,
        tpm: tokensPerMinute(judge.tokensCharged(), secs, judge.limits().tpm),
      });
    },
  });
}

/** The run's summary line, its warnings and failures; sets the exit status (2: games failed, 130: interrupted). */
function reportRun(summary: RunSummary, db: string): void {
  const secs = ((summary.finishedAt! - summary.startedAt) / 1000).toFixed(1);
  print(
    `run ${summary.id}${summary.status === 'interrupted' ? ' interrupted' : ''}: ${summary.played} played, ${summary.failed} failed, ${summary.planned - summary.toPlay} already stored, ${summary.tokensIn + summary.tokensOut} tokens, ${secs} s`,
  );
  if (summary.elsewhere)
    process.stderr.write(
      `${summary.elsewhere} planned game(s) were played by another run on ${db} meanwhile\n`,
    );
  if (summary.redacted)
    process.stderr.write(
      `warning: the judge's server put the API key in ${summary.redacted} place(s) of its replies; it was replaced by [redacted] before they were stored\n`,
    );
  if (summary.usageUnknown)
    process.stderr.write(
      `${summary.usageUnknown} game(s) came without valid token counts (usage); their tokens are unknown and not in the total\n`,
    );
  if (summary.failed) {
    for (const e of summary.errors.slice(0, 5)) process.stderr.write(`  failed: ${e}\n`);
    process.stderr.write(
      `${summary.failed} game(s) not played (no verdict stored); rerun the same command to retry them\n`,
    );
    exitStatus.code = 2;
  }
  if (summary.status === 'interrupted') exitStatus.code = 130;
}

/** `12.3k tokens/min of 90k`: the tokens charged per minute so far (prompt + max_tokens), against the known limit. */
function tokensPerMinute(tokens: number, secs: number, tpm: number | undefined): string {
  const k = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : n.toFixed(0));
  const rate = `${k((tokens * 60) / Math.max(secs, 1))} tokens/min`;
  return tpm ? `${rate} of ${k(tpm)}` : rate;
}
