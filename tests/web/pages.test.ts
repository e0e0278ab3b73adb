// Pages rendered on the write path (src/web/pages.ts): a write stores every page the home page links to, and an app
// made with `pages` answers from those rows, byte for byte the live render, only while data, build and options hold.
// In process over the site's test database (the Worker's run: tests/web/ops-pages.test.ts).
import Database from 'better-sqlite3';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { storePages, updateReports, workerPages } from '../../src/cli/reports.ts';
import { wranglerVars } from '../../src/entry/wrangler.ts';
import { encodeReport, REPORT_VERSION, STATE } from '../../src/reports/site/stored.ts';
import type { SqliteStore } from '../../src/storage/sqlite.ts';
import { createApp, type AppOptions } from '../../src/web/app.ts';
import { linkedPages, pageKey, pageParams, renderPages } from '../../src/web/pages.ts';
import { BUILD } from '../../src/web/views.gen.ts';
import { arenaOk, tmpDir } from '../support/cli.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { nodeSite } from '../../src/entry/node.ts';
import { buildFixture } from './fixture.ts';
import { undoMigrationsFrom } from '../support/migrations.ts';

let store: SqliteStore;
let rendered = 0;
/** the pages `/` links to, as the write path picks them */
let pages: string[] = [];

const ADMIN = 'pages-test-token';
const appOf = (o: Partial<AppOptions> = {}) => createApp({ store, reports: 'read', adminToken: ADMIN, ...o });
const get = (app: ReturnType<typeof appOf>, path: string, init?: RequestInit) =>
  app.fetch(new Request(`http://site.test${path}`, init));
const headersOf = (r: Response) => {
  const h: [string, string][] = [];
  r.headers.forEach((v, k) => h.push([k, v]));
  return h.sort(([a], [b]) => (a < b ? -1 : 1));
};
/** what the app's stored reports did: `pages` answered from their rows, reports `read` */
const counts = async (app: ReturnType<typeof appOf>) =>
  (await (
    await get(app, '/api/admin/reports', { headers: { Authorization: `Bearer ${ADMIN}` } })
  ).json()) as {
    pages: number;
    read: number;
  };
const pageRows = () =>
  store.sqlite.prepare('SELECT key, state FROM pages ORDER BY key').all() as { key: string; state: string }[];

beforeAll(async () => {
  // the run's fixture with its reports built (shared with tests/web/worker.test.ts): this update finds them current
  ({ store } = await buildFixture(tmpDir('arena-pages-'), { reports: true }));
  await updateReports(store, { log: () => {} });
  rendered = await storePages(store);
  pages = linkedPages(await (await get(appOf(), '/')).text());
}, 300_000);

describe('pages rendered on the write path', () => {
  it('stores every page the home page links to, each keyed by the canonical URL it names', async () => {
    expect(pages).toEqual(expect.arrayContaining(['/', '/judges', '/matrix', '/health', '/style']));
    expect(pages.some((p) => p.startsWith('/models/') && p.includes('?judge='))).toBe(true);
    expect(rendered).toBe(pages.length);
    const [state] = await store.reports.get([STATE]);
    const rows = pageRows();
    expect(
      rows
        .map((r) => JSON.parse(r.key) as string[])
        .map((p) => p[3])
        .sort(),
    ).toEqual(pages.map(pageKey).sort());
    // tied to the build, the options and the published state
    for (const r of rows) {
      expect(JSON.parse(r.key)).toEqual([BUILD, 'bootstrap', '', expect.any(String)]);
      expect(r.state).toBe(state!.body);
    }
  });

  it('answers each of them byte for byte as the page renders live (body and every header), reading no report', async () => {
    const pre = appOf({ pages: true });
    const live = appOf();
    for (const p of pages) {
      const [a, b] = [await get(pre, p), await get(live, p)];
      expect([a.status, headersOf(a)], p).toEqual([200, headersOf(b)]);
      expect(await a.text(), p).toBe(await b.text());
    }
    expect(await counts(pre)).toMatchObject({ pages: pages.length, read: 0, computed: 0 });
  });

  it("reads the row of a page in one read a request; a shared link reads the canonical page's row", async () => {
    const reads: string[] = [];
    const counting = Object.create(store) as SqliteStore;
    const pagesOf = Object.create(store.pages) as SqliteStore['pages'];
    pagesOf.current = (key) => (reads.push(key), store.pages.current(key));
    Object.defineProperty(counting, 'pages', { value: pagesOf });
    const app = createApp({ store: counting, reports: 'read', pages: true });
    const first = await (await get(app, '/')).text();
    for (const p of ['/', '/?utm_source=x', '/?sort=win&dir=desc', '/?sort=win&dir=desc'])
      expect((await get(app, p)).status, p).toBe(200);
    expect(await (await get(app, '/')).text()).toBe(first);
    const home = pageParams({}, '/');
    const sorted = pageParams({}, '/?sort=win&dir=desc');
    expect(reads).toEqual([home, home, home, sorted, sorted, home]);
  });

  it('HEAD and If-None-Match go through the same handling as a live page', async () => {
    const pre = appOf({ pages: true });
    const live = appOf();
    const [a, b] = [
      await get(pre, '/judges', { method: 'HEAD' }),
      await get(live, '/judges', { method: 'HEAD' }),
    ];
    expect([a.status, headersOf(a), await a.text()]).toEqual([200, headersOf(b), '']);
    const etag = a.headers.get('etag')!;
    const c = await get(pre, '/judges', { headers: { 'If-None-Match': etag } });
    const d = await get(live, '/judges', { headers: { 'If-None-Match': etag } });
    expect([c.status, headersOf(c)]).toEqual([304, headersOf(d)]);
    expect((await counts(pre)).pages).toBe(2);
  });

  it('a shared link with tracking parameters gets the stored canonical page; a query it cannot match renders live', async () => {
    const pre = appOf({ pages: true });
    const home = await (await get(appOf(), '/')).text();
    const shared = await get(pre, '/?utm_source=x&fbclid=y&ref=z');
    expect(shared.status).toBe(200);
    expect(await shared.text()).toBe(home);
    expect((await counts(pre)).pages).toBe(1);
    // a parameter given twice, a default spelled out, a filter: each renders live (and answers as it did)
    const model = pages.find((p) => p.startsWith('/models/'))!;
    for (const p of [`${model}&judge=${model.split('judge=')[1]}`, '/?turn=both', '/matrix?turn=1'])
      await get(pre, p);
    expect((await counts(pre)).pages).toBe(1);
  });

  it('is never used for other options, another build or other data, and a new render replaces every row', async () => {
    for (const o of [
      { siteUrl: 'https://arena.example' },
      { intervals: 'sandwich' as const },
      {
        annotate: {
          secret: 'pages-test-secret-0123456789-abcdefXYZ',
          queue: 'review' as const,
          address: () => '1',
        },
      },
    ]) {
      const app = appOf({ pages: true, ...o });
      await get(app, '/judges');
      expect((await counts(app)).pages, JSON.stringify(Object.keys(o))).toBe(0);
    }
    // another build: the same rows under another build id
    const sqlite = store.sqlite;
    const swap = sqlite.prepare('UPDATE pages SET key = replace(key, ?, ?)');
    swap.run(BUILD, 'another-build');
    const otherBuild = appOf({ pages: true });
    await get(otherBuild, '/judges');
    expect((await counts(otherBuild)).pages).toBe(0);
    swap.run('another-build', BUILD);
    // other data: the published state changed (reports rebuilt, pages not rendered again)
    const [state] = await store.reports.get([STATE]);
    const changed = { ...state!, body: encodeReport({ judges: {}, tables: {} }), version: REPORT_VERSION };
    await store.reports.put([changed]);
    const otherData = appOf({ pages: true });
    await get(otherData, '/judges');
    expect((await counts(otherData)).pages).toBe(0);
    // a new render drops what was stored before (a row of a page no longer linked included)
    sqlite.prepare('INSERT INTO pages VALUES (?, ?, ?, 0)').run('["gone"]', changed.body, changed.body);
    const n = await storePages(store);
    expect(n).toBeGreaterThan(0);
    expect(pageRows().map((r) => [r.key === '["gone"]', r.state])).toEqual(
      Array.from({ length: n }, () => [false, changed.body]),
    );
    // none before the reports are built, and the old ones are gone
    await store.reports.remove([STATE]);
    expect(await storePages(store)).toBe(0);
    expect(pageRows()).toEqual([]);
    await store.reports.put([state!]);
    // a Worker with its own address gets its own set beside `arena serve`'s; one with /annotate on none
    expect(await storePages(store, { siteUrl: 'https://arena.example', annotate: true })).toBe(pages.length);
    expect(await storePages(store, { siteUrl: 'https://arena.example' })).toBe(2 * pages.length);
    expect(await storePages(store)).toBe(pages.length);
  });

  it('a database from before the pages table gets its stored pages moved there by the migration, served as before', async () => {
    const db = join(tmpDir('arena-pages-migrate-'), 'old.db');
    await store.sqlite.backup(db);
    const want = await store.pages.list();
    expect(want.length).toBeGreaterThan(0);
    // back to the schema before 0015_pages: the pages as rows of the reports table (view `_page`)
    const old = new Database(db);
    old.exec("INSERT INTO reports SELECT '_page', key, state, 1, body, built_at, 0 FROM pages");
    undoMigrationsFrom(old, '0015_pages');
    old.close();
    const s = openSqliteStore(db);
    try {
      expect(await s.pages.list()).toEqual(want);
      expect((await s.reports.index()).filter((r) => r.view === '_page')).toEqual([]);
      const app = createApp({ store: s, reports: 'read', adminToken: ADMIN, pages: true });
      expect((await get(app, '/judges')).status).toBe(200);
      expect((await counts(app)).pages).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('leaves to live rendering a page that a tracking parameter changes (a strict query check) or that names another canonical URL', async () => {
    const app = new Hono();
    const html = (canonical: string, links = '') =>
      `<link rel="canonical" href="${canonical}">${links}<p>page</p>`;
    app.get('/', (c) =>
      c.html(html('/', '<a href="/strict">s</a><a href="/loose">l</a><a href="/elsewhere">e</a>')),
    );
    app.get('/strict', (c) =>
      Object.keys(c.req.queries()).length ? c.text('unknown query parameter', 400) : c.html(html('/strict')),
    );
    app.get('/loose', (c) => c.html(html('/loose')));
    app.get('/elsewhere', (c) => c.html(html('/loose')));
    const rows = await renderPages(app.fetch, {}, 'state');
    expect(rows.map((r) => (JSON.parse(r.key) as string[])[3])).toEqual(['/', '/loose']);
  });

  it("publish takes the Worker's options from wrangler.toml's [vars]; a bad value names the file and the var", () => {
    const dir = tmpDir('arena-vars-');
    expect(wranglerVars(dir)).toEqual({});
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'wrangler.toml'),
      'name = "x"\n[vars]\nSITE_URL = "https://arena.example" # the public address\nANNOTATE = \'off\'\n[define]\nINTERVALS = "nope"\n',
    );
    const vars = wranglerVars(dir);
    expect(vars).toEqual({ SITE_URL: 'https://arena.example', ANNOTATE: 'off' });
    expect(workerPages(vars)).toEqual({ siteUrl: 'https://arena.example', annotate: false });
    expect(workerPages({ ANNOTATE: 'on', INTERVALS: 'sandwich' })).toEqual({
      intervals: 'sandwich',
      annotate: true,
    });
    expect(() => workerPages({ INTERVALS: 'nope' })).toThrow(/wrangler\.toml \[vars\]: INTERVALS .*"nope"/);
  });

  it('an import into a new database builds the reports and the pages: the first visit of `arena serve` computes nothing', async () => {
    const db = join(tmpDir('arena-pages-import-'), 'site.db');
    await arenaOk(['import', 'questions', 'questions/arena.jsonl', '--db', db]);
    await arenaOk(['import', 'answers', 'questions/answers/arena-sage.jsonl', '--db', db]);
    const s = openSqliteStore(db, { readonly: true });
    try {
      const site = nodeSite({ store: s, adminToken: ADMIN });
      const r = await site.fetch(new Request('http://site.test/'));
      expect(r.status).toBe(200);
      const c = (await (
        await site.fetch(
          new Request('http://site.test/api/admin/reports', {
            headers: { Authorization: `Bearer ${ADMIN}` },
          }),
        )
      ).json()) as { pages: number; computed: number };
      expect(c).toMatchObject({ pages: 1, computed: 0 });
    } finally {
      await s.close();
    }
  }, 120_000);
});
