// `arena run --base-url URL1,URL2`: one judge served by two real servers on 127.0.0.1; the judge id and the game
// ids are those of a one-server run, and the run's config records which endpoint answered each game.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { arenaOk, OWN, tmpDir } from '../support/cli.ts';

const open: OpenAIServer[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

function gamesAndRuns(db: string) {
  const sqlite = new Database(db, { readonly: true });
  try {
    return {
      games: sqlite.prepare('select id, judge from games order by id').all() as {
        id: string;
        judge: string;
      }[],
      config: JSON.parse((sqlite.prepare('select config from runs').get() as { config: string }).config),
    };
  } finally {
    sqlite.close();
  }
}

describe('arena run over several endpoints', () => {
  it('plays the same games as one server, and records which endpoint answered each', async () => {
    const a = await startOpenAIServer({ rateLimit: { tpm: 1e7 }, latencyMs: 5 });
    const b = await startOpenAIServer({ rateLimit: { tpm: 1e7 }, latencyMs: 5 });
    open.push(a, b);
    const dir = tmpDir();
    const one = join(dir, 'one.db');
    const two = join(dir, 'two.db');
    const args = ['--judge', 'openai/judge', '--models', 'arena-sage,arena-swift', '--turn', '1', ...OWN];
    await arenaOk(['run', '--db', one, '--base-url', a.url, ...args]);
    await arenaOk(['run', '--db', two, '--base-url', `${a.url},${b.url}`, '--tpm', '100000', ...args]);
    const single = gamesAndRuns(one);
    const several = gamesAndRuns(two);
    expect(several.games).toEqual(single.games);
    expect(single.config.answeredBy).toBeUndefined();
    const by = several.config.answeredBy as Record<string, string[]>;
    expect(Object.keys(by).sort()).toEqual([a.url, b.url].sort());
    expect(Object.values(by).flat().sort()).toEqual(several.games.map((g) => g.id));
  });

  it('--dry-run prints the tokens a limit counts and the least time under the declared limit', async () => {
    const db = join(tmpDir(), 'dry.db');
    const base = ['run', '--db', db, '--judge', 'openai/judge', '--base-url', 'http://127.0.0.1:9/v1'];
    const args = ['--models', 'arena-sage,arena-swift', '--turn', '1', ...OWN, '--dry-run'];
    const out = await arenaOk([...base, '--tpm', '6000', ...args]);
    const m = out.match(
      /about (\d+) tokens .* under 6000 tokens\/min that takes at least (\d+(\.\d+)?) (s|min|h)/,
    );
    expect(m, out).not.toBeNull();
    const tokens = Number(m![1]);
    const mins = Number(m![2]) * { s: 1 / 60, min: 1, h: 60 }[m![4] as 's' | 'min' | 'h'];
    expect(mins).toBeCloseTo((tokens - 6000) / 6000, 0);
    expect(await arenaOk([...base, ...args])).toMatch(/no limit known/);
  });
});
