// A SIGKILLed run, found dead (heartbeat older than a lease), shows as interrupted with its stored games' counts
// and cost, in `arena runs` at once and in the stored record once reaped. Figures summed from the games.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newRun, reapDeadRuns, runRecord } from '../../src/engine/play/index.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { arenaJson, tmpDir } from '../support/cli.ts';
import { ledgerGame as game } from '../support/stored-game.ts';

const dir = tmpDir('arena-ledger-dead-');
let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

describe('a run found dead', () => {
  it('shows interrupted at once with the counts and cost of its stored games; reaped, its record says the same', async () => {
    const db = join(dir, 'dead.db');
    store = openSqliteStore(db);
    const run = newRun({ judge: 'openai/judge', mode: 'pairwise-all', config: {}, planned: 10, toPlay: 10 });
    // its last progress write: 2 games; then 5 more stored before the SIGKILL, two minutes ago
    Object.assign(run, {
      played: 2,
      tokensIn: 201,
      tokensOut: 21,
      cost: 0.003,
      heartbeatAt: Date.now() - 120_000,
    });
    await store.runs.save(runRecord(run));
    const games = Array.from({ length: 7 }, (_, i) => game(i, run.id));
    await store.games.insertMany(games);
    const want = {
      played: 7,
      tokensIn: games.reduce((s, g) => s + g.tokensIn!, 0),
      tokensOut: games.reduce((s, g) => s + g.tokensOut!, 0),
    };
    const cost = games.reduce((s, g) => s + g.cost!, 0);
    await store.close();
    store = undefined;

    const [shown] = await arenaJson<{ status: string; played: number; cost: number }[]>([
      'runs',
      '--db',
      db,
      '--json',
    ]);
    expect(shown).toMatchObject({ status: 'interrupted', ...want });
    expect(shown!.cost).toBeCloseTo(cost, 12);

    store = openSqliteStore(db);
    expect(await reapDeadRuns(store)).toBe(1);
    const row = store.sqlite
      .prepare('select status, played, tokens_in tokensIn, tokens_out tokensOut, cost from runs')
      .get() as Record<string, unknown>;
    expect(row).toMatchObject({ status: 'interrupted', ...want });
    expect(row.cost).toBeCloseTo(cost, 12);
  });
});
