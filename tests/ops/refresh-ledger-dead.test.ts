// A refresh killed with SIGKILL shows as interrupted once found dead, with the games, tokens and cost its runs
// stored; the next refresh marks it so. Expected figures are summed from the games themselves.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newRun, runRecord } from '../../src/engine/play/index.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { arenaJson, tmpDir } from '../support/cli.ts';
import { ledgerGame as game } from '../support/stored-game.ts';

const dir = tmpDir('arena-refresh-dead-');
let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe('a refresh found dead', () => {
  it('shows interrupted at once with the games, tokens and cost its runs stored; marked, its record says the same', async () => {
    const db = join(dir, 'dead.db');
    store = openSqliteStore(db);
    const started = Date.now() - 180_000;
    await store.refreshes.save({
      id: 'killed',
      startedAt: started,
      finishedAt: null,
      status: 'running',
      config: { file: 'refresh.json', config: {} },
      summary: { estCost: 1 },
      degraded: null,
      cost: 0,
      heartbeatAt: Date.now() - 120_000,
    });
    // two runs of the refresh (a mode and its canary), and one run of nobody's refresh
    const runs = [{ refresh: 'killed' }, { refresh: 'killed' }, {}].map((config) =>
      newRun({ judge: 'openai/judge', mode: 'pairwise-all', config, planned: 10, toPlay: 10 }),
    );
    for (const r of runs) await store.runs.save(runRecord(r));
    const games = Array.from({ length: 9 }, (_, i) => game(i, runs[i % 3]!.id));
    await store.games.insertMany(games);
    const mine = games.filter((g) => g.runId !== runs[2]!.id);
    const want = {
      played: mine.length,
      tokensIn: mine.reduce((s, g) => s + g.tokensIn!, 0),
      tokensOut: mine.reduce((s, g) => s + g.tokensOut!, 0),
    };
    const cost = mine.reduce((s, g) => s + g.cost!, 0);
    await store.close();
    store = undefined;

    const [shown] = await arenaJson<{ status: string; played: number; cost: number }[]>([
      'refreshes',
      '--db',
      db,
    ]);
    expect(shown).toMatchObject({ status: 'interrupted', played: want.played });
    expect(shown!.cost).toBeCloseTo(cost, 12);

    store = openSqliteStore(db);
    expect(await store.refreshes.markInterrupted()).toBe(1);
    const row = store.sqlite.prepare('select status, cost, summary from refreshes').get() as Record<
      string,
      unknown
    >;
    expect(row.status).toBe('interrupted');
    expect(row.cost).toBeCloseTo(cost, 12);
    expect(JSON.parse(row.summary as string)).toEqual({ estCost: 1, ...want });
  });
});
