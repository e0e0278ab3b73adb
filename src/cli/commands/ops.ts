// Operations: `arena refresh` (the nightly job), `arena cost` (the ledger), `arena refreshes` (history),
// `arena checkpoints` (win rate of a fine-tuning run's checkpoints).
import { defineCommand } from 'citty';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { refuseDatabaseOutput, writeOutputFile } from '../out-file.ts';
import type cliProgress from 'cli-progress';
import { drawsBar, progressBar } from '../progress-bar.ts';
import { setMaxListeners } from 'node:events';
import { int, oneOf, table } from '../format.ts';
import { dbArg, exitStatus, jsonArg, print, printJson, withStore } from '../shared.ts';
import * as figures from '../../core/format.ts';

/** SIGINT/SIGTERM abort the signal (games in flight are dropped, never recorded as verdicts); a second one exits. */
function interruptible(log: (m: string) => void) {
  const ctl = new AbortController();
  setMaxListeners(0, ctl.signal);
  const onSignal = () => {
    if (ctl.signal.aborted) process.exit(130);
    log('interrupted: stopping; rerun the same command to resume');
    ctl.abort(new Error('interrupted'));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: ctl.signal,
    done: () => (process.off('SIGINT', onSignal), process.off('SIGTERM', onSignal)),
  };
}

/** A progress bar on stderr per run (a line every few seconds when stderr is not a terminal). */
function progressBars() {
  let bar: cliProgress.SingleBar | undefined;
  let t0 = Date.now();
  const log = (m: string) => {
    // a finished bar prints its last frame before what follows it, not after
    if (bar && bar.getProgress() >= 1) {
      bar.stop();
      bar = undefined;
    }
    process.stderr.write(`${bar && drawsBar() ? '\n' : ''}${m}\n`);
  };
  return {
    log,
    start(label: string, total: number) {
      bar?.stop();
      bar = undefined;
      log(`${label}: ${total} games to play`);
      if (!total) return;
      t0 = Date.now();
      bar = progressBar(
        `${label} {bar} {value}/{total} | {rate}/s | ETA {eta_formatted} | failed {failed} | {cost}`,
      );
      bar.start(total, 0, { rate: '0.0', failed: 0, cost: figures.usd(0) });
    },
    update(done: number, failed: number, cost: number) {
      bar?.update(done + failed, {
        rate: (done / Math.max((Date.now() - t0) / 1000, 1e-3)).toFixed(1),
        failed,
        cost: figures.usd(cost),
      });
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}

export const refreshCommand = defineCommand({
  meta: {
    name: 'refresh',
    description:
      'the nightly job: import new/changed answers, play only missing games, canary, health, cost, publish',
  },
  args: {
    config: {
      type: 'string',
      required: true,
      description: 'refresh config (JSON; see examples/refresh.json)',
      valueHint: 'FILE',
    },
    'dry-run': { type: 'boolean', description: 'print the plan and its estimated cost; change nothing' },
    json: {
      type: 'boolean',
      description: 'print the whole summary (plan, runs, rates, drift, cost) as JSON',
    },
  },
  async run({ args }) {
    const { refresh } = await import('../../ops/refresh/index.ts');
    const { withRefreshContext } = await import('../ops-context.ts');
    const bars = progressBars();
    const irq = interruptible(bars.log);
    let cost = 0;
    try {
      const dryRun = !!args['dry-run'];
      const s = await withRefreshContext(args.config, { dryRun, log: bars.log }, (ctx) =>
        refresh({
          ...ctx,
          dryRun,
          signal: irq.signal,
          log: bars.log,
          onRunStart: ({ judge, mode, toPlay }) => {
            cost = 0;
            bars.start(`${judge} ${mode}`, toPlay);
          },
          onProgress: (p) => {
            if (p.last && 'game' in p.last) cost += p.last.game.cost ?? 0;
            bars.update(p.done, p.failed, cost);
          },
        }),
      );
      bars.stop();
      if (args['dry-run'] && !args.json) {
        print(
          table(
            s.plan.map((p) => ({
              judge: p.judge,
              mode: p.mode,
              planned: p.planned,
              stored: p.stored,
              'to play': p.toPlay,
              'est. tokens in': p.estTokensIn,
              'est. tokens out': p.estTokensOut,
              'est. USD': figures.usd(p.estCost),
              estimate: p.basis,
            })),
          ),
        );
      }
      if (args.json) printJson(s);
      else print(s.line);
      exitStatus.code = s.exitCode;
    } finally {
      bars.stop();
      irq.done();
    }
  },
});

export const costCommand = defineCommand({
  meta: { name: 'cost', description: 'the cost ledger: spending per judge, per run, or per game' },
  args: {
    ...dbArg,
    by: { type: 'string', default: 'judge', description: 'judge | run | game | refresh' },
    limit: { type: 'string', default: '50', description: 'rows for --by run|game|refresh (newest first)' },
    ...jsonArg,
  },
  async run({ args }) {
    const by = oneOf(args.by, 'by', ['judge', 'run', 'game', 'refresh'] as const);
    const limit = int(args.limit, 'limit')!;
    await withStore(
      args.db,
      async (store) => {
        let rows: Record<string, unknown>[];
        if (by === 'run')
          rows = (await store.ledger.byRun(limit)).map((r) => ({
            ...r,
            startedAt: new Date(r.startedAt).toISOString(),
          }));
        else if (by === 'game') rows = (await store.ledger.byGame(limit)).map((r) => ({ ...r }));
        else if (by === 'refresh')
          rows = (await store.refreshes.list(limit)).map((r) => ({
            id: r.id,
            startedAt: new Date(r.startedAt).toISOString(),
            status: r.status,
            cost: r.cost,
          }));
        else rows = (await store.ledger.byJudge()).map((r) => ({ ...r }));
        if (args.json) printJson(rows);
        else print(table(rows.map(spelled)));
      },
      { readonly: true },
    );
  },
});

/** A ledger row as the tables spell it (core/format.ts): dollars to four decimals, times to the minute; --json keeps
 * full precision and ISO times. */
function spelled(r: Record<string, unknown>): Record<string, unknown> {
  return {
    ...r,
    ...('cost' in r ? { cost: figures.usd(r.cost as number | null) } : {}),
    ...(typeof r.startedAt === 'string' ? { startedAt: figures.time(Date.parse(r.startedAt)) } : {}),
  };
}

export const refreshesCommand = defineCommand({
  meta: {
    name: 'refreshes',
    description: 'past refreshes, newest first: status, degraded reasons, the summary line',
  },
  args: { ...dbArg, ...jsonArg },
  async run({ args }) {
    await withStore(
      args.db,
      async (store) => {
        const rows = (await store.refreshes.list()).map((r) => ({
          id: r.id,
          startedAt: new Date(r.startedAt).toISOString(),
          status: r.status,
          cost: r.cost,
          degraded: r.degraded?.join('; ') ?? '',
          line: r.summary.line ?? '',
        }));
        if (args.json) printJson(rows);
        else print(table(rows.map(spelled)));
      },
      { readonly: true },
    );
  },
});

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
    json: { type: 'boolean', description: 'print the report as JSON' },
    'dry-run': { type: 'boolean', description: 'print the plan and its estimated cost; change nothing' },
  },
  async run({ args }) {
    if (args['dry-run']) return await printCheckpointsPlan(args.config, !!args.json);
    const { runCheckpoints } = await import('../../ops/checkpoints.ts');
    const { withCheckpointsContext } = await import('../ops-context.ts');
    const bars = progressBars();
    const irq = interruptible(bars.log);
    let stage = '';
    try {
      const r = await withCheckpointsContext(args.config, { play: true, log: bars.log }, (ctx) =>
        runCheckpoints({
          ...ctx,
          log: bars.log,
          signal: irq.signal,
          onProgress: (p) => {
            if (p.stage !== stage) bars.start((stage = p.stage), p.total);
            bars.update(p.done, p.failed ?? 0, p.cost ?? 0);
          },
        }),
      );
      bars.stop();
      bars.log(
        `checkpoints: ${r.generated} answers generated, ${r.played} games played, ${r.failed} failed${r.skipped ? `, ${r.skipped} not started (budget)` : ''}, ${figures.usd(r.cost)}`,
      );
      await printReport(args.config, !!args.json);
      exitStatus.code = irq.signal.aborted ? 130 : r.failed ? 2 : r.skipped ? 4 : 0;
    } finally {
      bars.stop();
      irq.done();
    }
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
  print(
    table(
      p.checkpoints.map((k) => ({ checkpoint: k.name, step: k.step, model: k.model, answers: k.answers })),
    ),
  );
  print(
    table(
      p.lines.map((l) => ({
        judge: l.judge,
        planned: l.planned,
        stored: l.stored,
        'to play': l.toPlay,
        'est. tokens in': l.estTokensIn,
        'est. tokens out': l.estTokensOut,
        'USD / 1M in, out': `${l.price.input}, ${l.price.output}`,
        'est. cost': figures.usd(l.estCost),
        basis: l.basis,
      })),
    ),
  );
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
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '-');
  const iv = (i: { mean: number; lo: number; hi: number } | null) =>
    i ? `${i.mean >= 0 ? '+' : ''}${f(i.mean)} [${f(i.lo)}, ${f(i.hi)}]` : '';
  print(
    table(
      report.rows.map((r) => ({
        judge: r.judge,
        checkpoint: r.checkpoint,
        step: r.step,
        'win rate [95%]': `${f(r.winRate.mean)} [${f(r.winRate.lo)}, ${f(r.winRate.hi)}]`,
        n: r.winRate.n,
        'vs previous': r.vsPrevious ? `${iv(r.vsPrevious)}` : '',
        'vs best so far': r.vsBest ? `${iv(r.vsBest)} (${r.vsBest.against})` : '',
        best: r.best ? '*' : '',
      })),
    ),
  );
  print(
    `best per judge: ${
      Object.entries(report.best)
        .map(([j, c]) => `${j}: ${c}`)
        .join('; ') || '-'
    }${file ? `\nchart: ${file}` : ''}`,
  );
}

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
  subCommands: { run: checkpointsRun, report: checkpointsReportCommand },
});
