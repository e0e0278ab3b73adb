// `arena refresh`'s cap against a judge sending no `usage` and one whose calls fail: unknown cost is charged its
// estimate, a failure its reservation, and the summary says how much is estimated. The server's log counts calls.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServerOptions } from '../support/openai-server.ts';
import { chats, games, HAVE_MTBENCH, refreshes, writeConfig } from './helpers.ts';

const MODELS = ['alpaca-13b', 'claude-v1', 'gpt-3.5-turbo'];

interface Summary {
  estCost: number;
  cost: number;
  costEstimated: number;
  played: number;
  failed: number;
  skipped: number;
  status: string;
  line: string;
}

async function refresh(cfg: string, ...flags: string[]): Promise<{ code: number | null; s: Summary }> {
  const r = await runArena(['refresh', '--config', cfg, '--json', ...flags]);
  try {
    return { code: r.code, s: JSON.parse(r.stdout) as Summary };
  } catch {
    throw new Error(`no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
}

async function capped(
  server: Omit<OpenAIServerOptions, 'logFile'>,
  share: number,
  call: Record<string, unknown> = {},
) {
  const dir = tmpDir('arena-budget-usage-');
  const logFile = join(dir, 'server.log');
  const srv = await startOpenAIServer({ latencyMs: 5, verdict: 'longer', ...server, logFile });
  try {
    const extra = { estimate: { outputTokens: 30 } };
    const judge = { retries: 0, ...call };
    const est = (await refresh(writeConfig(dir, { url: srv.url, models: MODELS, extra, judge }), '--dry-run'))
      .s.estCost;
    const cap = est * share;
    const cfg = writeConfig(dir, {
      url: srv.url,
      models: MODELS,
      judge,
      extra: { ...extra, budget: { maxUsd: cap } },
    });
    const r = await refresh(cfg);
    return { ...r, cap, est, calls: chats(logFile).length, db: join(dir, 'arena.db') };
  } finally {
    await srv.close();
  }
}

describe.skipIf(!HAVE_MTBENCH)('budget cap without usage', () => {
  it('replies without usage are charged at their estimate: the cap holds, and the cost is marked estimated', async () => {
    const { code, s, cap, est, calls, db } = await capped({ usage: false }, 0.4);
    expect(code).toBe(4);
    expect(s.status).toBe('budget');
    // about 40% of the 36 games, never all of them
    expect(s.played).toBeGreaterThan(0);
    expect(s.played + s.skipped).toBe(36);
    expect(s.played).toBeLessThanOrEqual(Math.ceil(36 * 0.4) + 1);
    expect(calls).toBe(s.played);
    // what was charged is the estimate, within the cap (each game's estimate is est / 36 on average)
    expect(s.cost).toBeGreaterThan(0);
    expect(s.cost).toBeLessThanOrEqual(cap + (est / 36) * 2);
    expect(s.costEstimated).toBeCloseTo(s.cost, 12);
    expect(s.line).toMatch(/spent, \$[\d.]+ of it estimated/);
    // the stored games have no cost of their own (unknown), the refresh's record says it was estimated
    expect(games(db).every((g) => g.cost === null && g.tokens_in === null)).toBe(true);
    const rec = refreshes(db).at(-1)!;
    expect(JSON.parse(rec.summary as string)).toMatchObject({ costEstimated: s.costEstimated });
  });

  it('failed calls count at their reservation: a judge that always fails stops at the cap', async () => {
    const { code, s, calls } = await capped({ faults: [{ status: 400 }] }, 0.25);
    expect(s.played).toBe(0);
    expect(s.failed).toBeGreaterThan(0);
    expect(s.failed).toBeLessThanOrEqual(Math.ceil(36 * 0.25) + 1);
    expect(s.failed + s.skipped).toBe(36);
    expect(calls).toBe(s.failed);
    expect(code).not.toBe(0);
  });

  it('timed-out calls count at their reservation: a judge that never answers stops at the cap', async () => {
    const { code, s, calls } = await capped({ faults: [{ status: 'hang' }] }, 0.25, { timeoutS: 1 });
    expect(s.played).toBe(0);
    expect(s.failed).toBeGreaterThan(0);
    expect(s.failed).toBeLessThanOrEqual(Math.ceil(36 * 0.25) + 1);
    expect(s.failed + s.skipped).toBe(36);
    expect(calls).toBe(s.failed);
    expect(s.costEstimated).toBeGreaterThan(0);
    expect(code).not.toBe(0);
  });
});
