// `arena refresh`, `arena cost`, `arena refreshes`; the interrupt handling and progress bars the long jobs share.
import { defineCommand } from 'citty';
import { drawsBar, Progress } from '../progress-bar.ts';
import { setMaxListeners } from 'node:events';
import { int, oneOf, table } from '../format.ts';
import { dbArg, exitStatus, jsonArg, print, printTable, printJson, withStore } from '../shared.ts';
import * as figures from '../../core/format.ts';
import { runSeen } from '../../core/run-seen.ts';

/**
 * `fn` with a progress bar on stderr per run or stage (a line every few seconds when stderr is not a terminal), and
 * SIGINT/SIGTERM aborting its signal (games in flight are dropped, never recorded as verdicts); a second one exits.
 */
export async function withProgress<T>(
  fn: (bars: ReturnType<typeof progressBars>, signal: AbortSignal) => Promise<T>,
  stopping = 'interrupted: stopping; rerun the same command to resume',
): Promise<T> {
  const bars = progressBars();
  const ctl = new AbortController();
  setMaxListeners(0, ctl.signal);
  const onSignal = () => {
    if (ctl.signal.aborted) process.exit(130);
    bars.log(stopping);
    ctl.abort(new Error('interrupted'));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await fn(bars, ctl.signal);
  } finally {
    bars.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function progressBars() {
  let bar: Progress | undefined;
  let stage = '';
  const log = (m: string) => {
    // a finished bar prints its last frame before what follows it, not after
    if (bar && bar.getProgress() >= 1) {
      bar.stop();
      bar = undefined;
    }
    process.stderr.write(`${bar && drawsBar() ? '\n' : ''}${m}\n`);
  };
  const bars = {
    log,
    start(label: string, total: number) {
      bar?.stop();
      bar = undefined;
      log(`${label}: ${total} games to play`);
      if (!total) return;
      bar = new Progress(`${label} {bar} {value}/{total} | {rate}/s | ETA {eta} | failed {failed} | {cost}`);
      bar.start(total, 0, { failed: 0, cost: figures.usd(0) });
    },
    update(done: number, failed: number, cost: number) {
      bar?.update(done + failed, { failed, cost: figures.usd(cost) });
    },
    /** a job's progress by stage (checkpoints: generate, judge): a bar for each */
    stage(p: { stage: string; total: number; done: number; failed?: number; cost?: number }) {
      if (p.stage !== stage) bars.start((stage = p.stage), p.total);
      bars.update(p.done, p.failed ?? 0, p.cost ?? 0);
    },
    stop() {
      bar?.stop();
      bar = undefined;
      stage = '';
    },
  };
  return bars;
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
    let cost = 0;
    await withProgress(async (bars, signal) => {
      const dryRun = !!args['dry-run'];
      const s = await withRefreshContext(args.config, { dryRun, log: bars.log }, (ctx) =>
        refresh({
          ...ctx,
          dryRun,
          signal,
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
      if (dryRun && !args.json)
        printTable(s.plan, (p) => ({
          judge: p.judge,
          mode: p.mode,
          planned: p.planned,
          stored: p.stored,
          'to play': p.toPlay,
          'est. tokens in': p.estTokensIn,
          'est. tokens out': p.estTokensOut,
          'est. USD': figures.usd(p.estCost),
          estimate: p.basis,
        }));
      if (args.json) printJson(s);
      else print(s.line);
      exitStatus.code = s.exitCode;
    });
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
    await withStore(args.db, { readonly: true }, async (store) => {
      let rows: Record<string, unknown>[];
      if (by === 'run')
        rows = (await store.ledger.byRun(limit)).map((r) => ({
          ...r,
          startedAt: new Date(r.startedAt).toISOString(),
        }));
      else if (by === 'game') rows = (await store.ledger.byGame(limit)).map((r) => ({ ...r }));
      else if (by === 'refresh')
        rows = (await store.refreshes.list(limit))
          .map((r) => runSeen(r))
          .map((r) => ({
            id: r.id,
            startedAt: new Date(r.startedAt).toISOString(),
            status: r.status,
            cost: r.cost,
          }));
      else rows = (await store.ledger.byJudge()).map((r) => ({ ...r }));
      if (args.json) printJson(rows);
      else print(table(rows.map(spelled)));
    });
  },
});

/** A ledger row as the tables spell it (core/format.ts); --json keeps full precision and ISO times. */
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
    await withStore(args.db, { readonly: true }, async (store) => {
      const rows = (await store.refreshes.list())
        .map((r) => runSeen(r))
        .map((r) => ({
          id: r.id,
          startedAt: new Date(r.startedAt).toISOString(),
          status: r.status,
          played: r.summary.played ?? null,
          cost: r.cost,
          degraded: r.degraded?.join('; ') ?? '',
          line: r.summary.line ?? '',
        }));
      if (args.json) printJson(rows);
      else print(table(rows.map(spelled)));
    });
  },
});
