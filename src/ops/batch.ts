// OpenAI Batch API mode (half price, results within 24 h): submit the games to play as one JSONL file,
// persist the batch id, poll, and import the results as games. A restarted refresh first polls the
// batches it left pending and never submits a game twice while its batch is pending.
import { randomUUID } from 'node:crypto';
import type { GameSpec, JudgeSettings } from '../core/types.ts';
import type { ParserMode } from '../core/verdict/parse.ts';
import { parserFor, verdictOf } from '../core/verdict/of-reply.ts';
import { newRun, playGames, type Liveness, type PlayItem } from '../engine/play/index.ts';
import type { JudgeReply } from '../judges/judge.ts';
import type { BatchClient } from '../judges/openai-batch.ts';
import type { Store } from '../storage/store.ts';
import type { Price } from './config.ts';
import { costOf } from './prices.ts';

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
  /** a budget gate: a game it refuses is not submitted (what a submitted game costs is committed) */
  admit?(id: string, spec: GameSpec): boolean;
  /** who plays: this process as the runs' owner, and whether another run's owner is alive (the CLI: src/cli/liveness.ts) */
  liveness?: Liveness;
}

export interface BatchReport {
  judge: string;
  submitted: number;
  imported: number;
  pending: number;
  failed: number;
  /** games the budget refused to submit */
  skipped: number;
  cost: number;
  /** the run record the imported games belong to (null when nothing was imported) */
  runId: string | null;
}

/** What a result line's body is read for (an OpenAI chat completion; nothing in it is trusted). */
interface ChatCompletion {
  choices?: { message?: { content?: unknown } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

const DONE = new Set(['completed', 'failed', 'expired', 'cancelled']);

/** What the steps of one `runBatches` share: its options, the report being filled, the run the imports go to. */
interface BatchJob {
  o: BatchOptions;
  log(m: string): void;
  report: BatchReport;
  /** every planned game's spec by id: a result line of a game no longer planned is dropped */
  bySpec: Map<string, GameSpec>;
  run: ReturnType<typeof newRun>;
}

export async function runBatches(o: BatchOptions): Promise<BatchReport> {
  const report: BatchReport = {
    judge: o.judgeId,
    submitted: 0,
    imported: 0,
    pending: 0,
    failed: 0,
    skipped: 0,
    cost: 0,
    runId: null,
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
  };
  await recoverSubmissions(job);
  let pending = await pollOnce(job);
  pending += await submitNew(job);
  pending = await waitForPending(job, pending);
  report.pending = pending;
  if (job.run.played || job.run.failed) report.runId = job.run.id;
  return report;
}

/**
 * A submission is recorded (status `submitting`, its game ids) before the upload, and gets the batch id
 * after. A process killed in between left a `submitting` row: find its batch by the metadata it was
 * created with; if there is none, it was never submitted, and its games are free to go again.
 */
async function recoverSubmissions({ o, log }: BatchJob): Promise<void> {
  const store = o.store;
  const orphans = await store.batches.list({ judge: o.judgeId, status: 'submitting' });
  if (!orphans.length) return;
  const page = await o.client.list();
  for (const row of orphans) {
    const remote = page.find((b) => b.metadata?.arena_submission === row.id);
    if (remote) {
      await store.batches.update(row.id, {
        id: remote.id,
        inputFileId: remote.inputFileId,
        status: 'submitted',
      });
      log(`[${o.judgeId}] recovered batch ${remote.id} of an interrupted submission`);
    } else {
      await store.batches.delete(row.id);
      log(
        `[${o.judgeId}] an interrupted submission never reached the server; its games will be submitted again`,
      );
    }
  }
}

const pendingRows = (o: BatchOptions) => o.store.batches.list({ judge: o.judgeId, status: 'submitted' });

/** Poll every pending batch once; import the finished ones. Returns how many games are still pending. */
async function pollOnce(job: BatchJob): Promise<number> {
  const { o, log, report, run } = job;
  let pending = 0;
  for (const b of await pendingRows(o)) {
    const remote = await o.client.retrieve(b.id, o.signal);
    if (!DONE.has(remote.status)) {
      pending += b.gameIds.length;
      continue;
    }
    const before = { cost: run.cost ?? 0, played: run.played };
    if (remote.outputFileId) await importResults(job, b.id, await o.client.outputText(remote.outputFileId));
    const cost = (run.cost ?? 0) - before.cost;
    report.cost += cost;
    await o.store.batches.update(b.id, {
      status: remote.status === 'completed' ? 'imported' : remote.status,
      finishedAt: Date.now(),
      cost,
    });
    log(`[${o.judgeId}] batch ${b.id} ${remote.status}: imported ${report.imported} games`);
  }
  return pending;
}

/** A finished batch's output file, played as games: each line's reply is read as a verdict, a failure is an attempt. */
async function importResults(job: BatchJob, batchId: string, text: string): Promise<void> {
  const { o, report, run } = job;
  const played = run.played;
  const prompts = new Map((await o.store.catalog.prompts()).map((p) => [p.name, parserFor(p, o.parser)]));
  const plain = parserFor(undefined, o.parser);
  const { replies, items } = readResults(text, job.bySpec, batchId);
  const failed = run.failed;
  run.toPlay += items.length;
  await playGames(items, {
    store: o.store,
    run,
    settings: o.settings,
    source: 'batch',
    timed: false,
    concurrency: 64,
    costOf: (tin, tout) => costOf(o.price, tin, tout),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.liveness ? { isAlive: o.liveness.isAlive } : {}),
    call: async ({ id }) => {
      const r = replies.get(id)!;
      if (r instanceof Error) throw r;
      return r;
    },
    read: (spec, text) => verdictOf(spec, text, prompts.get(spec.promptName) ?? plain),
  });
  report.failed += run.failed - failed;
  report.imported += run.played - played;
}

/**
 * Each result line is one game's call, already made: a reply, or a failure (an attempt, never a verdict).
 * Lines of games no longer planned (their answers changed since they were submitted) are dropped.
 */
function readResults(text: string, bySpec: Map<string, GameSpec>, batchId: string) {
  const replies = new Map<string, JudgeReply | Error>();
  const items: PlayItem[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as {
      custom_id: string;
      response?: { status_code: number; body: ChatCompletion } | null;
      error?: { message?: string } | null;
    };
    const spec = bySpec.get(r.custom_id);
    if (!spec) continue;
    const body = r.response?.status_code === 200 ? r.response.body : undefined;
    const reply = body?.choices?.[0]?.message?.content;
    const usage = body?.usage;
    replies.set(
      r.custom_id,
      typeof reply === 'string'
        ? {
            text: reply,
            ...(usage?.prompt_tokens != null ? { tokensIn: usage.prompt_tokens } : {}),
            ...(usage?.completion_tokens != null ? { tokensOut: usage.completion_tokens } : {}),
          }
        : new Error(
            `[judge:openai-batch] ${r.error?.message ?? `HTTP ${r.response?.status_code ?? '?'}`} (batch ${batchId})`,
          ),
    );
    items.push({ spec, id: r.custom_id });
  }
  return { replies, items };
}

/** Submits what is neither stored nor in a pending batch (and the budget admits); how many games it submitted. */
async function submitNew({ o, log, report }: BatchJob): Promise<number> {
  const store = o.store;
  const inFlight = new Set((await pendingRows(o)).flatMap((b) => b.gameIds));
  const stored = await o.store.games.existingIds(o.games.map((g) => g.id));
  const seen = new Set<string>();
  const candidates = o.games.filter(
    (g) => !stored.has(g.id) && !inFlight.has(g.id) && !seen.has(g.id) && seen.add(g.id),
  );
  const todo = o.admit ? candidates.filter((g) => o.admit!(g.id, g.spec)) : candidates;
  report.skipped = candidates.length - todo.length;
  if (!todo.length) return 0;
  const lines = todo.map((g) => requestLine(o, g));
  const submission = `submission-${randomUUID()}`;
  await store.batches.save({
    id: submission,
    refreshId: o.refreshId,
    judge: o.judgeId,
    inputFileId: '',
    status: 'submitting',
    gameIds: todo.map((g) => g.id),
    createdAt: Date.now(),
    finishedAt: null,
    cost: null,
  });
  let created: { fileId: string; batchId: string };
  try {
    created = await o.client.submit(lines, `arena-${o.refreshId}.jsonl`, {
      arena_refresh: o.refreshId,
      arena_submission: submission,
    });
  } catch (e) {
    // an HTTP error answer means no batch was created; anything else (a dropped connection) is left to recovery
    if (o.client.isRejected(e)) await store.batches.delete(submission);
    throw new Error(`[ops:batch] ${o.judgeId}: submitting the batch failed: ${(e as Error).message}`, {
      cause: e,
    });
  }
  await store.batches.update(submission, {
    id: created.batchId,
    inputFileId: created.fileId,
    status: 'submitted',
  });
  report.submitted = todo.length;
  log(`[${o.judgeId}] submitted batch ${created.batchId} with ${todo.length} games`);
  return todo.length;
}

/** One game as a line of the batch's input file: a chat completion request. */
function requestLine(o: BatchOptions, g: { spec: GameSpec; id: string }): string {
  return JSON.stringify({
    custom_id: g.id,
    method: 'POST',
    url: '/v1/chat/completions',
    body: {
      model: o.model,
      messages: [
        { role: 'system', content: g.spec.systemPrompt },
        { role: 'user', content: g.spec.userPrompt },
      ],
      n: 1,
      temperature: o.settings.temperature,
      max_tokens: o.settings.maxTokens,
    },
  });
}

/** Polls until nothing is pending, `waitS` has passed or the signal aborts; how many games are still pending. */
async function waitForPending(job: BatchJob, pending: number): Promise<number> {
  const { o, log } = job;
  const deadline = Date.now() + (o.waitS ?? 0) * 1000;
  while (pending && Date.now() < deadline && !o.signal?.aborted) {
    log(
      `[${o.judgeId}] ${pending} games in pending batches; polling every ${o.pollS ?? 30} s for up to ${Math.ceil((deadline - Date.now()) / 1000)} s more`,
    );
    await new Promise((r) =>
      setTimeout(r, Math.min((o.pollS ?? 30) * 1000, Math.max(0, deadline - Date.now()))),
    );
    pending = await pollOnce(job);
  }
  return pending;
}
