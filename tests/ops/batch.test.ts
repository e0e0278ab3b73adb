// Batch API mode of `arena refresh` against the test server's files + batches endpoints, with restarts
// (separate `arena` processes) between submit and completion.
import Database from 'better-sqlite3';
import OpenAI from 'openai';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { games, HAVE_MTBENCH, readDb, writeConfig } from './helpers.ts';

const MODELS = ['alpaca-13b', 'claude-v1', 'gpt-3.5-turbo'];

describe.skipIf(!HAVE_MTBENCH)('batch mode', () => {
  let srv: OpenAIServer;
  const dir = tmpDir('arena-batch-');
  beforeAll(async () => {
    // a batch completes on its second poll: the first refresh submits, the second finds it in progress, the third imports
    srv = await startOpenAIServer({
      latencyMs: 0,
      verdict: 'longer',
      batch: { completeAfterPolls: 2 },
    });
  });
  afterAll(async () => srv?.close());

  const log = () => srv.log;
  const refresh = async (cfg: string) => {
    const r = await runArena(['refresh', '--config', cfg, '--json']);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as {
      played: number;
      cost: number;
      batches: { submitted: number; imported: number; pending: number; cost: number }[];
      line: string;
    };
  };

  it('submits, survives restarts before completion without resubmitting, imports the results at half price', async () => {
    const db = join(dir, 'arena.db');
    const cfg = writeConfig(dir, { url: srv.url, models: MODELS, judge: { batch: true, batchPollS: 0.2 } });
    const r1 = await refresh(cfg);
    expect(r1.batches).toEqual([expect.objectContaining({ submitted: 36, imported: 0, pending: 36 })]);
    expect(r1.line).toMatch(/0 played, 0 failed, 36 in pending batches/);
    expect(games(db)).toHaveLength(0);
    const ids = readDb(db, (d) => d.prepare('select id, status, game_ids from batches').all()) as {
      id: string;
      status: string;
      game_ids: string;
    }[];
    expect(ids).toHaveLength(1);
    expect(ids[0]!.status).toBe('submitted');
    expect(JSON.parse(ids[0]!.game_ids)).toHaveLength(36);

    // restart while the batch is in progress: it is polled, nothing is submitted again
    const r2 = await refresh(cfg);
    expect(r2.batches).toEqual([expect.objectContaining({ submitted: 0, imported: 0, pending: 36 })]);
    expect(log().filter((e) => e.path === '/v1/batches' && e.method === 'POST')).toHaveLength(1);

    // next restart: completed, imported as games
    const r3 = await refresh(cfg);
    expect(r3.batches).toEqual([expect.objectContaining({ submitted: 0, imported: 36, pending: 0 })]);
    const stored = games(db);
    expect(stored).toHaveLength(36);
    expect(
      stored.every((g) => g.source === 'batch' && ['model_1', 'model_2', 'tie'].includes(g.verdict)),
    ).toBe(true);
    // half of the 10 / 30 USD per 1M tokens
    for (const g of stored) expect(g.cost).toBeCloseTo((g.tokens_in! * 5 + g.tokens_out! * 15) / 1e6, 12);
    expect(r3.cost).toBeCloseTo(
      stored.reduce((s, g) => s + g.cost!, 0),
      12,
    );
    expect(readDb(db, (d) => d.prepare('select status from batches').get())).toEqual({ status: 'imported' });
    // the server answered each game exactly once, never through the chat endpoint
    expect(log().filter((e) => e.path === '/v1/batches#line')).toHaveLength(36);
    expect(log().filter((e) => e.path === '/v1/chat/completions')).toHaveLength(0);

    // a fourth run has nothing to do: no upload, no batch
    const before = log().length;
    const r4 = await refresh(cfg);
    expect(r4.batches).toEqual([expect.objectContaining({ submitted: 0, imported: 0, pending: 0 })]);
    expect(
      log()
        .slice(before)
        .filter((e) => e.method === 'POST'),
    ).toHaveLength(0);
  });

  it('a submission killed between creating the batch and recording its id is recovered by its metadata, not resubmitted', async () => {
    const d = tmpDir('arena-batch-crash-');
    const s2 = await startOpenAIServer({
      verdict: 'longer',
      batch: { completeAfterPolls: 1 },
    });
    try {
      const db = join(d, 'arena.db');
      const cfg = writeConfig(d, { url: s2.url, models: MODELS, judge: { batch: true } });
      const r1 = await runArena(['refresh', '--config', cfg]);
      expect(r1.code, r1.stderr).toBe(0);
      // put the database back into the state a SIGKILL right after batches.create leaves: the row still
      // carries the submission id it was written with, and a second row whose upload never happened
      const remote = (await new OpenAI({ apiKey: 'x', baseURL: s2.url }).batches.list()).data;
      expect(remote).toHaveLength(1);
      const submission = remote[0]!.metadata!.arena_submission!;
      expect(submission).toMatch(/^submission-/);
      const w = new Database(db);
      w.prepare("update batches set id = ?, status = 'submitting', input_file_id = ''").run(submission);
      w.prepare(
        "insert into batches (id, judge, input_file_id, status, game_ids, created_at) values ('submission-ghost', 'openai/judge', '', 'submitting', '[]', 0)",
      ).run();
      w.close();
      const r2 = await runArena(['refresh', '--config', cfg, '--json']);
      expect(r2.code, r2.stderr).toBe(0);
      expect(r2.stderr).toMatch(/recovered batch batch_\d+ of an interrupted submission/);
      expect(r2.stderr).toMatch(/an interrupted submission never reached the server/);
      expect(JSON.parse(r2.stdout).batches).toEqual([
        expect.objectContaining({ submitted: 0, imported: 36, pending: 0 }),
      ]);
      expect(s2.log.filter((e) => e.path === '/v1/batches' && e.method === 'POST')).toHaveLength(1);
      expect(games(db)).toHaveLength(36);
      expect(readDb(db, (x) => x.prepare('select id, status from batches').all())).toEqual([
        { id: remote[0]!.id, status: 'imported' },
      ]);
    } finally {
      await s2.close();
    }
  });

  it('a server without the Batch API fails the refresh clearly (exit 1), recorded as failed', async () => {
    const d = tmpDir('arena-batch-none-');
    const plain = await startOpenAIServer({ verdict: 'longer' });
    try {
      const cfg = writeConfig(d, { url: plain.url, models: MODELS, judge: { batch: true } });
      const r = await runArena(['refresh', '--config', cfg]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/404/);
      const rows = readDb(join(d, 'arena.db'), (x) =>
        x.prepare('select status, degraded from refreshes').all(),
      ) as { status: string; degraded: string }[];
      expect(rows).toHaveLength(1);
      expect(rows[0]!.status).toBe('failed');
      expect(rows[0]!.degraded).toMatch(/error: .*404/);
      expect(r.stderr).toMatch(/\[ops:batch\] openai\/judge: submitting the batch failed: 404/);
      // the submission the server refused is not left behind as pending
      expect(readDb(join(d, 'arena.db'), (x) => x.prepare('select count(*) n from batches').get())).toEqual({
        n: 0,
      });
    } finally {
      await plain.close();
    }
  });
});
