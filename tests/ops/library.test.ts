// The ops jobs as library functions: `refresh` on an in-memory Store, judges opened by the caller, the config parsed;
// every judge the job opened is closed and the records read back through the Store.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JudgeProvider } from '../../src/judges/judge.ts';
import { createJudge } from '../../src/judges/registry.ts';
import { loadRefreshConfig, type JudgeConfig } from '../../src/ops/config.ts';
import { refresh } from '../../src/ops/refresh/index.ts';
import { openMemoryStore } from '../../src/storage/sqlite.ts';
import { tmpDir } from '../support/cli.ts';
import { HAVE_MTBENCH, writeConfig } from './helpers.ts';

describe.skipIf(!HAVE_MTBENCH)('refresh as a library function ({ store, judges, config })', () => {
  const dir = tmpDir('arena-ops-lib-');
  const models = ['alpaca-13b', 'claude-v1', 'gpt-3.5-turbo'];
  /** the caller's judge opener: the offline mock judge, counting opens and closes */
  const opener = () => {
    const seen = { opened: [] as string[], closed: 0 };
    const judges = async (j: JudgeConfig): Promise<JudgeProvider> => {
      seen.opened.push(j.id);
      const p = await createJudge(j.id);
      return { ...p, id: p.id, complete: p.complete.bind(p), close: async () => void seen.closed++ };
    };
    return { judges, seen };
  };

  it('plays on an in-memory store, records the refresh and the ledger there, and closes every judge it opened', async () => {
    const file = writeConfig(dir, {
      url: 'http://127.0.0.1:9/v1',
      models,
      judge: { id: 'mock/longer', baseURL: undefined, price: { input: 10, output: 30 } },
    });
    const config = loadRefreshConfig(file);
    const store = openMemoryStore();
    try {
      const { judges, seen } = opener();
      const dry = await refresh({ store, judges, config, dryRun: true });
      // 6 questions x 1 turn x 3 pairs x 2 orders
      expect(dry.plan.map((p) => p.toPlay)).toEqual([36]);
      expect(await store.refreshes.list()).toEqual([]);
      const first = await refresh({ store, judges, config });
      expect([first.status, first.played, first.failed]).toEqual(['ok', 36, 0]);
      const [record] = await store.refreshes.list();
      expect(record).toMatchObject({ id: first.id, status: 'ok', degraded: null, config: { file } });
      // the summary comes back parsed, as it was written
      expect(record!.summary).toMatchObject({
        played: 36,
        line: first.line,
        judges: { 'mock/longer': { errorRate: 0 } },
      });
      expect((await store.ledger.byJudge()).map((c) => [c.judge, c.games])).toEqual([['mock/longer', 36]]);
      const again = await refresh({ store, judges, config });
      expect([again.status, again.played]).toEqual(['ok', 0]);
      expect(seen.opened).toEqual(['mock/longer', 'mock/longer', 'mock/longer']);
      expect(seen.closed).toBe(3);
    } finally {
      await store.close();
    }
  }, 300_000);

  it('a config that publishes a database copy, given no publisher, fails with a message and records the refresh as failed', async () => {
    const file = writeConfig(dir, {
      url: 'http://127.0.0.1:9/v1',
      models,
      name: 'publish.json',
      judge: { id: 'mock/longer', baseURL: undefined },
      extra: { publish: { sqlite: 'copy.db' } },
    });
    const store = openMemoryStore();
    try {
      const { judges } = opener();
      await expect(refresh({ store, judges, config: loadRefreshConfig(file) })).rejects.toThrow(
        /given no publisher/,
      );
      const [record] = await store.refreshes.list();
      expect(record!.status).toBe('failed');
      expect(record!.degraded![0]).toMatch(/^error: .*given no publisher/);
      expect(await store.games.list()).toHaveLength(36); // what was judged is kept
    } finally {
      await store.close();
    }
  }, 300_000);
});
