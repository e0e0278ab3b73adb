// `arena refresh` with `publish.d1` (entry/publish.ts publishToD1): the local D1 holds what the refresh stored, read
// back through the Store; wrangler's output goes to stderr, so `--json` stays one JSON document.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openD1Store } from '../../src/storage/d1.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { runArena, spawnEveryRun, tmpDir } from '../support/cli.ts';
import { openLocalD1 } from '../web/local-d1.ts';
import { localD1, WRANGLER_ENV } from '../web/support.ts';
import { HAVE_MTBENCH, writeConfig } from './helpers.ts';

// publish.d1 hands wrangler the process's own stderr as a file descriptor: these runs need a process of their own
spawnEveryRun();

Object.assign(process.env, WRANGLER_ENV);

describe.skipIf(!HAVE_MTBENCH)('arena refresh with publish.d1', () => {
  it('pushes the refreshed database to a local D1: games and the refresh record read back equal', async () => {
    const dir = tmpDir('arena-refresh-d1-');
    const persist = await localD1(dir);
    const cfg = writeConfig(dir, {
      url: 'http://127.0.0.1:9/v1',
      models: ['alpaca-13b', 'claude-v1'],
      judge: { id: 'mock/longer', price: { input: 10, output: 30 } },
      extra: { publish: { d1: { database: 'mt-arena', persistTo: 'wrangler' } } },
    });
    const r = await runArena(['refresh', '--config', cfg, '--json'], { timeoutMs: 300_000 });
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const summary = JSON.parse(r.stdout) as { played: number; published: string[]; status: string };
    expect(summary).toMatchObject({ status: 'ok', played: 12, published: ['d1:mt-arena (local)'] });
    expect(r.stderr).toMatch(/wrangler d1 execute mt-arena --local/);

    const local = openSqliteStore(join(dir, 'arena.db'), { readonly: true });
    const want = {
      games: await local.games.list(),
      refreshes: await local.refreshes.list(),
      runs: await local.runs.list(),
    };
    await local.close();
    const site = await openLocalD1(persist);
    try {
      const d1 = openD1Store(site.db);
      expect(await d1.games.list()).toEqual(want.games);
      expect(want.games).toHaveLength(12);
      // the refresh record as it was when published: its final status (the local one then adds where it was published)
      const [pub] = await d1.refreshes.list();
      expect([pub!.id, pub!.status, pub!.cost, pub!.config]).toEqual([
        want.refreshes[0]!.id,
        'ok',
        want.refreshes[0]!.cost,
        want.refreshes[0]!.config,
      ]);
      expect(pub!.summary).toMatchObject({ played: 12, published: [] });
      expect(want.refreshes[0]!.summary).toMatchObject({ played: 12, published: ['d1:mt-arena (local)'] });
      expect(await d1.runs.list()).toEqual(want.runs);
    } finally {
      await site.dispose();
    }
  }, 600_000);
});
