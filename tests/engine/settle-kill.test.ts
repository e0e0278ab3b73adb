// `arena run --until-settled` SIGKILLed mid-round: the rerun settles without asking for any game already stored,
// and a full run then asks only for the games the settled runs skipped.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OWN, runArena, spawnArena, spawnEveryRun, tmpDir } from '../support/cli.ts';
import { promptHash, startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';

spawnEveryRun();

const dir = tmpDir('arena-settle-kill-');
let srv: OpenAIServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

// The first run creates the file before its schema: until the games table exists, it has stored no game.
const games = (db: string): { s: string; u: string }[] => {
  if (!existsSync(db)) return [];
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const table = d.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'games'").get();
    if (!table) return [];
    return d.prepare('SELECT system_prompt AS s, user_prompt AS u FROM games').all() as {
      s: string;
      u: string;
    }[];
  } finally {
    d.close();
  }
};
const chats = (s: OpenAIServer) => s.log.filter((e) => e.path === '/v1/chat/completions');

describe('arena run --until-settled after SIGKILL', { timeout: 240_000 }, () => {
  it('resumes without paying for a stored game; the full run then pays exactly the skipped games', async () => {
    srv = await startOpenAIServer({ verdict: 'longer', latencyMs: 60 });
    const db = join(dir, 'a.db');
    const base = [
      'run',
      '--db',
      db,
      '--judge',
      'openai/judge',
      '--base-url',
      srv.url,
      '--models',
      'arena-drift,arena-echo,arena-sage,arena-swift',
      ...OWN,
      '--concurrency',
      '4',
    ];
    const settled = [...base, '--until-settled', '--round', '20'];
    const first = spawnArena(settled);
    const t0 = Date.now();
    // past the first round's 40 games: killed in the second round
    while (games(db).length < 50) {
      if (Date.now() - t0 > 120_000) throw new Error(`the first run stored ${games(db).length} games`);
      await new Promise((r) => setTimeout(r, 25));
    }
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    const storedByFirst = new Set(games(db).map((g) => promptHash(g.s, g.u)));
    const before = chats(srv).length;

    const second = await runArena(settled);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^settled/m);
    const secondCalls = chats(srv).slice(before);
    expect(secondCalls.filter((e) => storedByFirst.has(e.hash!))).toEqual([]);
    const stored = games(db).length;
    expect(stored).toBe(storedByFirst.size + secondCalls.length);
    expect(stored).toBeLessThan(576);

    const beforeFull = chats(srv).length;
    const full = await runArena(base);
    expect(full.code, full.stderr).toBe(0);
    const fullCalls = chats(srv).slice(beforeFull);
    expect(fullCalls).toHaveLength(576 - stored);
    const settledHashes = new Set(games(db).map((g) => promptHash(g.s, g.u)));
    expect(settledHashes.size).toBe(576);
    expect(new Set(fullCalls.map((e) => e.hash)).size).toBe(576 - stored);
  });
});
