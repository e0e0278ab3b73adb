// OpenAI Batch API mode (half price, results within 24 h): submit the games to play as one JSONL file,
// persist the batch id, poll, and import the results as games. A restarted refresh first polls the
// batches it left pending and never submits a game twice while its batch is pending.
import { randomUUID } from 'node:crypto';
import type { GameSpec, JudgeSettings } from '../core/types.ts';
import type { ParserMode } from '../core/verdict/parse.ts';
import { parserFor, verdictOf } from '../core/verdict/of-reply.ts';
import { newRun, playGames, type Liveness, type PlayItem } from '../engine/play/index.ts';
import type { JudgeReply } from '../judges/judge.ts';
import type { BatchClient, BatchInfo } from '../judges/openai-batch.ts';
import { ArenaError } from '../core/types.ts';
import type { Store } from '../storage/store.ts';
import type { Price } from './config.ts';
import type { Spill } from './deps.ts';
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
  /** where replies the database refused go (a full disk): the recovery file the next run stores */
  spill?: Spill;
  /** the most requests and input-file bytes one batch may hold (default: OpenAI's, BATCH_LIMITS) */
  limits?: Partial<typeof BATCH_LIMITS>;
}

/** OpenAI's limits on one batch's input file; more games go up as several batches. */
const BATCH_LIMITS = { maxRequests: 50_000, maxFileBytes: 200_000_000 };
/** A game in this many finished batches without a verdict (its request failed each time) is not submitted again. */
export const MAX_BATCH_TRIES = 3;
/** How much older than the oldest interrupted submission a listed batch may be before recovery stops paging. */
const RECOVERY_SLACK_MS = 3_600_000;

export interface BatchReport {
  judge: string;
  submitted: number;
  imported: number;
  pending: number;
  failed: number;
  /** games the budget refused to submit */
  skipped: number;
  /** games whose request failed in MAX_BATCH_TRIES batches already: not submitted again */
  givenUp: number;
  /** batches that ended failed, expired or cancelled, with the server's reason */
  failedBatches: string[];
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
    givenUp: 0,
    failedBatches: [],
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
  // page through the organisation's batches (newest first) until every orphan is found, or the batches
  // listed are older than the oldest orphan (with an hour's slack for the clocks)
  const wanted = new Set(orphans.map((r) => r.id));
  const found = new Map<string, BatchInfo>();
  const oldest = Math.min(...orphans.map((r) => r.createdAt)) - RECOVERY_SLACK_MS;
  for await (const b of o.client.list()) {
    const sub = b.metadata?.arena_submission;
    if (sub !== undefined && wanted.has(sub) && !found.has(sub)) found.set(sub, b);
    if (found.size === wanted.size || b.createdAt < oldest) break;
  }
  for (const row of orphans) {
    const remote = found.get(row.id);
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
    // the output file (replies) and the error file (failed requests: attempts), read before anything is stored
    let text = '';
    for (const f of [remote.outputFileId, remote.errorFileId])
      if (f) text += `${await o.client.outputText(f)}\n`;
    const results = readResults(text, job.bySpec, b.id);
    if (remote.status !== 'completed') {
      const why = `batch ${b.id} ${remote.status}${remote.errors ? `: ${remote.errors}` : ''}`;
      report.failedBatches.push(why);
      log(`[${o.judgeId}] ${why}`);
      // its games with no line are failed attempts too (a failed batch has no output at all)
      for (const id of b.gameIds) {
        const spec = job.bySpec.get(id);
        if (!spec || results.replies.has(id)) continue;
        results.replies.set(id, new Error(`[judge:openai-batch] ${why}`));
        results.items.push({ spec, id });
      }
    }
    await importResults(job, results);
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
async function importResults(
  job: BatchJob,
  { replies, items }: ReturnType<typeof readResults>,
): Promise<void> {
  const { o, report, run } = job;
  if (!items.length) return;
  const played = run.played;
  const prompts = new Map((await o.store.catalog.prompts()).map((p) => [p.name, parserFor(p, o.parser)]));
  const plain = parserFor(undefined, o.parser);
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
    ...(o.spill ? { spill: o.spill } : {}),
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
  /** each game's line as first read: a repeat must say the same */
  const seen = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let r: {
      custom_id: string;
      response?: { status_code: number; body: ChatCompletion } | null;
      error?: { message?: string } | null;
    };
    try {
      r = JSON.parse(line) as typeof r;
    } catch {
      throw new ArenaError(`[ops:batch] batch ${batchId}: a result line is not JSON: ${line.slice(0, 80)}`);
    }
    const spec = bySpec.get(r.custom_id);
    if (!spec) continue;
    const body = r.response?.status_code === 200 ? r.response.body : undefined;
    const key = JSON.stringify([
      r.response?.status_code ?? null,
      body?.choices?.[0]?.message?.content ?? null,
    ]);
    const first = seen.get(r.custom_id);
    if (first !== undefined) {
      // the same request answered twice: harmless if the answers agree, an error (nothing imported) if not
      if (first !== key)
        throw new ArenaError(
          `[ops:batch] batch ${batchId}: request ${r.custom_id} has two different results in the output; nothing of this batch was imported`,
        );
      continue;
    }
    seen.set(r.custom_id, key);
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
            `[judge:openai-batch] ${r.error?.message ?? errorOfBody(r.response?.body) ?? `HTTP ${r.response?.status_code ?? '?'}`} (batch ${batchId})`,
          ),
    );
    items.push({ spec, id: r.custom_id });
  }
  return { replies, items };
}

/** `error.code: message` of a failed request's body (an OpenAI error object), if it has one */
function errorOfBody(body: unknown): string | undefined {
  const e = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (typeof e?.message !== 'string') return undefined;
  return typeof e.code === 'string' ? `${e.code}: ${e.message}` : e.message;
}

/** Submits what is neither stored nor in a pending batch (and the budget admits); how many games it submitted. */
async function submitNew(job: BatchJob): Promise<number> {
  const { o, log, report } = job;
  const rows = await o.store.batches.list({ judge: o.judgeId });
  const inFlight = new Set(rows.filter((b) => b.status === 'submitted').flatMap((b) => b.gameIds));
  // how many finished batches each game was in: still not stored after MAX_BATCH_TRIES, its request fails
  const tries = new Map<string, number>();
  for (const b of rows)
    if (b.status !== 'submitted' && b.status !== 'submitting')
      for (const id of b.gameIds) tries.set(id, (tries.get(id) ?? 0) + 1);
  const stored = await o.store.games.existingIds(o.games.map((g) => g.id));
  const seen = new Set<string>();
  const open = o.games.filter(
    (g) => !stored.has(g.id) && !inFlight.has(g.id) && !seen.has(g.id) && seen.add(g.id),
  );
  const candidates = open.filter((g) => (tries.get(g.id) ?? 0) < MAX_BATCH_TRIES);
  report.givenUp = open.length - candidates.length;
  if (report.givenUp)
    log(
      `[${o.judgeId}] ${report.givenUp} game(s) failed in ${MAX_BATCH_TRIES} batches already (see \`arena runs\` for the errors): not submitted again`,
    );
  const todo = o.admit ? candidates.filter((g) => o.admit!(g.id, g.spec)) : candidates;
  report.skipped = candidates.length - todo.length;
  let submitted = 0;
  for (const part of splitToLimits(o, todo)) submitted += await submitOne(job, part);
  return submitted;
}

/** The games as request lines, in parts within the batch limits (requests, and bytes of the input file). */
function splitToLimits(o: BatchOptions, todo: { spec: GameSpec; id: string }[]) {
  const lim = { ...BATCH_LIMITS, ...o.limits };
  const parts: { games: { spec: GameSpec; id: string }[]; lines: string[] }[] = [];
  let cur: (typeof parts)[number] = { games: [], lines: [] };
  let bytes = 0;
  for (const g of todo) {
    const line = requestLine(o, g);
    const n = Buffer.byteLength(line) + 1;
    if (n > lim.maxFileBytes)
      throw new ArenaError(
        `[ops:batch] ${o.judgeId}: game ${g.id}'s request is ${n} bytes, more than a batch file may hold (${lim.maxFileBytes})`,
      );
    if (cur.games.length && (cur.games.length >= lim.maxRequests || bytes + n > lim.maxFileBytes)) {
      parts.push(cur);
      cur = { games: [], lines: [] };
      bytes = 0;
    }
    cur.games.push(g);
    cur.lines.push(line);
    bytes += n;
  }
  if (cur.games.length) parts.push(cur);
  return parts;
}

/** One batch: recorded as `submitting`, uploaded and created, then recorded with its id; how many games. */
async function submitOne(
  { o, log, report }: BatchJob,
  { games: todo, lines }: { games: { spec: GameSpec; id: string }[]; lines: string[] },
): Promise<number> {
  const store = o.store;
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
  report.submitted += todo.length;
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
