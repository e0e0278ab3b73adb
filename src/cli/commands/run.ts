import { defineCommand } from 'citty';
import type cliProgress from 'cli-progress';
import { progressBar } from '../progress-bar.ts';
import { processLiveness } from '../liveness.ts';
import { planRun, runTournament } from '../../engine/run.ts';
import { setMaxListeners } from 'node:events';
import v8 from 'node:v8';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Game, Mode } from '../../core/types.ts';
import { apiKeyOf, openJudge } from '../../judges/registry.ts';
import { authStopError } from '../../judges/auth-stop.ts';
import type { JudgeCallError } from '../../judges/judge.ts';
import { int, list, num, oneOf, UsageError } from '../format.ts';
import { judgeCallArgs, judgeSetupOf } from '../judge-args.ts';
import { dbArg, exitStatus, openStore, print } from '../shared.ts';
import { checkModels, checkPairSet, checkTurns } from '../validate.ts';
import { DEFAULT_BASELINE, DEFAULT_REFERENCE_SOURCE } from '../../core/constants.ts';
import { ensureRunPrompts, missingRunPrompts } from '../../importers/builtin.ts';
import type { ImportSources } from '../../importers/import.ts';
import { pendingView, type StoreReader } from '../../storage/pending.ts';
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

export default defineCommand({
  meta: {
    name: 'run',
    description: 'plan and play the games that are not stored yet (resumable; never pays twice for a game)',
  },
  args: {
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
  },
  async run({ args }) {
    // Between full collections V8 lets the old generation grow to several times the live data. A tournament's
    // requests in flight are promoted and die there: the heap reached ~190 MiB for ~45 MiB live, the process
    // ~300 MiB. A 15% growth step keeps it under 200 MiB at no CPU cost we could measure (bench/run.ts). The
    // flag is read at every collection, so setting it here (and not on the command line) takes effect.
    v8.setFlagsFromString('--heap-growing-percent=15');
    const mode = oneOf(args.mode, 'mode', MODES)! as Mode;
    const parser = oneOf(args.parser, 'parser', ['last', 'fastchat'] as const)!;
    const models = list(args.models) ?? (args.set ? ['output_1', 'output_2'] : undefined);
    if (!models?.length) throw new UsageError('--models needs at least one model');
    if (args.set && mode !== 'pairwise-all')
      throw new UsageError('--set judges the two outputs of each labelled item: use --mode pairwise-all');
    const turns = list(args.turn)!.map((t) => int(t, 'turn')!);
    const concurrency = int(args.concurrency, 'concurrency')!;
    const judgeSpecs = [args.judge as string | string[]].flat();
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
    if (!args['dry-run']) for (const setup of setups.values()) apiKeyOf(setup, process.env);
    let bar: cliProgress.SingleBar | undefined;
    const log = (m: string) => process.stderr.write(`${bar ? '\n' : ''}${m}\n`);
    const makeJudge = (spec: string) =>
      openJudge(setups.get(spec) ?? judgeSetupOf(spec, args), process.env, {
        log,
        onAuthFailure,
        planOnly: !!args['dry-run'],
      });
    const store = openStore(args.db);
    const judge = await makeJudge(judgeSpecs[0]!);
    setMaxListeners(0, ctl.signal); // one listener per game in flight
    let interrupted = false;
    const onSignal = () => {
      if (ctl.signal.aborted && !fatal) process.exit(130);
      bar?.stop();
      bar = undefined; // not redrawn after the interruption
      interrupted = true;
      log('interrupted: finishing the games in flight is not waited for; rerun to resume');
      ctl.abort(new Error('interrupted'));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      let questionIds: number[] | undefined;
      // a dry run writes nothing: it checks and plans on a view of the database with what a run would
      // import (--questions, --answers, the shipped prompts) applied (src/storage/pending.ts)
      const dry = !!args['dry-run'];
      // verdicts an earlier run paid for but could not store (a full disk) are stored first
      if (!dry)
        for (const r of await restoreSpilled(store, args.db))
          process.stderr.write(
            `stored ${r.games} verdict(s) an earlier run paid for but could not store (${r.file})\n`,
          );
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
        spill: (games: Game[], run: RunRecord) => spillGames(args.db, games, run),
      };
      if (args['dry-run']) {
        for (const spec of judgeSpecs) {
          const j = spec === judgeSpecs[0] ? judge : await makeJudge(spec);
          const { games } = await planRun({ ...common, store: reader, judge: j });
          const stored = await store.existingGameIds(games.map((g) => g.id));
          print(
            `${games.length} games planned, ${stored.size} already stored: ${games.length - stored.size} judge calls to make with ${j.id}`,
          );
          if (j !== judge) await j.close?.();
        }
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
      const t0 = Date.now();
      const summary = await runTournament({
        ...common,
        parser,
        concurrency,
        signal: ctl.signal,
        onPlan: ({ planned, stored, toPlay }) => {
          process.stderr.write(
            `${planned} games planned, ${stored} already stored: ${toPlay} judge calls to make with ${judge.id} (concurrency ${concurrency})\n`,
          );
          if (!toPlay) return;
          bar = progressBar(
            'games {bar} {value}/{total} | {rate}/s | ETA {eta_formatted} | failed {failed} | tokens {tokens}',
          );
          bar.start(toPlay, 0, { rate: '0.0', failed: 0, tokens: 0 });
        },
        onProgress: (p) => {
          if (interrupted) return;
          const secs = (Date.now() - t0) / 1000;
          bar?.update(p.done + p.failed, {
            rate: (p.done / Math.max(secs, 1e-3)).toFixed(1),
            failed: p.failed,
            tokens: p.tokensIn + p.tokensOut,
          });
        },
      });
      bar?.stop();
      if (fatal) {
        const { errors: _e, skipped: _s, ...record } = summary;
        await store.saveRun({ ...record, status: 'failed' });
        throw authStopError(fatal);
      }
      const secs = ((summary.finishedAt! - summary.startedAt) / 1000).toFixed(1);
      print(
        `run ${summary.id}${summary.status === 'interrupted' ? ' interrupted' : ''}: ${summary.played} played, ${summary.failed} failed, ${summary.planned - summary.toPlay} already stored, ${summary.tokensIn + summary.tokensOut} tokens, ${secs} s`,
      );
      if (summary.elsewhere)
        process.stderr.write(
          `${summary.elsewhere} planned game(s) were played by another run on ${args.db} meanwhile\n`,
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
    } finally {
      bar?.stop();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await judge.close?.();
      await store.close();
    }
  },
});
