// Batch API results as games: poll the pending batches, read a finished batch's output and error files (nothing in
// them trusted: a line of a game no longer planned is dropped, two different answers to one request refuse the
// batch), and play each line's reply or failure through the engine's one loop, charging the budget what it cost.
import type { GameSpec, JudgeSettings } from '../core/types.ts';
import { ArenaError } from '../core/types.ts';
import { parserFor, verdictOf } from '../core/verdict/of-reply.ts';
import { playGames, type PlayItem } from '../engine/play/index.ts';
import { JudgeCallError, type JudgeReply } from '../judges/judge.ts';
import { completionReply } from '../judges/openai.ts';
import type { BatchJob, BatchOptions } from './batch.ts';
import { costOf } from './prices.ts';

/** What a result line's body is read for (an OpenAI chat completion; nothing in it is trusted). */
interface ChatCompletion {
  choices?: { message?: { content?: unknown } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

const DONE = new Set(['completed', 'failed', 'expired', 'cancelled']);

const pendingRows = (o: BatchOptions) => o.store.batches.list({ judge: o.judgeId, status: 'submitted' });

/** Poll every pending batch once; import the finished ones. Returns how many games are still pending. */
export async function pollOnce(job: BatchJob): Promise<number> {
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
    const gone: string[] = [];
    for (const f of [remote.outputFileId, remote.errorFileId]) {
      const t = f ? await o.client.outputText(f) : '';
      if (t === null) gone.push(f!);
      else text += `${t}\n`;
    }
    const results = readResults(text, job.bySpec, b.id, (r) => o.client.redact(r), o.settings);
    if (remote.status !== 'completed' || gone.length) {
      const why = await unanswered(job, b, results, remote.status, gone, remote.errors);
      report.failedBatches.push(why);
      log(`[${o.judgeId}] ${why}`);
    }
    await importResults(job, results);
    // a game of the batch with no result line was not answered: billed only if the batch completed (then at its
    // bound, as its cost is unknown); a failed, expired or cancelled batch bills what it did not answer nothing
    for (const id of b.gameIds) {
      const charged = o.budget?.settle(id, remote.status === 'completed' ? null : 0);
      if (charged) run.costEstimated += charged;
    }
    report.cost += (run.cost ?? 0) - before.cost;
    // the batch's cost is all its stored games', not only this import's: an import a full disk stopped stored
    // some of them under the stopped run, and the next run stored the recovered ones before this one
    const { cost } = await o.store.ledger.ofGames(b.gameIds);
    await o.store.batches.update(b.id, {
      status: gone.length ? GONE : remote.status === 'completed' ? 'imported' : remote.status,
      finishedAt: Date.now(),
      cost: cost ?? 0,
    });
    log(`[${o.judgeId}] batch ${b.id} ${remote.status}: imported ${report.imported} games`);
  }
  return pending;
}

/** The status of a completed batch whose results could not be read any more: its games not stored go up again. */
const GONE = 'output-gone';

/**
 * A batch that ended without answering, or whose result file is gone: its games with no result line are failed
 * attempts, sent again by a later submission (at most MAX_BATCH_TRIES times). Returns what the refresh reports.
 */
async function unanswered(
  job: BatchJob,
  b: { id: string; gameIds: string[] },
  results: ReturnType<typeof readResults>,
  status: string,
  gone: string[],
  errors: string | null,
): Promise<string> {
  const stored = await job.o.store.games.existingIds(b.gameIds);
  const open = b.gameIds.flatMap((id) => {
    const spec = job.bySpec.get(id);
    return spec && !results.replies.has(id) && !stored.has(id) ? [{ spec, id }] : [];
  });
  const why = gone.length
    ? `batch ${b.id} completed, but the server no longer has its result file ${gone.join(' and ')} (404: deleted, or past the provider's retention): ${stored.size} of its games are stored and keep their verdicts; the ${open.length} others were billed but cannot be read, so they are submitted again`
    : `batch ${b.id} ${status}${errors ? `: ${errors}` : ''}`;
  for (const g of open) {
    results.replies.set(g.id, new Error(`[judge:openai-batch] ${why}`));
    results.items.push(g);
    // a completed batch billed them: the budget charges them at their bound
    if (gone.length) results.billed.add(g.id);
  }
  return why;
}

/** A finished batch's output file, played as games: each line's reply is read as a verdict, a failure is an attempt. */
async function importResults(job: BatchJob, results: ReturnType<typeof readResults>): Promise<void> {
  const { replies, items } = results;
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
    costOf: (tin, tout, cached) => costOf(o.price, tin, tout, cached),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.liveness ? { isAlive: o.liveness.isAlive } : {}),
    ...(o.spill ? { spill: o.spill } : {}),
    // the budget held each game's bound since its submission: charged what its result line says it cost (a failed
    // request is not billed), whether or not the game could be stored
    ...(o.budget ? { budget: batchCharges(job, results) } : {}),
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

/** The budget's view of an import: each game charged its result line's cost (unreadable but billed: its bound). */
function batchCharges(job: BatchJob, { replies, billed }: ReturnType<typeof readResults>) {
  const budget = job.o.budget!;
  return {
    reserve: () => true,
    settle: (id: string): number => {
      const r = replies.get(id);
      const spent = r instanceof JudgeCallError ? r.spent : r instanceof Error ? undefined : r;
      if (!spent) return budget.settle(id, billed.has(id) ? null : 0);
      const cost = costOf(
        job.o.price,
        spent.tokensIn ?? null,
        spent.tokensOut ?? null,
        spent.tokensCached ?? null,
      );
      return budget.settle(id, cost);
    },
  };
}

/** Each result line is one game's call: a reply or a failure; lines of games no longer planned are dropped. */
function readResults(
  text: string,
  bySpec: Map<string, GameSpec>,
  batchId: string,
  redact: (reply: string) => { text: string; redactions: number },
  settings: JudgeSettings,
) {
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
    // read as a call's reply is (usage, cached and reasoning tokens, logprobs; an empty reply at the allowance)
    let reply: JudgeReply | Error | undefined;
    if (body)
      try {
        reply = completionReply(body as unknown as Parameters<typeof completionReply>[0], settings, redact);
      } catch (e) {
        reply = e instanceof JudgeCallError && e.kind === 'allowance' ? e : undefined;
      }
    replies.set(
      r.custom_id,
      reply ??
        new Error(
          `[judge:openai-batch] ${r.error?.message ?? errorOfBody(r.response?.body) ?? `HTTP ${r.response?.status_code ?? '?'}`} (batch ${batchId})`,
        ),
    );
    items.push({ spec, id: r.custom_id });
  }
  /** games whose failure was billed all the same (a completed batch's results that cannot be read) */
  const billed = new Set<string>();
  return { replies, items, billed };
}

/** `error.code: message` of a failed request's body (an OpenAI error object), if it has one */
function errorOfBody(body: unknown): string | undefined {
  const e = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (typeof e?.message !== 'string') return undefined;
  return typeof e.code === 'string' ? `${e.code}: ${e.message}` : e.message;
}
