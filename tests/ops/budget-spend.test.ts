// `budget.maxUsd` reserves the bound (prompt + max_tokens) only for calls in flight, so cheap games all play and a
// cap below the cost stops at it. Spend is counted from the test server's token log at the config's price.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type RequestLogEntry } from '../support/openai-server.ts';
import { games, HAVE_MTBENCH, writeConfig } from './helpers.ts';

const MODELS = ['alpaca-13b', 'claude-v1', 'gpt-3.5-turbo'];
/**
 * USD per 1M tokens, chosen for the shape: a game here (about 1,000 prompt tokens, 25 out) costs about
 * $0.004, the 36 about $0.144; one call's upper bound (prompt + 2,048 max_tokens) about $0.045
 */
const PRICE = { input: 3.5, output: 20 };

interface Summary {
  cost: number;
  played: number;
  skipped: number;
  status: string;
}

/** What the server billed: every answered chat request at its own token counts. */
function billed(logFile: string): { calls: number; usd: number; each: number[] } {
  const each = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RequestLogEntry)
    .filter((e) => e.path === '/v1/chat/completions' && e.status === 200)
    .map((e) => (e.tokensIn! * PRICE.input + e.tokensOut! * PRICE.output) / 1e6);
  return { calls: each.length, usd: each.reduce((s, x) => s + x, 0), each };
}

async function refreshWithCap(maxUsd: number, judge: Record<string, unknown> = {}) {
  const dir = tmpDir('arena-budget-spend-');
  const logFile = join(dir, 'server.log');
  const srv = await startOpenAIServer({ latencyMs: 5, verdict: 'longer', logFile });
  try {
    // the shape: a first refresh (nothing stored, no estimate configured), 36 games, max_tokens 2048
    const cfg = writeConfig(dir, {
      url: srv.url,
      models: MODELS,
      judge: { price: PRICE, ...judge },
      extra: { budget: { maxUsd } },
    });
    const r = await runArena(['refresh', '--config', cfg, '--json']);
    let s: Summary;
    try {
      s = JSON.parse(r.stdout) as Summary;
    } catch {
      throw new Error(`no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
    }
    return { code: r.code, s, server: billed(logFile), db: join(dir, 'arena.db') };
  } finally {
    await srv.close();
  }
}

describe.skipIf(!HAVE_MTBENCH)('a budget that spends what it may', () => {
  it('a first refresh under a cap above the real cost plays every game (max_tokens is reserved only in flight)', async () => {
    const { code, s, server, db } = await refreshWithCap(0.2);
    expect(s.status).toBe('ok');
    expect(code).toBe(0);
    expect(s.played).toBe(36);
    expect(s.skipped).toBe(0);
    expect(games(db)).toHaveLength(36);
    expect(server.calls).toBe(36);
    // the shape of the case: all 36 games cost well under the cap, one game's upper bound is far more
    expect(server.usd).toBeLessThan(0.2);
    expect(server.usd).toBeGreaterThan(0.12);
    expect(s.cost).toBeCloseTo(server.usd, 10);
  });

  it('a cap below the real cost stops at the cap, never past it, and leaves less than one upper bound unspent', async () => {
    const cap = 0.1;
    const { code, s, server } = await refreshWithCap(cap, { concurrency: 8 });
    expect(code).toBe(4);
    expect(s.status).toBe('budget');
    expect(s.played + s.skipped).toBe(36);
    expect(server.calls).toBe(s.played);
    // never past the cap, by the server's own counts
    expect(server.usd).toBeLessThanOrEqual(cap);
    // it stopped only when the next call could cross the cap: what is left is under one call's upper bound
    // (a prompt of these games is at most ~1,200 tokens, with the margin: $0.0053, plus 2,048 tokens out: $0.041)
    expect(cap - server.usd).toBeLessThan((1500 * PRICE.input + 2048 * PRICE.output) / 1e6);
    // and it spent what it could, not a handful of games
    expect(s.played).toBeGreaterThan(10);
  });
});
