// A Batch API judge's budget spends as a run's does: each game holds its bound (prompt + max_tokens) from submission
// to import, games that do not fit wait. A cap above the cost plays all; one below stops at the cap, less than one
// bound unspent. Billed is the test server's count at the config's batch price, not ours.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runArena, tmpDir } from '../support/cli.ts';
import { judgeText, startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { games, HAVE_MTBENCH, writeConfig } from './helpers.ts';

const MODELS = ['alpaca-13b', 'claude-v1', 'gpt-3.5-turbo'];
/** the config's price; the Batch API bills half of it */
const PRICE = { input: 3.5, output: 20 };
const BATCH = { input: PRICE.input / 2, output: PRICE.output / 2 };
/** one game's upper bound at the batch price: a prompt of these games is at most ~1,200 tokens (+25%), 2,048 out */
const BOUND = (1500 * BATCH.input + 2048 * BATCH.output) / 1e6;

interface Summary {
  status: string;
  played: number;
  skipped: number;
  cost: number;
  batches: { submitted: number; imported: number; pending: number; skipped: number; waiting: number }[];
}

describe.skipIf(!HAVE_MTBENCH)('a batch judge under a budget', () => {
  // short judgments (the test server's own, ~25 tokens) and long ones (~1,500 tokens, far above the 183-token
  // estimate a first refresh makes): the estimate is no bound
  let short: OpenAIServer;
  let long: OpenAIServer;
  beforeAll(async () => {
    short = await startOpenAIServer({ verdict: 'longer', batch: {} });
    long = await startOpenAIServer({
      verdict: ({ system, user }) =>
        `${'Weighing both answers. '.repeat(260)}${judgeText(system, user, 'longer')}`,
      batch: {},
    });
  });
  afterAll(async () => {
    await short?.close();
    await long?.close();
  });

  /** What the server billed: every answered batch line at its own token counts, at the batch price. */
  const billed = (srv: OpenAIServer) => {
    const lines = srv.log.filter((e) => e.path === '/v1/batches#line');
    return {
      lines: lines.length,
      usd: lines.reduce((s, e) => s + (e.tokensIn! * BATCH.input + e.tokensOut! * BATCH.output) / 1e6, 0),
    };
  };

  async function refresh(srv: OpenAIServer, maxUsd: number) {
    const dir = tmpDir('arena-budget-batch-');
    const cfg = writeConfig(dir, {
      url: srv.url,
      models: MODELS,
      // a first refresh (nothing stored), 36 games, max_tokens 2048; it waits for its batches (they complete on
      // their first poll), submitting what the budget held back as they are imported
      judge: { price: PRICE, batch: true, batchWaitS: 120, batchPollS: 0.05 },
      extra: { budget: { maxUsd } },
    });
    const r = await runArena(['refresh', '--config', cfg, '--json']);
    let s: Summary;
    try {
      s = JSON.parse(r.stdout) as Summary;
    } catch {
      throw new Error(`no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
    }
    return { code: r.code, s, db: join(dir, 'arena.db') };
  }

  it('a cap the games fit under, though not all their bounds at once, plays every game, batch after batch', async () => {
    const before = billed(short);
    // 36 games cost about $0.065 at the batch price, their bounds about $0.8: the cap holds 4 bounds at a time
    const cap = 0.1;
    const { code, s, db } = await refresh(short, cap);
    const spent = { lines: billed(short).lines - before.lines, usd: billed(short).usd - before.usd };
    expect(s.status, JSON.stringify(s)).toBe('ok');
    expect(code).toBe(0);
    expect(games(db)).toHaveLength(36);
    expect(s.batches[0]).toMatchObject({ submitted: 36, imported: 36, pending: 0, skipped: 0, waiting: 0 });
    expect(spent.lines).toBe(36);
    expect(spent.usd).toBeLessThanOrEqual(cap);
    expect(36 * BOUND).toBeGreaterThan(5 * cap); // the shape: all the bounds at once are far over the cap
    expect(s.cost).toBeCloseTo(spent.usd, 10);
  }, 180_000);

  it('a cap below the real cost stops at the cap, never past it, with less than one bound unspent', async () => {
    const before = billed(long);
    // a game costs about $0.016 here, 36 about $0.59
    const cap = 0.2;
    const { code, s, db } = await refresh(long, cap);
    const spent = { lines: billed(long).lines - before.lines, usd: billed(long).usd - before.usd };
    expect(code).toBe(4);
    expect(s.status).toBe('budget');
    // never past the cap, by the server's own counts
    expect(spent.usd).toBeLessThanOrEqual(cap);
    // it stopped only when the next game's bound could cross the cap, and spent what it could
    expect(cap - spent.usd).toBeLessThan(BOUND);
    expect(spent.lines).toBe(s.played);
    expect(games(db)).toHaveLength(s.played);
    expect(s.played).toBeGreaterThan(5);
    expect(s.played + s.skipped).toBe(36);
  }, 180_000);
});
