// Step 3 of a refresh: play each judge's planned games (a batch judge through the Batch API), then its
// drift canary, under the refresh's budget.
import { CANARY_SOURCE } from '../../core/constants.ts';
import type { GameSpec } from '../../core/types.ts';
import { judgeSettings, runTournament, type RunSummary } from '../../engine/run.ts';
import { runUntilSettled } from '../../engine/settle.ts';
import { apiKeyOf } from '../../judges/registry.ts';
import { keyInRepliesWarning } from '../../judges/redact.ts';
import type { Store } from '../../storage/store.ts';
import { canaryTournament, tournamentOf, type RefreshConfig } from '../config.ts';
import type { Env } from '../deps.ts';
import { canaryDrift, type Drift } from '../health.ts';
import { Budget, costOf, upperBoundCost } from '../prices.ts';
import type { JudgePlan, RefreshOptions, RefreshSummary } from './types.ts';
import type { SuccessionRecord } from '../../core/records.ts';
import { bridgeFirst } from './succession.ts';

export interface PlayInput {
  /** the refresh's options (its signal already includes the auth stop) */
  o: RefreshOptions;
  c: RefreshConfig;
  store: Store;
  /** the refresh id, the canary's nonce and the batches' owner */
  id: string;
  env: Env;
  log(m: string): void;
  /** whether a judge refused its key (its failures are then said once, by the caller) */
  refused(): boolean;
}

export interface Played {
  runs: RefreshSummary['runs'];
  /** the successions of judges with `succeeds`, their bridges played before their plans */
  successions: SuccessionRecord[];
  batches: RefreshSummary['batches'];
  drift: Record<string, Drift>;
}

type TournamentOptions = Parameters<typeof runTournament>[0];

export async function playJudges(p: PlayInput, judges: JudgePlan[]): Promise<Played> {
  const { o, c, store } = p;
  const budget = c.budget ? new Budget(c.budget.maxUsd) : undefined;
  const played: Played = { runs: [], successions: [], batches: [], drift: {} };
  for (const jp of judges) {
    if (o.signal?.aborted) break;
    const common = { store, judge: jp.judge, ...tournamentOf(c) };
    if (jp.cfg.succeeds && jp.cfg.batch)
      p.log(
        `[${jp.judge.id}] succeeds ${jp.cfg.succeeds}: a batch judge plays no bridge (run \`arena judges succession\`)`,
      );
    if (jp.cfg.succeeds && !jp.cfg.batch) {
      const all = jp.modes.find((m) => m.mode === 'pairwise-all') ?? jp.modes[0]!;
      const bridge = { ...common, mode: 'pairwise-all' as const, models: all.models };
      played.successions.push(
        await bridgeFirst(
          store,
          c.succession,
          jp.cfg.succeeds,
          jp.judge.id,
          (how) => playRun(p, played, budget, jp, 'succession', bridge, how),
          p.log,
        ),
      );
    }
    if (jp.cfg.batch) {
      await playBatch(p, played, jp, budget);
    } else {
      for (const m of jp.modes) {
        if (o.signal?.aborted) break;
        await playRun(
          p,
          played,
          budget,
          jp,
          m.mode,
          { ...common, mode: m.mode, models: m.models, ...(m.baseline ? { baseline: m.baseline } : {}) },
          m.settle ? async (full) => (await runUntilSettled({ ...full, ...m.settle })).runs : undefined,
        );
      }
    }
    if (c.canary && !o.signal?.aborted) {
      const canary = { ...common, ...canaryTournament(c, p.id), source: CANARY_SOURCE };
      await playRun(p, played, budget, jp, 'canary', canary);
      played.drift[jp.judge.id] = canaryDrift(await canaryGames(store, jp.judge.id), p.id);
    }
  }
  return played;
}

/** One tournament of a judge (a mode, or the canary), recorded in `played.runs`. */
async function playRun(
  p: PlayInput,
  played: Played,
  budget: Budget | undefined,
  jp: JudgePlan,
  mode: string,
  opts: TournamentOptions,
  /** how the run is played (default one tournament): rounds until settled, a succession's bridge */
  how?: (full: TournamentOptions) => Promise<RunSummary[]>,
): Promise<void> {
  const { o, c } = p;
  const bound = (_id: string, spec: GameSpec) =>
    upperBoundCost(spec, jp.tokens, jp.price, c.settings.maxTokens);
  const full: TournamentOptions = {
    ...opts,
    parser: c.parser,
    refreshId: p.id,
    concurrency: jp.cfg.concurrency,
    costOf: (tin, tout, cached) => costOf(jp.price, tin, tout, cached),
    ...(budget ? { budget: budget.gate(bound) } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    onPlan: ({ toPlay }) => o.onRunStart?.({ judge: jp.judge.id, mode, toPlay }),
    onProgress: (pr) => o.onProgress?.({ ...pr, judge: jp.judge.id }),
    ...o.liveness,
    ...(o.spill ? { spill: o.spill } : {}),
  };
  const runs = how ? await how(full) : [await runTournament(full)];
  for (const r of runs) record(p, played, jp, mode, r);
}

/** One run's line in the refresh's summary, and its first errors in the log. */
function record(p: PlayInput, played: Played, jp: JudgePlan, mode: string, r: RunSummary): void {
  played.runs.push({
    id: r.id,
    judge: jp.judge.id,
    mode,
    played: r.played,
    failed: r.failed,
    skipped: r.skipped,
    cost: r.cost == null && !r.costEstimated ? null : (r.cost ?? 0) + r.costEstimated,
    costEstimated: r.costEstimated,
    status: r.status,
  });
  if (r.redacted) p.log(`[${jp.judge.id}] ${keyInRepliesWarning(r.redacted)}`);
  if (r.errors.length && !p.refused())
    for (const e of r.errors.slice(0, 3)) p.log(`[${jp.judge.id}] failed: ${e}`);
}

/** A `batch: true` judge: every mode's games through the Batch API (src/ops/batch.ts), as one run. */
async function playBatch(p: PlayInput, played: Played, jp: JudgePlan, budget: Budget | undefined) {
  const { o, c, store } = p;
  const { runBatches } = await import('../batch.ts');
  const games = jp.modes.flatMap((m) => m.games);
  // each submitted game holds its upper bound until its batch is imported
  const gate = budget?.batch((_id, spec) => upperBoundCost(spec, jp.tokens, jp.price, c.settings.maxTokens));
  const b = await runBatches({
    store,
    judgeId: jp.judge.id,
    model: jp.judge.id.slice(jp.judge.id.indexOf('/') + 1),
    client: o.batches!(jp.cfg, apiKeyOf(jp.cfg, p.env)),
    games,
    settings: judgeSettings(jp.judge, c.settings),
    parser: c.parser,
    price: jp.price,
    refreshId: p.id,
    ...(gate ? { budget: gate } : {}),
    waitS: jp.cfg.batchWaitS,
    pollS: jp.cfg.batchPollS,
    log: p.log,
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.liveness ? { liveness: o.liveness } : {}),
    ...(o.spill ? { spill: o.spill } : {}),
  });
  played.batches.push(b);
  if (b.redacted) p.log(`[${jp.judge.id}] ${keyInRepliesWarning(b.redacted)}`);
  if (b.runId || b.skipped)
    played.runs.push({
      id: b.runId ?? '',
      judge: jp.judge.id,
      mode: 'batch',
      played: b.imported,
      failed: b.failed,
      skipped: b.skipped,
      cost: b.cost + b.costEstimated,
      costEstimated: b.costEstimated,
      status: b.failed ? 'failed' : b.skipped ? 'budget' : 'done',
    });
}

async function canaryGames(store: Store, judge: string) {
  return (await store.games.list({ judge, kind: 'pairwise', source: CANARY_SOURCE }))
    .filter((g) => typeof g.judgeSettings.canary === 'string')
    .map((g) => ({
      questionId: g.match.questionId,
      turn: g.match.turn,
      model1: g.match.model1,
      model2: g.match.model2 ?? null,
      order: g.order,
      verdict: g.verdict,
      promptName: g.promptName,
      nonce: g.judgeSettings.canary as string,
      createdAt: g.createdAt,
    }));
}
