// The play loop when the Store refuses a write (SQLITE_FULL, on any machine; disk-full.test.ts uses a real small
// filesystem): no call after the refusal, paid replies spilled, the run failed with the reason, one ArenaError.
// The test server's request log counts the paid calls.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ArenaError, type Game, type GameSpec } from '../../src/core/types.ts';
import { parserFor, verdictOf } from '../../src/core/verdict/of-reply.ts';
import { newRun, playGames, type PlayItem } from '../../src/engine/play/index.ts';
import { openaiJudge } from '../../src/judges/openai.ts';
import { withRetry } from '../../src/judges/retry.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import type { RunRecord, Store } from '../../src/storage/store.ts';
import { tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';

const dir = tmpDir('arena-play-full-');
let store: SqliteStore | undefined;
let server: OpenAIServer | undefined;
afterEach(async () => {
  await store?.close();
  await server?.close();
});

function items(count: number): PlayItem[] {
  return Array.from({ length: count }, (_, i) => {
    const spec: GameSpec = {
      match: { questionId: i + 1, category: 'writing', turn: 1, model1: 'm1', model2: 'm2' },
      order: 'AB',
      promptName: 'pair-v2',
      systemPrompt: 'Please act as an impartial judge.',
      userPrompt: `[User Question]\nq${i}\n\n[The Start of Assistant A's Answer]\n${'a'.repeat(i + 1)}\n[The End of Assistant A's Answer]\n\n[The Start of Assistant B's Answer]\nbbb\n[The End of Assistant B's Answer]`,
    };
    return { spec, id: `game-${i}` };
  });
}

/** The store, except that game inserts fail as SQLite does on a full disk once `room` games are stored. */
function fillsUp(s: Store, room: number): Store {
  let stored = 0;
  const games = new Proxy(s.games, {
    get(target, key, recv) {
      if (key !== 'insertMany') return Reflect.get(target, key, recv) as unknown;
      return async (rows: Game[]) => {
        if (stored + rows.length > room)
          throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
        stored += rows.length;
        return target.insertMany(rows);
      };
    },
  });
  return new Proxy(s, {
    get: (target, key, recv) => (key === 'games' ? games : (Reflect.get(target, key, recv) as unknown)),
  });
}

type Judge = ReturnType<typeof withRetry>;

/** The 60 games played through `judge` into `s`, 4 at a time, the replies the database refuses going to `spill`. */
function play60(s: Store, judge: Judge, spill: NonNullable<Parameters<typeof playGames>[1]['spill']>) {
  const run = newRun({ judge: judge.id, mode: 'pairwise-all', config: {}, planned: 60, toPlay: 60 });
  return playGames(items(60), {
    store: s,
    run,
    settings: { temperature: 0, maxTokens: 64 },
    call: ({ spec }, c) =>
      judge.complete({
        system: spec.systemPrompt,
        user: spec.userPrompt,
        temperature: 0,
        maxTokens: 64,
        onRetry: c.onRetry,
      }),
    read: (spec, text) => verdictOf(spec, text, parserFor(undefined, 'last')),
    concurrency: 4,
    spill,
  });
}

/** What `p` rejected with: the one error a stopped run throws. */
async function stopped(p: Promise<unknown>): Promise<Error> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ArenaError);
  expect((err as Error).message).toMatch(/stopped: the database refused a write: database or disk is full/);
  return err as Error;
}

describe('playGames when the database refuses a write', () => {
  it('stops calling, spills the paid replies, marks the run failed, throws one ArenaError', async () => {
    store = openSqliteStore(join(dir, 'full.db'));
    server = await startOpenAIServer({ latencyMs: 20 });
    const judge = withRetry(openaiJudge({ model: 'judge', baseURL: server.url }), {
      retries: 0,
      timeoutMs: 5000,
    });
    const spilled: { games: Game[]; run: RunRecord }[] = [];
    const err = await stopped(
      play60(fillsUp(store, 10), judge, async (games, r) => {
        spilled.push({ games, run: r });
        return '/spill/file.jsonl';
      }),
    );
    expect(err.message).toContain('/spill/file.jsonl');
    const calls = server.log.filter((e) => e.path === '/v1/chat/completions').length;
    const stored = (store.sqlite.prepare('select count(*) n from games').get() as { n: number }).n;
    const kept = spilled.flatMap((s) => s.games);
    // every paid reply is stored or spilled, once; and the run stopped calling (at most the games in flight after)
    // games commit in groups (those finishing together), and a group that would pass the room is refused whole
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThanOrEqual(10);
    expect(stored + kept.length).toBe(calls);
    expect(new Set(kept.map((g) => g.id)).size).toBe(kept.length);
    expect(calls).toBeLessThanOrEqual(10 + 2 * 4);
    expect(spilled).toHaveLength(1);
    expect(spilled[0]!.run).toMatchObject({ status: 'failed', played: stored });
    expect(spilled[0]!.run.config.stoppedBy).toMatch(/database or disk is full/);
    // the attempts table holds no failure for a paid reply: a refused write is not a failed call
    expect(store.sqlite.prepare('select count(*) n from attempts').get()).toEqual({ n: 0 });
    expect(store.sqlite.prepare('select status from runs').get()).toEqual({ status: 'failed' });
  });

  it('a retried call whose attempt the database refuses stops the run the same way (no unhandled rejection)', async () => {
    store = openSqliteStore(join(dir, 'full-attempt.db'));
    // a third of the calls fail once or more: their retries put attempts on record, and the first of those writes
    // finds the disk full; from then on every write is refused
    server = await startOpenAIServer({
      latencyMs: 20,
      faults: [{ status: 500, probability: 0.35 }],
      seed: 3,
    });
    const judge = withRetry(openaiJudge({ model: 'judge', baseURL: server.url }), {
      retries: 5,
      baseDelayMs: 5,
      timeoutMs: 5000,
    });
    let full = false;
    const refuse = () => {
      full = true;
      throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    };
    const runs = new Proxy(store.runs, {
      get: (t, key, recv) =>
        key === 'recordAttempt' ? async () => refuse() : (Reflect.get(t, key, recv) as unknown),
    });
    const games = new Proxy(store.games, {
      get: (t, key, recv) =>
        key === 'insertMany'
          ? async (rows: Game[]) => (full ? refuse() : t.insertMany(rows))
          : (Reflect.get(t, key, recv) as unknown),
    });
    const s = store;
    const full$ = new Proxy(s, {
      get: (t, key, recv) =>
        key === 'runs' ? runs : key === 'games' ? games : (Reflect.get(t, key, recv) as unknown),
    });
    const spilled: Game[] = [];
    await stopped(play60(full$, judge, async (g) => (spilled.push(...g), '/spill/file.jsonl')));
    // every paid reply is stored or spilled, once; the run stopped well before the plan's end
    const paid = server.log.filter((e) => e.path === '/v1/chat/completions' && e.status === 200).length;
    const stored = (s.sqlite.prepare('select count(*) n from games').get() as { n: number }).n;
    expect(paid).toBeLessThan(60);
    expect(stored + spilled.length).toBe(paid);
    expect(new Set(spilled.map((g) => g.id)).size).toBe(spilled.length);
  });
});
