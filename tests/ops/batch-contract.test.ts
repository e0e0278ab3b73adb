// Batch mode against an imitation of OpenAI's files + batches API (tests/support/openai-batch.ts): error files, a
// `failed` batch, input limits, `GET /batches` in pages, output files answering a request twice.
import Database from 'better-sqlite3';
import OpenAI, { toFile } from 'openai';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GameSpec } from '../../src/core/types.ts';
import { openaiBatchClient } from '../../src/judges/openai-batch.ts';
import { MAX_BATCH_TRIES, runBatches, type BatchOptions } from '../../src/ops/batch.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { tmpDir } from '../support/cli.ts';
import { sqlRows } from '../support/stored-game.ts';
import { startOpenAIServer, type OpenAIServer, type OpenAIServerOptions } from '../support/openai-server.ts';
import type { BatchServerOptions } from '../support/openai-batch.ts';

/** n pairwise games with distinct prompts; ids are hex so that a suffix picks about 1 in 16 */
function plan(n: number): { spec: GameSpec; id: string }[] {
  return Array.from({ length: n }, (_, i) => ({
    id: (0x1000 + i).toString(16),
    spec: {
      match: { questionId: i + 1, category: 'writing', turn: 1, model1: 'm1', model2: 'm2' },
      order: 'AB',
      promptName: 'pair-v2',
      systemPrompt: 'Judge the two answers.',
      userPrompt: `[Question]\nq${i}\n[The Start of Assistant A's Answer]\nshort\n[The End of Assistant A's Answer]\n[The Start of Assistant B's Answer]\na longer answer ${i}\n[The End of Assistant B's Answer]`,
    },
  }));
}

let srv: OpenAIServer | undefined;
let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
  await srv?.close();
  srv = store = undefined;
});

async function setup(batch: BatchServerOptions, server: OpenAIServerOptions = {}, apiKey = 'k') {
  srv = await startOpenAIServer({ verdict: 'longer', batch, ...server });
  const db = join(tmpDir('arena-batch-contract-'), 'arena.db');
  store = openSqliteStore(db);
  const base = (games: { spec: GameSpec; id: string }[], extra: Partial<BatchOptions> = {}) =>
    runBatches({
      store: store!,
      judgeId: 'openai/judge',
      model: 'judge',
      client: openaiBatchClient({ apiKey, baseURL: srv!.url }),
      games,
      settings: { temperature: 0, maxTokens: 64 },
      parser: 'last',
      price: { input: 5, output: 15 },
      refreshId: 'r1',
      ...extra,
    });
  return {
    db,
    refresh: base,
    posts: () => srv!.log.filter((e) => e.method === 'POST' && e.path === '/v1/batches'),
  };
}

describe('batch mode against the documented Batch API', () => {
  it('failed requests (error_file_id) are attempts, and a request that always fails is not resubmitted forever', async () => {
    const games = plan(32);
    const failing = games.filter((g) => g.id.endsWith('7'));
    expect(failing).toHaveLength(2);
    const s = await setup({
      failRequests: { idSuffixes: ['7'], status: 400, code: 'context_length_exceeded', message: 'too long' },
    });
    const r1 = await s.refresh(games);
    expect(r1).toMatchObject({ submitted: 32, imported: 0, pending: 32 });
    const r2 = await s.refresh(games);
    expect(r2).toMatchObject({ imported: 30, failed: 2 });
    const attempts = sqlRows(s.db, 'SELECT game_id, error FROM attempts ORDER BY game_id');
    expect(attempts.map((a) => a.game_id)).toEqual(failing.map((g) => g.id));
    expect(String(attempts[0]!.error)).toMatch(/context_length_exceeded: too long/);
    // resubmitted a bounded number of times, then given up (and said so), never again
    for (let i = 0; i < MAX_BATCH_TRIES + 2; i++) await s.refresh(games);
    const last = await s.refresh(games);
    expect(last).toMatchObject({ submitted: 0, givenUp: 2 });
    expect(s.posts()).toHaveLength(MAX_BATCH_TRIES);
  });

  it('a batch that ends failed is reported as a failure with its reason, its games failed attempts', async () => {
    const s = await setup({ failBatches: 1 });
    const games = plan(6);
    await s.refresh(games);
    const r = await s.refresh(games);
    expect(r.failed).toBe(6);
    expect(r.imported).toBe(0);
    expect(r.runId).not.toBeNull();
    expect(r.failedBatches).toEqual([
      expect.stringMatching(/batch_\d+ failed: invalid_request: The batch could not be processed/),
    ]);
    // the same refresh submits them again (a bounded number of times: MAX_BATCH_TRIES), and they are played
    expect(r.submitted).toBe(6);
    expect(sqlRows(s.db, 'SELECT status FROM batches ORDER BY created_at')).toEqual([
      { status: 'failed' },
      { status: 'submitted' },
    ]);
    expect((await s.refresh(games)).imported).toBe(6);
  });

  it('splits the games to the limits of one batch (requests and bytes), none over them', async () => {
    const s = await setup({ maxRequests: 10, maxFileBytes: 4000 });
    const games = plan(45);
    const r1 = await s.refresh(games, { limits: { maxRequests: 10, maxFileBytes: 4000 } });
    expect(r1.submitted).toBe(45);
    expect(s.posts().length).toBeGreaterThanOrEqual(5);
    const r2 = await s.refresh(games, { limits: { maxRequests: 10, maxFileBytes: 4000 } });
    expect(r2).toMatchObject({ imported: 45, failed: 0, failedBatches: [] });
  });

  it('recovery pages through GET /batches: an orphan behind 100 newer batches is found, not submitted again', async () => {
    const s = await setup({ completeAfterPolls: 1 });
    const games = plan(4);
    await s.refresh(games);
    const [row] = sqlRows(s.db, 'SELECT id FROM batches');
    const remoteId = String(row!.id);
    // 120 newer batches of the organisation
    const api = new OpenAI({ apiKey: 'k', baseURL: srv!.url });
    const file = await api.files.create({
      file: await toFile(Buffer.from('\n'), 'x.jsonl'),
      purpose: 'batch',
    });
    for (let i = 0; i < 120; i++)
      await api.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      });
    // the state a kill right after batches.create leaves: the row carries its submission id, not the batch's
    const remote = await api.batches.retrieve(remoteId);
    const d = new Database(s.db);
    d.prepare("UPDATE batches SET id = ?, status = 'submitting', input_file_id = ''").run(
      remote.metadata!.arena_submission,
    );
    d.close();
    const posts = s.posts().length;
    const r = await s.refresh(games);
    expect(s.posts()).toHaveLength(posts);
    expect(r).toMatchObject({ submitted: 0, imported: 4 });
    expect(sqlRows(s.db, 'SELECT id, status FROM batches')).toEqual([{ id: remoteId, status: 'imported' }]);
  });

  it('a completed batch whose result file the server no longer has: its stored games kept, the others said and submitted again', async () => {
    const s = await setup({});
    const games = plan(6);
    expect(await s.refresh(games)).toMatchObject({ submitted: 6, pending: 6 });
    const [row] = sqlRows(s.db, 'SELECT id FROM batches');
    const api = new OpenAI({ apiKey: 'k', baseURL: srv!.url });
    // the state an import a full disk stopped leaves: two of the batch's games stored, the batch still pending
    const remote = await api.batches.retrieve(String(row!.id));
    const lines = (await (await api.files.content(remote.output_file_id!)).text()).trim().split('\n');
    expect(lines).toHaveLength(6);
    const keep = (JSON.parse(`[${lines.join(',')}]`) as { custom_id: string }[]).slice(0, 2);
    const first = await s.refresh(games.filter((g) => keep.some((k) => k.custom_id === g.id)));
    expect(first).toMatchObject({ imported: 2, pending: 0 });
    const kept = sqlRows(s.db, 'SELECT id, reply, cost FROM games ORDER BY id');
    expect(kept).toHaveLength(2);
    const d = new Database(s.db);
    d.prepare("UPDATE batches SET status = 'submitted', cost = NULL").run();
    d.close();
    // then the output file is deleted (or passes the provider's retention): its content is a 404
    await api.files.delete(remote.output_file_id!);
    await expect(api.files.content(remote.output_file_id!)).rejects.toThrow(/404/);

    const r = await s.refresh(games);
    expect(r.failedBatches).toEqual([
      `batch ${row!.id} completed, but the server no longer has its result file ${remote.output_file_id} (404: deleted, or past the provider's retention): 2 of its games are stored and keep their verdicts; the 4 others were billed but cannot be read, so they are submitted again`,
    ]);
    expect(r).toMatchObject({ imported: 0, failed: 4, submitted: 4, pending: 4 });
    // the verdicts paid for and stored are untouched; the others are failed attempts, never verdicts
    expect(sqlRows(s.db, 'SELECT id, reply, cost FROM games ORDER BY id')).toEqual(kept);
    const attempts = sqlRows(s.db, 'SELECT game_id, error FROM attempts ORDER BY game_id');
    expect(attempts.map((a) => a.game_id).sort()).toEqual(
      games.map((g) => g.id).filter((id) => !kept.some((k) => k.id === id)),
    );
    expect(String(attempts[0]!.error)).toContain('no longer has its result file');
    const batches = sqlRows(s.db, 'SELECT status, game_ids FROM batches ORDER BY created_at');
    expect(batches.map((b) => b.status)).toEqual(['output-gone', 'submitted']);
    expect((JSON.parse(String(batches[1]!.game_ids)) as string[]).sort()).toEqual(
      attempts.map((a) => a.game_id),
    );
    // the next refresh imports them: every game stored once
    expect(await s.refresh(games)).toMatchObject({ imported: 4, failed: 0, failedBatches: [] });
    expect(sqlRows(s.db, 'SELECT count(*) AS n FROM games')).toEqual([{ n: 6 }]);
  });

  it('a server that puts the API key in its output: the stored replies hold [redacted], counted in the report', async () => {
    const key = 'sk-test-BATCH-ECHO-0123456789';
    const games = plan(8);
    const s = await setup({}, { echoKeyInReply: true }, key);
    expect(await s.refresh(games)).toMatchObject({ submitted: 8, pending: 8 });
    const r = await s.refresh(games);
    expect(r).toMatchObject({ imported: 8, failed: 0, redacted: 8 });
    const stored = sqlRows(s.db, 'SELECT reply, verdict FROM games');
    expect(stored).toHaveLength(8);
    for (const g of stored) {
      expect(String(g.reply)).not.toContain(key);
      expect(String(g.reply)).toMatch(/^You sent Authorization: Bearer \[redacted\]\n/);
      expect(g.verdict).toBe('model_2'); // the longer answer (B) still wins: only the key was replaced
    }
  });

  it('shuffled output is matched by custom_id; conflicting duplicate lines are an error, nothing imported', async () => {
    const a = await setup({ shuffle: true });
    const games = plan(5);
    await a.refresh(games);
    expect(await a.refresh(games)).toMatchObject({ imported: 5, failed: 0 });
    await store!.close();
    await srv!.close();
    srv = store = undefined;

    const b = await setup({ conflictingDuplicate: true });
    await b.refresh(games);
    await expect(b.refresh(games)).rejects.toThrow(
      /has two different results in the output; nothing of this batch was imported/,
    );
    expect(sqlRows(b.db, 'SELECT count(*) AS n FROM games')).toEqual([{ n: 0 }]);
  });
});
