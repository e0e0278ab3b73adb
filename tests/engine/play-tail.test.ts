// Workers stay until the plan is exhausted, so a plan no longer than the concurrency plays in about one judge
// latency; the test server's request log (arrival times) witnesses the calls in flight.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GameSpec } from '../../src/core/types.ts';
import { parserFor, verdictOf } from '../../src/core/verdict/of-reply.ts';
import { newRun, playGames, type PlayItem, type PlayOptions } from '../../src/engine/play/index.ts';
import { openaiJudge } from '../../src/judges/openai.ts';
import { withRetry } from '../../src/judges/retry.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import type { Store } from '../../src/storage/store.ts';
import { tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer, type OpenAIServerOptions } from '../support/openai-server.ts';

const dir = tmpDir('arena-play-tail-test-');
let store: SqliteStore;
let server: OpenAIServer | undefined;
let n = 0;

beforeEach(() => {
  store = openSqliteStore(join(dir, `tail-${++n}.db`));
});
afterEach(async () => {
  await store.close();
  await server?.close();
  server = undefined;
});

function items(count: number): PlayItem[] {
  return Array.from({ length: count }, (_, i) => {
    const spec: GameSpec = {
      match: { questionId: i + 1, category: 'writing', turn: 1, model1: 'm1', model2: 'm2' },
      order: 'AB',
      promptName: 'pair-v2',
      systemPrompt: 'Please act as an impartial judge.',
      userPrompt: `[User Question]\nquestion ${i}\n\n[The Start of Assistant A's Answer]\n${'a'.repeat(i + 1)}\n[The End of Assistant A's Answer]\n\n[The Start of Assistant B's Answer]\nbbb\n[The End of Assistant B's Answer]`,
    };
    return { spec, id: `game-${i}` };
  });
}

async function options(
  o: OpenAIServerOptions,
  retry: { retries: number; timeoutMs: number },
  extra: Partial<PlayOptions> = {},
): Promise<PlayOptions> {
  server = await startOpenAIServer(o);
  const judge = withRetry(openaiJudge({ model: 'judge', baseURL: server.url }), { ...retry, baseDelayMs: 5 });
  return {
    store,
    run: newRun({ judge: judge.id, mode: 'pairwise-all', config: {}, planned: 0, toPlay: 0 }),
    settings: { temperature: 0, maxTokens: 2048 },
    call: ({ spec }, c) =>
      judge.complete({
        system: spec.systemPrompt,
        user: spec.userPrompt,
        temperature: 0,
        maxTokens: 2048,
        onRetry: c.onRetry,
        ...(c.signal ? { signal: c.signal } : {}),
      }),
    read: (spec, text) => verdictOf(spec, text, parserFor(undefined, 'last')),
    ...extra,
  };
}

const chats = () => server!.log.filter((e) => e.path === '/v1/chat/completions');

describe('playGames at the tail of a plan', () => {
  it('12 games at concurrency 12 against a 1 s judge: all 12 calls in flight at once, about 1 s in all', async () => {
    const latencyMs = 1000;
    const o = await options({ latencyMs }, { retries: 0, timeoutMs: 10_000 }, { concurrency: 12 });
    const t0 = performance.now();
    const run = await playGames(items(12), o);
    const wall = performance.now() - t0;
    expect(run).toMatchObject({ played: 12, failed: 0, status: 'done' });
    // every call arrived before the first could have been answered
    const at = chats().map((e) => e.at);
    expect(at).toHaveLength(12);
    expect(Math.max(...at) - Math.min(...at)).toBeLessThan(latencyMs);
    // one latency (and the overhead), far from the 12 latencies of a single worker
    expect(wall / latencyMs).toBeLessThan(3);
  });

  it('4 games against a hanging server take about one timeout, not four', async () => {
    const timeoutMs = 1000;
    const o = await options({ faults: [{ status: 'hang' }] }, { retries: 0, timeoutMs }, { concurrency: 4 });
    const t0 = performance.now();
    const run = await playGames(items(4), o);
    const wall = performance.now() - t0;
    expect(run).toMatchObject({ played: 0, failed: 4, status: 'failed' });
    expect(chats()).toHaveLength(4);
    expect(wall / timeoutMs).toBeLessThan(2.5);
  });

  it('a claim still waiting on the store when the others find the queue empty: its games are shared out', async () => {
    // the store answers the first claim late, so that every other worker reaches the empty queue first
    let first = true;
    const leases = new Proxy(store.leases, {
      get(target, key, recv) {
        if (key !== 'claim') return Reflect.get(target, key, recv) as unknown;
        return async (...args: Parameters<Store['leases']['claim']>) => {
          if (first) {
            first = false;
            await new Promise((r) => setTimeout(r, 200));
          }
          return target.claim(...args);
        };
      },
    });
    const slow: Store = new Proxy(store, {
      get: (target, key, recv) => (key === 'leases' ? leases : (Reflect.get(target, key, recv) as unknown)),
    });
    const latencyMs = 600;
    const o = await options(
      { latencyMs },
      { retries: 0, timeoutMs: 10_000 },
      { concurrency: 8, store: slow },
    );
    const run = await playGames(items(8), o);
    expect(run).toMatchObject({ played: 8, failed: 0, status: 'done' });
    const at = chats().map((e) => e.at);
    expect(Math.max(...at) - Math.min(...at)).toBeLessThan(latencyMs);
  });
});
