// Batch API submissions: games to play go up as JSONL request files within one batch's limits, each submission
// recorded before its upload (and recovered from the server's list when a process died in between), as far as the
// budget admits: each submitted game holds its upper bound until its batch is imported.
import { randomUUID } from 'node:crypto';
import type { GameSpec } from '../core/types.ts';
import { ArenaError } from '../core/types.ts';
import { bodyOf } from '../judges/contract.ts';
import type { BatchInfo } from '../judges/openai-batch.ts';
import type { BatchJob, BatchOptions } from './batch.ts';

/** OpenAI's limits on one batch's input file; more games go up as several batches. */
export const BATCH_LIMITS = { maxRequests: 50_000, maxFileBytes: 200_000_000 };
/** A game in this many finished batches without a verdict (its request failed each time) is not submitted again. */
export const MAX_BATCH_TRIES = 3;
/** How much older than the oldest interrupted submission a listed batch may be before recovery stops paging. */
const RECOVERY_SLACK_MS = 3_600_000;

/**
 * A submission is recorded (`submitting`) before the upload and gets its batch id after: a `submitting` row left
 * by a killed process is found by its metadata, or was never submitted.
 */
export async function recoverSubmissions({ o, log }: BatchJob): Promise<void> {
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

/** Submits what is neither stored nor pending, as far as the budget admits (the rest counted in `job.waiting`). */
export async function submitNew(job: BatchJob): Promise<number> {
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
  const { todo, waiting, refused } = underBudget(o, candidates);
  job.waiting = waiting;
  report.skipped = refused;
  let submitted = 0;
  for (const part of splitToLimits(o, todo)) submitted += await submitOne(job, part);
  return submitted;
}

/** The games whose bounds fit the budget now, in order; after the first that does not, `waiting` or `refused`. */
function underBudget(o: BatchOptions, games: { spec: GameSpec; id: string }[]) {
  if (!o.budget) return { todo: games, waiting: 0, refused: 0 };
  const todo: { spec: GameSpec; id: string }[] = [];
  for (const [i, g] of games.entries()) {
    const go = o.budget.reserve(g.id, g.spec);
    if (go === 'go') todo.push(g);
    else if (go === 'wait') return { todo, waiting: games.length - i, refused: 0 };
    else return { todo, waiting: 0, refused: games.length - i };
  }
  return { todo, waiting: 0, refused: 0 };
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
      ...bodyOf(o.settings),
    },
  });
}
