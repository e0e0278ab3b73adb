// `arena run` brings the stored reports up to date through its own open connection and never opens the file again
// (a second open found it busy with three runs ending together). Here a newer mt-arena records a migration while
// the run plays, which a second open refuses: the run stores its games and reports all the same.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arenaOk, OWN_QA, playOwn, runArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { until } from '../support/until.ts';
import { sqlRows } from '../support/stored-game.ts';

const MODELS = 'arena-sage,arena-echo,arena-swift';

describe('the reports after a run', () => {
  let srv: OpenAIServer;
  beforeAll(async () => {
    srv = await startOpenAIServer({ latencyMs: 100, verdict: 'longer' });
  });
  afterAll(async () => srv?.close());

  it('are refreshed through the run’s own connection, even when the file could not be opened again', async () => {
    const db = join(tmpDir('arena-run-reports-'), 'arena.db');
    // a database whose reports are stored (served or published), so that a run keeps them current
    await playOwn(db, 'mock/longer', MODELS, ['--turns', '1']);
    await arenaOk(['reports', '--rebuild', '--db', db]);
    const run = runArena(
      [
        'run',
        '--db',
        db,
        '--judge',
        'openai/judge',
        '--base-url',
        srv.url,
        '--models',
        MODELS,
        ...OWN_QA,
        '--turns',
        '1',
        '--concurrency',
        '8',
      ],
      { env: { OPENAI_API_KEY: 'sk-test' } },
    );
    const judged = () =>
      sqlRows<{ n: number }>(db, "select count(*) as n from games where judge = 'openai/judge'")[0]!.n;
    await until(() => judged() > 0, 'the run to store a game');
    // a newer mt-arena upgrades the file meanwhile: opening it again now refuses it (a schema it does not know)
    const w = new Database(db, { fileMustExist: true });
    w.pragma('busy_timeout = 10000');
    w.prepare('insert into __drizzle_migrations (hash, created_at) values (?, ?)').run(
      'f'.repeat(64),
      Date.now() + 86_400_000,
    );
    w.close();
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/reports: not updated/);
    expect(r.stderr).toMatch(/reports: [1-9]\d* recomputed/);
    // the new judge's leaderboards are stored, built after its games
    const lastGame = sqlRows<{ t: number }>(
      db,
      "select max(created_at) as t from games where judge = 'openai/judge'",
    )[0]!.t;
    const boards = sqlRows<{ params: string; built_at: number }>(
      db,
      "select params, built_at from reports where view = 'leaderboard' and params like '%openai/judge%'",
    );
    expect(boards.length).toBeGreaterThan(0);
    for (const b of boards) expect(b.built_at).toBeGreaterThanOrEqual(lastGame);
    expect(judged()).toBe(
      sqlRows<{ n: number }>(db, "select count(*) as n from games where judge = 'mock/longer'")[0]!.n,
    );
  }, 180_000);
});
