// OpenAI Batch API mode (half price, results within 24 h): submit the games to play as one JSONL file,
// persist the batch id, poll, and import the results as games. A restarted refresh first polls the
// batches it left pending and never submits a game twice while its batch is pending.
import { randomUUID } from 'node:crypto';
import type { GameSpec, JudgeSettings } from '../core/types.ts';
import type { ParserMode } from '../core/verdict/parse.ts';
import { parserFor, verdictOf } from '../core/verdict/of-reply.ts';
import { newRun, playGames, type PlayItem } from '../engine/play.ts';
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

export async function runBatches(o: BatchOptions): Promise<BatchReport> {
  const log = o.log ?? (() => {});
  const client = o.client;
  const store = o.store;
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
  const bySpec = new Map(o.games.map((g) => [g.id, g.spec]));
  const run = newRun({
    judge: o.judgeId,
    mode: 'batch',
    config: { refresh: o.refreshId, settings: o.settings, parser: o.parser },
    planned: o.games.length,
    toPlay: 0,
    cost: 0,
  });

  /**
   * A submission is recorded (status `submitting`, its game ids) before the upload, and gets the batch id
   * after. A process killed in between left a `submitting` row: find its batch by the metadata it was
   * created with; if there is none, it was never submitted, and its games are free to go again.
   */
  const recoverSubmissions = async () => {
    const orphans = await store.listBatches({ judge: o.judgeId, status: 'submitting' });
    if (!orphans.length) return;
    const page = await client.list();
    for (const row of orphans) {
      const remote = page.find((b) => b.metadata?.arena_submission === row.id);
      if (remote) {
        await store.updateBatch(row.id, {
          id: remote.id,
          inputFileId: remote.inputFileId,
          status: 'submitted',
        });
        log(`[${o.judgeId}] recovered batch ${remote.id} of an interrupted submission`);
      } else {
        await store.deleteBatch(row.id);
        log(
          `[${o.judgeId}] an interrupted submission never reached the server; its games will be submitted again`,
        );
      }
    }
  };

  const pendingRows = () => store.listBatches({ judge: o.judgeId, status: 'submitted' });

  /** Poll every pending batch once; import the finished ones. Returns how many are still pending. */
  const pollOnce = async (): Promise<number> => {
    let pending = 0;
    for (const b of await pendingRows()) {
      const remote = await client.retrieve(b.id, o.signal);
      if (!DONE.has(remote.status)) {
        pending += b.gameIds.length;
        continue;
      }
      const before = { cost: run.cost ?? 0, played: run.played };
      if (remote.outputFileId) {
        const text = await client.outputText(remote.outputFileId);
        const prompts = new Map((await o.store.listPrompts()).map((p) => [p.name, parserFor(p, o.parser)]));
        const plain = parserFor(undefined, o.parser);
        // each result line is one game's call, already made: a reply, or a failure (an attempt, never a verdict)
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
          if (!spec) continue; // its answers changed since it was submitted: no longer planned
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
                  `[judge:openai-batch] ${r.error?.message ?? `HTTP ${r.response?.status_code ?? '?'}`} (batch ${b.id})`,
                ),
          );
          items.push({ spec, id: r.custom_id });
        }
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
          call: async ({ id }) => {
            const r = replies.get(id)!;
            if (r instanceof Error) throw r;
            return r;
          },
          read: (spec, text) => verdictOf(spec, text, prompts.get(spec.promptName) ?? plain),
        });
        report.failed += run.failed - failed;
        report.imported += run.played - before.played;
      }
      const cost = (run.cost ?? 0) - before.cost;
      report.cost += cost;
      await store.updateBatch(b.id, {
        status: remote.status === 'completed' ? 'imported' : remote.status,
        finishedAt: Date.now(),
        cost,
      });
      log(`[${o.judgeId}] batch ${b.id} ${remote.status}: imported ${report.imported} games`);
    }
    return pending;
  };

  await recoverSubmissions();
  let pending = await pollOnce();
  // submit what is neither stored nor in a pending batch
  const inFlight = new Set((await pendingRows()).flatMap((b) => b.gameIds));
  const stored = await o.store.existingGameIds(o.games.map((g) => g.id));
  const seen = new Set<string>();
  const candidates = o.games.filter(
    (g) => !stored.has(g.id) && !inFlight.has(g.id) && !seen.has(g.id) && seen.add(g.id),
  );
  const todo = o.admit ? candidates.filter((g) => o.admit!(g.id, g.spec)) : candidates;
  report.skipped = candidates.length - todo.length;
  if (todo.length) {
    const lines = todo.map((g) =>
      JSON.stringify({
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
      }),
    );
    const submission = `submission-${randomUUID()}`;
    await store.saveBatch({
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
      created = await client.submit(lines, `arena-${o.refreshId}.jsonl`, {
        arena_refresh: o.refreshId,
        arena_submission: submission,
      });
    } catch (e) {
      // an HTTP error answer means no batch was created; anything else (a dropped connection) is left to recovery
      if (client.isRejected(e)) await store.deleteBatch(submission);
      throw new Error(`[ops:batch] ${o.judgeId}: submitting the batch failed: ${(e as Error).message}`, {
        cause: e,
      });
    }
    await store.updateBatch(submission, {
      id: created.batchId,
      inputFileId: created.fileId,
      status: 'submitted',
    });
    report.submitted = todo.length;
    pending += todo.length;
    log(`[${o.judgeId}] submitted batch ${created.batchId} with ${todo.length} games`);
  }
  const deadline = Date.now() + (o.waitS ?? 0) * 1000;
  while (pending && Date.now() < deadline && !o.signal?.aborted) {
    log(
      `[${o.judgeId}] ${pending} games in pending batches; polling every ${o.pollS ?? 30} s for up to ${Math.ceil((deadline - Date.now()) / 1000)} s more`,
    );
    await new Promise((r) =>
      setTimeout(r, Math.min((o.pollS ?? 30) * 1000, Math.max(0, deadline - Date.now()))),
    );
    pending = await pollOnce();
  }
  report.pending = pending;
  if (run.played || run.failed) report.runId = run.id;
  return report;
}
