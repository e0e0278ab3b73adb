// OpenAI Batch API mode (half price, results within 24 h): submit the games as JSONL files (batch-submit.ts),
// persist each batch's id, poll, and import the results (batch-import.ts); a restarted refresh polls what it left
// pending first. Under a budget, each submitted game holds its upper bound until imported.
import type { GameSpec, JudgeSettings } from '../core/types.ts';
import type { ParserMode } from '../core/verdict/parse.ts';
import { newRun, type Liveness } from '../engine/play/index.ts';
import type { BatchClient } from '../judges/openai-batch.ts';
import { pollOnce } from './batch-import.ts';
import { BATCH_LIMITS, recoverSubmissions, submitNew } from './batch-submit.ts';
import type { Store } from '../storage/store.ts';
import type { Price } from './config.ts';
import type { Spill } from './deps.ts';
import type { BatchGate } from './prices.ts';

export { MAX_BATCH_TRIES } from './batch-submit.ts';

export interface BatchOptions {
  store: Store;
  /** provider/model, as stored on the games */
  judgeId: string;
  /** the model name sent to the API */
  model: string;
  /** the Batch API of the judge's server (judges/openai-batch.ts) */
  client: BatchClient;
  /** every planned game of this judge (the ones already stored are skipped) */
  games: { spec: GameSpec; id: string }[];
  settings: JudgeSettings;
  parser: ParserMode;
  /** the batch price (half the standard one) */
  price: Price;
  refreshId: string;
  /** wait this long for pending batches before returning (0: submit or import, then return) */
  waitS?: number;
  pollS?: number;
  log?(m: string): void;
  signal?: AbortSignal;
  /** the refresh's budget (Budget.batch) */
  budget?: BatchGate;
  /** who plays: this process as the runs' owner, and whether another run's owner is alive (the CLI: src/cli/liveness.ts) */
  liveness?: Liveness;
  /** where replies the database refused go (a full disk): the recovery file the next run stores */
  spill?: Spill;
  /** the most requests and input-file bytes one batch may hold (default: OpenAI's, BATCH_LIMITS) */
  limits?: Partial<typeof BATCH_LIMITS>;
}

export interface BatchReport {
  judge: string;
  submitted: number;
  imported: number;
  pending: number;
  failed: number;
  /** games the budget refused to submit (it was exhausted) */
  skipped: number;
  /** games the budget held back until the pending batches are imported: a later refresh submits them */
  waiting: number;
  /** games whose request failed in MAX_BATCH_TRIES batches already: not submitted again */
  givenUp: number;
  /** batches that ended failed, expired or cancelled, with the server's reason */
  failedBatches: string[];
  cost: number;
  /** USD the budget charged at a game's bound because its cost was not reported (not in `cost`) */
  costEstimated: number;
  /** the run record the imported games belong to (null when nothing was imported) */
  runId: string | null;
  /** places in the imported replies where the judge's server put the API key (replaced by [redacted] first) */
  redacted: number;
}

/** What the steps of one `runBatches` share: its options, the report being filled, the run the imports go to. */
export interface BatchJob {
  o: BatchOptions;
  log(m: string): void;
  report: BatchReport;
  /** every planned game's spec by id: a result line of a game no longer planned is dropped */
  bySpec: Map<string, GameSpec>;
  run: ReturnType<typeof newRun>;
  /** games the budget holds back until batches in flight are imported (set by each submission) */
  waiting: number;
}

export async function runBatches(o: BatchOptions): Promise<BatchReport> {
  const report: BatchReport = {
    judge: o.judgeId,
    submitted: 0,
    imported: 0,
    pending: 0,
    failed: 0,
    skipped: 0,
    waiting: 0,
    givenUp: 0,
    failedBatches: [],
    cost: 0,
    costEstimated: 0,
    runId: null,
    redacted: 0,
  };
  const job: BatchJob = {
    o,
    log: o.log ?? (() => {}),
    report,
    bySpec: new Map(o.games.map((g) => [g.id, g.spec])),
    run: newRun({
      judge: o.judgeId,
      mode: 'batch',
      config: { refresh: o.refreshId, settings: o.settings, parser: o.parser },
      planned: o.games.length,
      toPlay: 0,
      cost: 0,
      ...(o.liveness ? { owner: o.liveness.owner } : {}),
    }),
    waiting: 0,
  };
  try {
    await recoverSubmissions(job);
    let pending = await pollOnce(job);
    pending += await submitNew(job);
    pending = await waitForPending(job, pending);
    report.pending = pending;
  } finally {
    // what is still in pending batches stays committed for the rest of the refresh
    o.budget?.keep();
  }
  report.waiting = job.waiting;
  report.costEstimated = job.run.costEstimated;
  report.redacted = job.run.redacted;
  if (job.run.played || job.run.failed) report.runId = job.run.id;
  return report;
}

/**
 * Polls until nothing is pending, `waitS` has passed or the signal aborts, submitting what the budget held back
 * as imports free it. How many games are still pending.
 */
async function waitForPending(job: BatchJob, pending: number): Promise<number> {
  const { o, log, report } = job;
  const deadline = Date.now() + (o.waitS ?? 0) * 1000;
  while (pending && Date.now() < deadline && !o.signal?.aborted) {
    log(
      `[${o.judgeId}] ${pending} games in pending batches; polling every ${o.pollS ?? 30} s for up to ${Math.ceil((deadline - Date.now()) / 1000)} s more`,
    );
    await new Promise((r) =>
      setTimeout(r, Math.min((o.pollS ?? 30) * 1000, Math.max(0, deadline - Date.now()))),
    );
    const settled = report.imported + report.failed;
    pending = await pollOnce(job);
    if (job.waiting && report.imported + report.failed > settled && !o.signal?.aborted)
      pending += await submitNew(job);
  }
  return pending;
}
