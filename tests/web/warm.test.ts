// The Node site's warm-up before it listens (src/web/warm.ts, createApp's `warm`): every kind of page is asked of a
// throwaway app that only reads the stored reports, so a restart's first visitor finds the pages' code compiled;
// the site itself reads, computes and caches no report and no page then. Real SQLite files, the real `arena`
// commands in this process, the offline mock judges on the project's own questions.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import type { ReportKey } from '../../src/storage/report-store.ts';
import { createApp } from '../../src/web/app.ts';
import { arenaOk, playOwn, tmpDir } from '../support/cli.ts';

const AUTH = { headers: { Authorization: 'Bearer t' } };

/** A store over `db` whose reports.get records the views asked for. */
function recording(db: string) {
  const store = openSqliteStore(db, { readonly: true });
  const get = store.reports.get.bind(store.reports);
  const views: string[] = [];
  store.reports.get = (keys: ReportKey[]) => (views.push(...keys.map((k) => k.view)), get(keys));
  return { store, views };
}

describe('the warm-up before listening', () => {
  let dir: string;
  let db: string;
  beforeAll(async () => {
    dir = tmpDir('arena-warm-');
    db = join(dir, 'site.db');
    await playOwn(db, 'mock/longer', 'arena-sage,arena-echo', ['--turns', '1']);
  }, 120_000);

  it('reads the stored reports of every kind of page, and the site reads, computes and caches none of them', async () => {
    await arenaOk(['reports', '--rebuild', '--db', db]);
    const { store, views } = recording(db);
    try {
      const app = createApp({ store, reports: 'serve', adminToken: 't' });
      await app.warm();
      // the leaderboard, the judges' pages, the win matrix, a model page, health and style: each read once at least
      for (const view of [
        'leaderboard',
        'judgeBoard',
        'agreement',
        'matrix',
        'model',
        'health',
        'style',
        'variants',
      ])
        expect(views, view).toContain(view);
      const counts = async () =>
        (await (await app.request('/api/admin/reports', AUTH)).json()) as Record<string, number>;
      expect(await counts()).toMatchObject({ computed: 0, read: 0, stale: 0, missing: 0 });
      // the first visit reads its page's reports then (nothing was cached for it)
      views.length = 0;
      const home = await app.request('/', { headers: { 'Accept-Encoding': 'gzip' } });
      expect(home.status).toBe(200);
      expect(views).toContain('leaderboard');
      expect((await counts()).read).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('computes no report where none is stored (the site listens at once and says its pages are being updated)', async () => {
    const bare = join(dir, 'bare.db');
    copyFileSync(db, bare);
    // a database whose reports were never built (as an older one served after an upgrade)
    const w = openSqliteStore(bare);
    w.sqlite.exec('DELETE FROM reports');
    await w.close();
    const { store, views } = recording(bare);
    try {
      const app = createApp({ store, reports: 'serve', adminToken: 't' });
      await app.warm();
      expect(views).toContain('leaderboard');
      expect(await (await app.request('/api/admin/reports', AUTH)).json()).toMatchObject({ computed: 0 });
    } finally {
      await store.close();
    }
  }, 120_000);
});
