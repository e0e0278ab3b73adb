// engine/play/ through the real OpenAI judge against the test server: a failed call is an attempt, never a verdict;
// counters equal the database; an abort stops cleanly; budget refusals and other runs' games are counted as such.
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Game, GameSpec } from '../../src/core/types.ts';
import { parserFor, verdictOf } from '../../src/core/verdict/of-reply.ts';
import {
  newRun,
  playGames,
  type PlayItem,
  type PlayOptions,
  type RunProgress,
} from '../../src/engine/play/index.ts';
import { openaiJudge } from '../../src/judges/openai.ts';
import { withRetry } from '../../src/judges/retry.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer, type OpenAIServerOptions } from '../support/openai-server.ts';

const dir = tmpDir('arena-play-test-');
let store: SqliteStore;
let server: OpenAIServer | undefined;
let n = 0;

beforeEach(() => {
  store = openSqliteStore(join(dir, `play-${++n}.db`));
});
afterEach(async () => {
  await store.close();
  await server?.close();
  server = undefined;
});
afterAll(async () => {
  await server?.close();
});

/** `count` pairwise games whose prompts differ (question i), FastChat's answer markers around answers of different lengths. */
function items(count: number, tag = (_i: number) => ''): PlayItem[] {
  return Array.from({ length: count }, (_, i) => {
    const spec: GameSpec = {
      match: { questionId: i + 1, category: 'writing', turn: 1, model1: 'm1', model2: 'm2' },
      order: i % 2 ? 'BA' : 'AB',
      promptName: 'pair-v2',
      systemPrompt: 'Please act as an impartial judge.',
      userPrompt: `[User Question]\nquestion ${i}${tag(i)}\n\n[The Start of Assistant A's Answer]\n${'a'.repeat(i + 1)}\n[The End of Assistant A's Answer]\n\n[The Start of Assistant B's Answer]\n${'b'.repeat(3)}\n[The End of Assistant B's Answer]`,
    };
    return { spec, id: `game-${i}` };
  });
}

async function judgeAt(o: OpenAIServerOptions, retry: { retries?: number; timeoutMs?: number } = {}) {
  server = await startOpenAIServer(o);
  return withRetry(openaiJudge({ model: 'judge', baseURL: server.url }), {
    retries: retry.retries ?? 2,
    baseDelayMs: 5,
    timeoutMs: retry.timeoutMs ?? 5000,
  });
}

/** The options a tournament gives the loop: the judge's call and the `[[A]]` reading (last verdict). */
function options(judge: Awaited<ReturnType<typeof judgeAt>>, extra: Partial<PlayOptions> = {}): PlayOptions {
  const settings = { temperature: 0, maxTokens: 2048 };
  return {
    store,
    run: newRun({ judge: judge.id, mode: 'pairwise-all', config: {}, planned: 0, toPlay: 0 }),
    settings,
    call: ({ spec }, c) =>
      judge.complete({
        system: spec.systemPrompt,
        user: spec.userPrompt,
        temperature: c.settings.temperature ?? 0,
        maxTokens: c.settings.maxTokens,
        onRetry: c.onRetry,
        ...(c.signal ? { signal: c.signal } : {}),
      }),
    read: (spec, text) => verdictOf(spec, text, parserFor(undefined, 'last')),
    concurrency: 4,
    ...extra,
  };
}

const rows = <T>(sql: string, ...p: unknown[]) => store.sqlite.prepare(sql).all(...p) as T[];

describe('playGames', () => {
  it('plays every game once; the run counters equal what the database holds', async () => {
    const judge = await judgeAt({ verdict: 'longer' });
    const todo = items(12);
    const seen: RunProgress[] = [];
    const run = await playGames(todo, options(judge, { onProgress: (p) => seen.push(p) }));
    expect(run).toMatchObject({
      played: 12,
      failed: 0,
      elsewhere: 0,
      skipped: 0,
      status: 'done',
      heartbeatAt: null,
    });
    expect(server!.completions()).toBe(12);
    const games = rows<{
      id: string;
      verdict: string;
      parser: string;
      run_id: string;
      tokens_in: number;
      tokens_out: number;
      reply: string;
      user_prompt: string;
    }>('SELECT * FROM games ORDER BY id');
    expect(games.map((g) => g.id).sort()).toEqual(todo.map((g) => g.id).sort());
    // the verdict as the reply says, mapped through the order: the server prefers the longer answer
    for (const g of games) {
      const item = todo.find((t) => t.id === g.id)!;
      const i = item.spec.match.questionId - 1;
      const shown = i + 1 > 3 ? 'A' : i + 1 < 3 ? 'B' : 'tie';
      const expected =
        shown === 'tie' ? 'tie' : (shown === 'A') === (item.spec.order === 'AB') ? 'model_1' : 'model_2';
      expect(g.verdict, g.id).toBe(expected);
      expect(g.parser).toBe('last@1');
      expect(g.run_id).toBe(run.id);
    }
    expect(run.tokensIn).toBe(games.reduce((s, g) => s + g.tokens_in, 0));
    expect(run.tokensOut).toBe(games.reduce((s, g) => s + g.tokens_out, 0));
    expect(rows('SELECT id, status, played, failed, tokens_in AS tokensIn FROM runs')).toEqual([
      { id: run.id, status: 'done', played: 12, failed: 0, tokensIn: run.tokensIn },
    ]);
    expect(rows('SELECT * FROM leases')).toEqual([]);
    expect(rows('SELECT * FROM attempts')).toEqual([]);
    // progress after every game, the last one complete
    expect(seen).toHaveLength(12);
    expect(seen.at(-1)).toMatchObject({ done: 12, failed: 0, total: 12 });
  });

  it('a failed call is an attempt on record, never a verdict; a retried one that recovers is stored with its attempts', async () => {
    // FAILME fails every attempt (1 + 2 retries); FLAKY fails its first attempt only
    const judge = await judgeAt({
      verdict: 'longer',
      faults: [
        { status: 500, match: 'FAILME' },
        { status: 503, match: 'FLAKY', times: 1 },
      ],
    });
    const todo = items(8, (i) => (i === 2 ? ' FAILME' : i === 5 ? ' FLAKY' : ''));
    const errors: string[] = [];
    const run = await playGames(
      todo,
      options(judge, { onProgress: (p) => p.last && 'error' in p.last && errors.push(p.last.error) }),
    );
    expect(run).toMatchObject({ played: 7, failed: 1, status: 'failed' });
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toMatch(/HTTP 500/);
    expect(errors).toEqual(run.errors);
    expect(rows('SELECT id FROM games WHERE id = ?', 'game-2')).toEqual([]);
    expect(
      rows<{ id: string }>('SELECT id FROM games')
        .map((g) => g.id)
        .sort(),
    ).toEqual(
      todo
        .filter((g) => g.id !== 'game-2')
        .map((g) => g.id)
        .sort(),
    );
    const attempts = rows<{ game_id: string; run_id: string; judge: string; error: string }>(
      'SELECT game_id, run_id, judge, error FROM attempts ORDER BY at',
    );
    expect(attempts.filter((a) => a.game_id === 'game-2')).toHaveLength(3);
    expect(attempts.filter((a) => a.game_id === 'game-5')).toHaveLength(1);
    expect(attempts).toHaveLength(4);
    for (const a of attempts) expect(a).toMatchObject({ run_id: run.id, judge: 'openai/judge' });
    expect(attempts.find((a) => a.game_id === 'game-5')!.error).toMatch(/HTTP 503/);
    // the failed game's lease is released: another run may take it at once
    expect(rows('SELECT * FROM leases')).toEqual([]);
    expect(rows('SELECT status, played, failed FROM runs')).toEqual([
      { status: 'failed', played: 7, failed: 1 },
    ]);
  });

  it('a reply that cannot be read is stored as the verdict `error` (a reply, not a failure)', async () => {
    const judge = await judgeAt({ verdict: 'unparsable' });
    const run = await playGames(items(4), options(judge));
    expect(run).toMatchObject({ played: 4, failed: 0, status: 'done' });
    expect(rows<{ verdict: string }>('SELECT verdict FROM games').map((g) => g.verdict)).toEqual([
      'error',
      'error',
      'error',
      'error',
    ]);
    expect(rows('SELECT * FROM attempts')).toEqual([]);
  });

  it('a call that throws outside any judge (a batch result line that failed) is an attempt too', async () => {
    const judge = await judgeAt({});
    const todo = items(3);
    const run = await playGames(todo, {
      ...options(judge),
      timed: false,
      source: 'batch',
      call: async ({ id }) => {
        if (id === 'game-1') throw new Error('[judge:openai-batch] rate limited (batch b1)');
        return { text: 'fine [[A]]', tokensIn: 10, tokensOut: 2 };
      },
    });
    expect(run).toMatchObject({ played: 2, failed: 1, tokensIn: 20, tokensOut: 4 });
    expect(rows('SELECT game_id, error FROM attempts')).toEqual([
      { game_id: 'game-1', error: '[judge:openai-batch] rate limited (batch b1)' },
    ]);
    expect(rows('SELECT id, latency_ms AS latency, source FROM games ORDER BY id')).toEqual([
      { id: 'game-0', latency: null, source: 'batch' },
      { id: 'game-2', latency: null, source: 'batch' },
    ]);
    expect(server!.completions()).toBe(0);
  });

  it('an abort stops it: no attempt for the calls it cut, the run `interrupted`, no lease left; a rerun plays the rest', async () => {
    const judge = await judgeAt({ verdict: 'longer', latencyMs: 150 });
    const todo = items(20);
    const ctl = new AbortController();
    const run = await playGames(
      todo,
      options(judge, {
        concurrency: 2,
        signal: ctl.signal,
        onProgress: (p) => p.done >= 3 && ctl.abort(new Error('interrupted')),
      }),
    );
    expect(run.status).toBe('interrupted');
    expect(run.played).toBeGreaterThanOrEqual(3);
    expect(run.played).toBeLessThan(20);
    expect(run.failed).toBe(0);
    expect(rows('SELECT * FROM attempts')).toEqual([]);
    expect(rows('SELECT * FROM leases')).toEqual([]);
    const stored = rows<{ id: string }>('SELECT id FROM games').map((g) => g.id);
    expect(stored).toHaveLength(run.played);
    expect(rows('SELECT status, played FROM runs')).toEqual([{ status: 'interrupted', played: run.played }]);
    const rest = todo.filter((g) => !stored.includes(g.id));
    const again = await playGames(rest, options(judge));
    expect(again).toMatchObject({ played: rest.length, status: 'done' });
    expect(rows('SELECT count(*) AS n FROM games')).toEqual([{ n: 20 }]);
  });

  it("counts a budget's refusals as skipped (status budget), and another run's stored games as elsewhere, not played", async () => {
    const judge = await judgeAt({ verdict: 'longer' });
    const todo = items(6);
    // another process stored game-0 after this run planned it
    const other = await playGames([todo[0]!], options(judge));
    expect(other.played).toBe(1);
    const settled: string[] = [];
    const run = await playGames(
      todo,
      options(judge, {
        budget: { reserve: (id) => id !== 'game-4', settle: (id) => void settled.push(id) },
        costOf: (tin, tout) => ((tin ?? 0) + (tout ?? 0)) / 1e6,
      }),
    );
    expect(run).toMatchObject({ played: 4, elsewhere: 1, skipped: 1, failed: 0, status: 'budget' });
    expect(settled.sort()).toEqual(['game-1', 'game-2', 'game-3', 'game-5']);
    expect(rows('SELECT id FROM games WHERE id = ?', 'game-4')).toEqual([]);
    expect(run.cost).toBeCloseTo((run.tokensIn + run.tokensOut) / 1e6, 12);
    expect(server!.completions()).toBe(5);
  });

  it("group commit: the store's games.insertMany says which games it stored; a game another run stored counts as elsewhere", async () => {
    const judge = await judgeAt({ verdict: 'longer' });
    const todo = items(5);
    // a game stored after this run leased it (another run whose lease had expired, say): the insert finds it there
    const twin: Game = {
      ...todo[3]!.spec,
      id: 'game-3',
      judge: 'openai/judge',
      judgeSettings: { temperature: 0, maxTokens: 2048 },
      reply: 'other [[B]]',
      verdict: 'model_2',
      parser: 'last@1',
      createdAt: 1,
      source: 'run',
    };
    const opts = options(judge);
    const call = opts.call;
    const run = await playGames(todo, {
      ...opts,
      call: async (item, c) => {
        if (item.id === 'game-3') expect(await store.games.insertMany([twin])).toEqual([true]);
        return call(item, c);
      },
    });
    expect(run).toMatchObject({ played: 4, elsewhere: 1, failed: 0, status: 'done' });
    expect(rows('SELECT reply FROM games WHERE id = ?', 'game-3')).toEqual([{ reply: 'other [[B]]' }]);
    expect(await store.games.insertMany([twin, { ...twin, id: 'game-new' }])).toEqual([false, true]);
  });

  it('leaves no record when there is nothing to play', async () => {
    const judge = await judgeAt({});
    const run = await playGames([], options(judge));
    expect(run).toMatchObject({ status: 'done', played: 0 });
    expect(rows('SELECT * FROM runs')).toEqual([]);
  });
});
