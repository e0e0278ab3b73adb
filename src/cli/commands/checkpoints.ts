// `arena checkpoints run|add|report`: a fine-tuning run's checkpoints against a baseline.
import { defineCommand } from 'citty';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { refuseDatabaseOutput, writeOutputFile } from '../out-file.ts';
import { table, UsageError } from '../format.ts';
import { exitStatus, print, printTable, printJson } from '../shared.ts';
import * as figures from '../../core/format.ts';
import type { CheckpointRow, ShownInterval } from '../../core/stats/checkpoints.ts';
import { withProgress } from './ops.ts';

const checkpointsConfigArg = {
  config: {
    type: 'string',
    required: true,
    description: 'checkpoints config (JSON; see examples/checkpoints.json)',
    valueHint: 'FILE',
  },
} as const;

const checkpointsRun = defineCommand({
  meta: {
    name: 'run',
    description:
      "import or generate each checkpoint's answers (resumable), judge them against the baseline, print the report",
  },
  args: {
    ...checkpointsConfigArg,
    json: {
      type: 'boolean',
      description: 'print the report as JSON (--watch: one line per checkpoint judged)',
    },
    'dry-run': { type: 'boolean', description: 'print the plan and its estimated cost; change nothing' },
    watch: {
      type: 'boolean',
      description:
        'keep going: judge each new checkpoint (added to the config, or a file in watch.dir) as it appears, until Ctrl-C or SIGTERM',
    },
    poll: {
      type: 'string',
      default: '10',
      description: '--watch: seconds between looks at the config',
      valueHint: 'S',
    },
  },
  async run({ args }) {
    if (args.watch && args['dry-run']) throw new UsageError('--watch and --dry-run do not go together');
    if (args['dry-run']) return await printCheckpointsPlan(args.config, !!args.json);
    if (args.watch) return await watch(args.config, Number(args.poll), !!args.json);
    const { runCheckpoints } = await import('../../ops/checkpoints.ts');
    const { withCheckpointsContext } = await import('../ops-context.ts');
    await withProgress(async (bars, signal) => {
      const r = await withCheckpointsContext(args.config, { play: true, log: bars.log }, (ctx) =>
        runCheckpoints({ ...ctx, log: bars.log, signal, onProgress: bars.stage }),
      );
      bars.stop();
      bars.log(
        `checkpoints: ${r.generated} answers generated, ${r.played} games played, ${r.failed} failed${r.skipped ? `, ${r.skipped} not started (budget)` : ''}, ${figures.usd(r.cost)}`,
      );
      await printReport(args.config, !!args.json);
      exitStatus.code = signal.aborted ? 130 : r.failed ? 2 : r.skipped ? 4 : 0;
    });
  },
});

async function printCheckpointsPlan(configFile: string, json: boolean) {
  const { planCheckpoints } = await import('../../ops/checkpoints-plan.ts');
  const { withCheckpointsContext } = await import('../ops-context.ts');
  const p = await withCheckpointsContext(configFile, { dryRun: true }, planCheckpoints);
  if (json) return printJson(p);
  print(
    `series ${p.series}: ${p.checkpoints.length} checkpoint(s) against ${p.baseline} (pairwise-baseline, both orders)`,
  );
  printTable(p.checkpoints, (k) => ({
    checkpoint: k.name,
    step: k.step,
    model: k.model,
    answers: k.answers,
  }));
  printTable(p.lines, (l) => ({
    judge: l.judge,
    planned: l.planned,
    stored: l.stored,
    'to play': l.toPlay,
    'est. tokens in': l.estTokensIn,
    'est. tokens out': l.estTokensOut,
    'USD / 1M in, out': `${l.price.input}, ${l.price.output}`,
    'est. cost': figures.usd(l.estCost),
    basis: l.basis,
  }));
  print(
    `checkpoints dry run: ${p.toPlay} games to play, estimated ${figures.usd(p.estCost)}; nothing was changed`,
  );
}

async function printReport(configFile: string, json: boolean, chart?: string) {
  const { checkpointsReport, renderChart, writeChart } = await import('../../ops/checkpoints.ts');
  const { withCheckpointsContext } = await import('../ops-context.ts');
  const { report, file, db } = await withCheckpointsContext(configFile, { report: true }, async (ctx) => {
    const file = chart ?? ctx.config.config.chart;
    if (file) refuseDatabaseOutput(file, ctx.config.config.db, chart ? '--chart' : 'chart');
    return { report: await checkpointsReport(ctx), file, db: ctx.config.config.db };
  });
  if (file) {
    const svg = await renderChart(report);
    mkdirSync(dirname(resolve(file)), { recursive: true });
    await writeOutputFile(file, db, (tmp) => writeChart(tmp, svg), chart ? '--chart' : 'chart');
  }
  if (json) return printJson({ ...report, chart: file ?? null });
  print(rowsTable(report.rows));
  const judges = [...new Set(report.rows.map((r) => r.judge))];
  print(
    `best per judge: ${
      judges
        .map((j) =>
          report.best[j]
            ? `${j}: ${report.best[j]}`
            : report.tiedBest[j]
              ? `${j}: none (tied: ${report.tiedBest[j].join(', ')})`
              : `${j}: -`,
        )
        .join('; ') || '-'
    }${file ? `\nchart: ${file}` : ''}`,
  );
  const notes = [
    ...new Set(report.rows.flatMap((r) => [r.winRate, r.vsPrevious, r.vsBest]).map((i) => i?.note)),
  ];
  for (const note of notes) if (note) print(`no intervals: ${note}`);
}

/** The report's rows as a table: win rate with its interval, paired differences against earlier checkpoints. */
function rowsTable(rows: CheckpointRow[], best = true): string {
  const f = (x: number | null) => (x !== null && Number.isFinite(x) ? x.toFixed(3) : '-');
  const sign = (x: number | null) => (x !== null && x >= 0 ? '+' : '');
  // a figure without an interval (too few questions) shows its point only
  const iv = (i: ShownInterval, signed = false) => {
    const s = (x: number | null) => (signed ? sign(x) : '') + f(x);
    return i.lo === null || i.hi === null
      ? `${s(i.mean)} (no interval)`
      : `${s(i.mean)} [${s(i.lo)}, ${s(i.hi)}]`;
  };
  return table(
    rows.map((r) => ({
      judge: r.judge,
      checkpoint: r.checkpoint,
      step: r.step,
      'win rate [95%]': iv(r.winRate),
      n: r.winRate.n,
      'vs previous': r.vsPrevious ? `${iv(r.vsPrevious, true)} (${r.vsPrevious.against})` : '',
      'vs best so far': r.vsBest ? `${iv(r.vsBest, true)} (${r.vsBest.against})` : '',
      ...(best ? { best: r.best ? '*' : '' } : {}),
    })),
  );
}

/** `run --watch`: judge each checkpoint as it arrives, print its rows at once, until SIGINT/SIGTERM. */
async function watch(configFile: string, pollS: number, json: boolean) {
  const { watchCheckpoints } = await import('../../ops/checkpoints-watch.ts');
  const { loadCheckpointsConfig } = await import('../../ops/checkpoints-config.ts');
  const { withCheckpointsContext } = await import('../ops-context.ts');
  await withProgress(async (bars, signal) => {
    const r = await withCheckpointsContext(configFile, { play: true, log: bars.log }, (ctx) => {
      const w = ctx.config.config.watch;
      bars.log(
        `watching ${configFile}${w ? ` and ${w.dir} (${w.pattern})` : ''} every ${pollS} s; Ctrl-C or SIGTERM stops`,
      );
      return watchCheckpoints({
        ...ctx,
        reload: () => loadCheckpointsConfig(configFile, ctx.env),
        intervalMs: pollS * 1000,
        log: bars.log,
        signal,
        onProgress: bars.stage,
        onJudged: (k) => {
          bars.stop();
          if (json)
            process.stdout.write(`${JSON.stringify({ checkpoint: k.name, step: k.step, rows: k.rows })}\n`);
          else print(`judged ${k.name} (step ${k.step}):\n${rowsTable(k.rows, false)}`);
        },
      });
    });
    bars.stop();
    bars.log(
      `watch stopped${r.interrupted ? ' while judging (rerun to play the rest)' : ''}: ${r.judged.length} checkpoint(s) judged, ${r.generated} answers generated, ${r.played} games played, ${r.failed} failed, ${figures.usd(r.cost)}`,
    );
    exitStatus.code = r.interrupted ? 130 : r.failed ? 2 : 0;
  }, 'stopping the watch (games in flight are dropped, their leases released)');
}

const checkpointsAdd = defineCommand({
  meta: {
    name: 'add',
    description:
      'append a checkpoint to the config (checked as the config is loaded; the file replaced at once): what a training loop calls after saving one',
  },
  args: {
    ...checkpointsConfigArg,
    name: {
      type: 'string',
      required: true,
      description: "the checkpoint's name, e.g. step-2000",
      valueHint: 'NAME',
    },
    step: {
      type: 'string',
      required: true,
      description: 'its training step (a whole number)',
      valueHint: 'N',
    },
    answers: {
      type: 'string',
      description: "its answers (model_answer JSONL; stored under the file's name)",
      valueHint: 'FILE',
    },
    endpoint: {
      type: 'string',
      description: 'an OpenAI-compatible server serving it (with --model)',
      valueHint: 'URL',
    },
    model: {
      type: 'string',
      description: 'with --endpoint: the model name the server knows it by',
      valueHint: 'M',
    },
    'api-key-env': {
      type: 'string',
      description: 'with --endpoint: the environment variable holding its key',
      valueHint: 'NAME',
    },
    gguf: {
      type: 'string',
      description: 'a GGUF model, run in-process by node-llama-cpp',
      valueHint: 'FILE',
    },
    lora: { type: 'string', description: "with --gguf: this checkpoint's LoRA adapter", valueHint: 'FILE' },
    json: { type: 'boolean', description: 'print the entry added as JSON' },
  },
  async run({ args }) {
    const sources = [args.answers, args.endpoint, args.gguf].filter((x) => x !== undefined);
    if (sources.length !== 1)
      throw new UsageError(
        'give exactly one of --answers FILE, --endpoint URL (with --model M) or --gguf FILE',
      );
    if (args.endpoint !== undefined && args.model === undefined)
      throw new UsageError('--endpoint needs --model: the model name the server serves the checkpoint under');
    if (args.endpoint === undefined && (args.model !== undefined || args['api-key-env'] !== undefined))
      throw new UsageError(`--${args.model !== undefined ? 'model' : 'api-key-env'} goes with --endpoint`);
    if (args.lora !== undefined && args.gguf === undefined) throw new UsageError('--lora goes with --gguf');
    const step = Number(args.step); // its range: validate.ts
    const { addCheckpoint } = await import('../../ops/checkpoints-add.ts');
    const { takeLock } = await import('../lock.ts');
    const file = resolve(args.config);
    // two adds at once would each rewrite the file from what they read: one at a time
    const unlock = takeLock(file, 'add', 'checkpoints add');
    try {
      const at = (p: string | undefined) => (p === undefined ? undefined : resolve(p));
      const { entry, config } = addCheckpoint(
        file,
        {
          name: args.name,
          step,
          ...(args.answers !== undefined ? { answers: at(args.answers)! } : {}),
          ...(args.endpoint !== undefined
            ? {
                endpoint: {
                  baseURL: args.endpoint,
                  model: args.model!,
                  ...(args['api-key-env'] !== undefined ? { apiKeyEnv: args['api-key-env'] } : {}),
                },
              }
            : {}),
          ...(args.gguf !== undefined ? { gguf: at(args.gguf)! } : {}),
          ...(args.lora !== undefined ? { lora: at(args.lora)! } : {}),
        },
        process.env,
      );
      if (args.json) return printJson(entry);
      print(
        `added checkpoint "${entry.name}" (step ${entry.step}) to ${args.config}: ${config.config.checkpoints.length} checkpoint(s)`,
      );
    } finally {
      unlock();
    }
  },
});

const checkpointsReportCommand = defineCommand({
  meta: {
    name: 'report',
    description:
      'per checkpoint and judge: win rate vs baseline with a 95% interval, paired differences vs previous and best so far; chart',
  },
  args: {
    ...checkpointsConfigArg,
    chart: {
      type: 'string',
      description: "write the SVG chart here (default: the config's chart)",
      valueHint: 'FILE',
    },
    json: { type: 'boolean', description: 'print the report as JSON' },
  },
  async run({ args }) {
    await printReport(args.config, !!args.json, args.chart);
  },
});

export const checkpointsCommand = defineCommand({
  meta: { name: 'checkpoints', description: 'track the checkpoints of a fine-tuning run against a baseline' },
  subCommands: { run: checkpointsRun, add: checkpointsAdd, report: checkpointsReportCommand },
});
