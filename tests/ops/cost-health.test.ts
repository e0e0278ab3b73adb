// Cost control (dry-run estimate, budget cap) and judge health (degraded mark, drift canary) of `arena refresh`.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type VerdictPolicy } from '../support/openai-server.ts';
import { chats, games, HAVE_MTBENCH, readDb, refreshes, writeConfig } from './helpers.ts';

const MODELS = ['alpaca-13b', 'claude-v1', 'gpt-3.5-turbo'];

async function withServer<T>(
  dir: string,
  verdict: VerdictPolicy,
  fn: (url: string, logFile: string) => Promise<T>,
): Promise<T> {
  const logFile = join(dir, 'server.log');
  const srv = await startOpenAIServer({ latencyMs: 5, verdict, logFile });
  try {
    return await fn(srv.url, logFile);
  } finally {
    await srv.close();
  }
}

interface Summary {
  estCost: number;
  cost: number;
  played: number;
  skipped: number;
  status: string;
  exitCode: number;
  plan: { toPlay: number; estCost: number; basis: string }[];
  drift: Record<string, { compared: number; changed: number; changeRate: number | null }>;
  degraded: string[];
}

async function refreshJson(
  cfg: string,
  ...flags: string[]
): Promise<{ code: number | null; s: Summary; stderr: string }> {
  const r = await runArena(['refresh', '--config', cfg, '--json', ...flags]);
  let s: Summary;
  try {
    s = JSON.parse(r.stdout) as Summary;
  } catch {
    throw new Error(`no JSON (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
  }
  return { code: r.code, s, stderr: r.stderr };
}

describe.skipIf(!HAVE_MTBENCH)('cost control', () => {
  it('dry run: prints the plan, changes nothing, and its estimate is within 5% of the actual cost', async () => {
    const dir = tmpDir('arena-est-');
    await withServer(dir, 'longer', async (url, log) => {
      // before any game is stored: chars/4 and a configured expected reply length (30 tokens)
      let cfg = writeConfig(dir, {
        url,
        models: MODELS,
        extra: { estimate: { charsPerToken: 4, outputTokens: 30 } },
      });
      const dry = await refreshJson(cfg, '--dry-run');
      expect(dry.code).toBe(0);
      expect(dry.s.plan[0]).toMatchObject({ toPlay: 36, basis: 'config' });
      expect(chats(log)).toHaveLength(0);
      expect(existsSync(join(dir, 'arena.db'))).toBe(false);
      const real = await refreshJson(cfg);
      expect(real.code, real.stderr).toBe(0);
      expect(Math.abs(dry.s.estCost - real.s.cost) / real.s.cost).toBeLessThan(0.05);

      // calibrated from the stored games: a new model's matches
      cfg = writeConfig(dir, { url, models: [...MODELS, 'llama-13b'] });
      const stored = games(join(dir, 'arena.db')).length;
      const dry2 = await refreshJson(cfg, '--dry-run');
      expect(games(join(dir, 'arena.db'))).toHaveLength(stored);
      expect(refreshes(join(dir, 'arena.db'))).toHaveLength(1);
      expect(dry2.s.plan[0]).toMatchObject({ toPlay: 36, basis: 'calibrated from 36 stored games' });
      const n = chats(log).length;
      const real2 = await refreshJson(cfg);
      expect(chats(log).length - n).toBe(36);
      expect(Math.abs(dry2.s.estCost - real2.s.cost) / real2.s.cost).toBeLessThan(0.05);
      // the plain-text dry run shows the plan table
      const txt = await runArena(['refresh', '--config', cfg, '--dry-run']);
      expect(txt.stdout).toMatch(/judge\s+mode\s+planned\s+stored\s+to play\s+est\. tokens in/);
      expect(txt.stdout).toMatch(
        /refresh dry run: 0 games to play, estimated \$0\.0000; nothing was changed/,
      );
    });
  });

  it('the budget cap stops before the next call could cross it and keeps what was judged; a rerun plays the rest', async () => {
    const dir = tmpDir('arena-budget-');
    await withServer(dir, 'longer', async (url, log) => {
      const est = (
        await refreshJson(
          writeConfig(dir, { url, models: MODELS, extra: { estimate: { outputTokens: 30 } } }),
          '--dry-run',
        )
      ).s.estCost;
      const cap = est * 0.4;
      const cfg = writeConfig(dir, {
        url,
        models: MODELS,
        extra: { estimate: { outputTokens: 30 }, budget: { maxUsd: cap } },
      });
      const r = await refreshJson(cfg);
      expect(r.code).toBe(4);
      expect(r.s.status).toBe('budget');
      const db = join(dir, 'arena.db');
      const stored = games(db);
      expect(stored.length).toBe(r.s.played);
      expect(stored.length).toBe(chats(log).length);
      expect(r.s.played + r.s.skipped).toBe(36);
      const spent = stored.reduce((s, g) => s + g.cost!, 0);
      expect(spent).toBeCloseTo(r.s.cost, 12);
      // the next night (a larger budget) plays exactly what is missing
      const more = writeConfig(dir, { url, models: MODELS, extra: { budget: { maxUsd: est * 10 } } });
      const r2 = await refreshJson(more);
      expect(r2.code, r2.stderr).toBe(0);
      expect(r2.s.played).toBe(36 - stored.length);
      expect(games(db)).toHaveLength(36);
      expect(chats(log)).toHaveLength(36);
      // never past the cap; stopped only when the next call could cross it: less than one call's upper bound
      // (its prompt with the 1.25 margin and all 2,048 max_tokens, at the config's $10 / $30 per 1M) unspent
      const bound = Math.max(
        ...games(db).map(
          (g) =>
            (Math.ceil(((g.system_prompt.length + g.user_prompt.length) / 4) * 1.25) * 10 + 2048 * 30) / 1e6,
        ),
      );
      expect(spent).toBeLessThanOrEqual(cap);
      expect(spent).toBeGreaterThanOrEqual(cap - bound);
    });
  });
});

describe.skipIf(!HAVE_MTBENCH)('judge health', () => {
  it('marks a refresh degraded (exit 3, stored) when the error rate jumps vs the last refresh', async () => {
    const dir = tmpDir('arena-degraded-');
    const db = join(dir, 'arena.db');
    await withServer(dir, 'longer', async (url) => {
      const r = await refreshJson(writeConfig(dir, { url, models: MODELS }));
      expect(r.code).toBe(0);
    });
    await withServer(dir, 'unparsable', async (url) => {
      const publish = {
        sqlite: 'site.db',
        command: ['sh', '-c', 'echo "$ARENA_REFRESH_ID $ARENA_DB" > published.txt'],
      };
      const r = await runArena([
        'refresh',
        '--config',
        writeConfig(dir, { url, models: [...MODELS, 'llama-13b'], extra: { publish } }),
      ]);
      expect(r.code).toBe(3);
      expect(r.stdout).toMatch(
        /DEGRADED.*degraded: openai\/judge: error rate 0\.0% -> 100\.0% \(bound \+10\.0%\)/,
      );
    });
    const rs = refreshes(db);
    expect(rs.map((x) => x.status)).toEqual(['ok', 'degraded']);
    expect(JSON.parse(rs[1]!.degraded!)).toEqual(['openai/judge: error rate 0.0% -> 100.0% (bound +10.0%)']);
    // published: the site's copy carries the degraded mark and every game; the hook ran with the refresh id
    const site = join(dir, 'site.db');
    expect(refreshes(site).map((x) => [x.id, x.status, x.degraded])).toEqual(
      rs.map((x) => [x.id, x.status, x.degraded]),
    );
    expect(games(site)).toHaveLength(72);
    expect(readFileSync(join(dir, 'published.txt'), 'utf8')).toBe(`${rs[1]!.id} ${db}\n`);
  });

  it('the drift canary re-judges its anchors every refresh, reports drift, and never moves the leaderboard', async () => {
    const dir = tmpDir('arena-canary-');
    const db = join(dir, 'arena.db');
    const canary = {
      models: ['alpaca-13b', 'claude-v1'],
      questionIds: [81, 82, 83, 84, 85],
      turns: [1],
      maxChangeRate: 0.2,
    };
    const standings = async () =>
      (await runArena(['standings', '--db', db, '--judge', 'openai/judge', '--json'])).stdout;
    let board = '';
    await withServer(dir, 'longer', async (url, log) => {
      const cfg = writeConfig(dir, { url, models: MODELS, extra: { canary } });
      const r1 = await refreshJson(cfg);
      expect(r1.code, r1.stderr).toBe(0);
      expect(chats(log)).toHaveLength(36 + 10);
      expect(r1.s.drift['openai/judge']).toMatchObject({ compared: 0, changeRate: null });
      board = await standings();
      // nothing new: only the 10 anchor games are judged again (a fresh nonce bypasses the content-address skip)
      const r2 = await refreshJson(cfg);
      expect(r2.code).toBe(0);
      expect(chats(log)).toHaveLength(36 + 20);
      expect(r2.s.drift['openai/judge']).toMatchObject({ compared: 10, changed: 0, changeRate: 0 });
    });
    // the judge behind the same name changes: it now always prefers the first answer shown
    await withServer(dir, 'a', async (url) => {
      const r3 = await refreshJson(writeConfig(dir, { url, models: MODELS, extra: { canary } }));
      expect(r3.code).toBe(3);
      expect(r3.s.drift['openai/judge']!.changeRate!).toBeGreaterThan(0.2);
      expect(r3.s.degraded.join('\n')).toMatch(
        /openai\/judge: drift: \d+ of 10 anchor games changed verdict/,
      );
    });
    expect(await standings()).toBe(board);
    expect(
      readDb(db, (d) => d.prepare("select count(*) n from games where source = 'canary'").get()),
    ).toEqual({ n: 30 });
  });
});
