// The route tests against the Worker under `wrangler dev` over a local D1 the migrations built and `arena publish`
// filled; and the Worker bundle stays free of Node-only code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inviteHash } from '../../src/core/annotate.ts';
import { HAVE_CHROMIUM, launchChromium } from '../support/chromium.ts';
import { runArena, tmpDir } from '../support/cli.ts';
import { voteWithKeyboard } from './annotate-flow.ts';
import { buildFixture } from './fixture.ts';
import { createApp } from '../../src/web/app.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { describeRoutes, type Target } from './routes.ts';
import { localD1, wrangler, wranglerDev } from './support.ts';

const INVITE = 'worker-invite-token-0123456789';
/** the token of the Worker's admin endpoints in these tests (what its stored reports did: /api/admin/reports) */
const ADMIN = 'worker-test-token';
/** the published database file, and the in-process site over it (SQLite) */
let file = '';

/**
 * `wrangler deploy --dry-run` into a folder, started with the file: it needs nothing the routes' setup builds, so
 * it bundles while that setup waits on its own processes (settled, so that a failure is reported by its test).
 */
const bundle = (async () => {
  const out = tmpDir('arena-bundle-');
  await wrangler(['deploy', '--dry-run', '--outdir', out]);
  return out;
})().then(
  (out) => ({ out }),
  (error: unknown) => ({ error }),
);

// one wrangler dev for the route tests, the stored reports and the annotate flow: /annotate on (ANNOTATE=on), which
// changes nothing the route tests see; the annotator is invited in the SQLite file that is published to D1
describeRoutes(
  'Worker under wrangler dev over local D1',
  async (): Promise<Target & { url: string; log: () => string }> => {
    const dir = tmpDir('arena-worker-');
    // the run's migrated D1 is built (or copied) while the site's database is; its reports are the run's (built
    // once, tests/web/fixture.ts), so the publish finds them current and computes none
    const [fx, persist] = await Promise.all([buildFixture(dir, { reports: true }), localD1(dir)]);
    file = fx.file;
    await fx.store.annotators.add('wendy', inviteHash(INVITE), Date.now());
    await fx.store.close();
    const pub = await runArena(['publish', '--db', file, '--persist-to', persist], { timeoutMs: 360_000 });
    expect(pub.code, pub.stderr).toBe(0);
    expect(pub.stdout).toMatch(/published .* to D1 mt-arena \(local\)/);
    const dev = await wranglerDev(persist, {
      ADMIN_TOKEN: ADMIN,
      ANNOTATE: 'on',
      ANNOTATE_SECRET: 'worker-test-secret-of-more-than-32-characters',
    });
    return {
      url: dev.url,
      log: () => dev.log(),
      request: (path, init) => fetch(dev.url + path, { ...init, redirect: 'manual' }),
      close: () => dev.stop(),
    };
  },
  (target) => {
    // wrangler dev's log so far: its start and the route tests' requests
    it("wrangler dev logs no error: not at the Worker's start (its app is made while the script starts), nor for the route tests", () => {
      expect(target().log()).not.toMatch(/ERROR|\[web\]/);
    });
    // first: the votes below change D1, and these compare D1 with the published SQLite file
    workerReports(target);
    it.skipIf(!HAVE_CHROMIUM)(
      '/annotate on D1: an invited annotator votes on ten matches with the keyboard; a replayed invite is refused; every page still answers, the votes counted as waiting for the next publish',
      async () => {
        const t = target();
        const browser = await launchChromium();
        try {
          const voted = await voteWithKeyboard(browser, `${t.url}/annotate/login?token=${INVITE}`, 10);
          expect(voted.problems).toEqual([]);
          // the progress line is read back from D1's annotations
          expect(voted.progress).toContain('10 voted · 0 skipped');
        } finally {
          await browser.close();
        }
        const replay = await t.request('/annotate/login', {
          method: 'POST',
          body: `token=${INVITE}`,
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: t.url },
        });
        expect(replay.status).toBe(403);
        expect(replay.headers.get('content-security-policy')).toContain("default-src 'none'");
        // `annotators` is a judge now, with no published report: the Worker lists the judges it has reports of,
        // so every page still answers, and /judges counts the votes that wait for the next publish
        for (const p of linked(await (await t.request('/')).text()))
          expect((await t.request(p)).status, p).toBe(200);
        const judges = await (await t.request('/judges')).text();
        expect(judges).toMatch(/ from 0 annotator votes; <strong>10 votes cast since<\/strong>/);
        const standings = await t.request('/api/standings?judge=annotators');
        expect(standings.status).toBe(404);
        expect(await standings.text()).toContain('its reports are built at the next `arena publish`');
      },
      120_000,
    );
  },
);

/** the site's own pages the home page links to, with their query */
const linked = (html: string) => [
  '/',
  ...new Set(
    [...html.matchAll(/href="(\/[^"]*)"/g)]
      .map((m) => m[1]!.replace(/&amp;/g, '&'))
      .filter((h) => !/^\/(static|charts|favicon|api|#)/.test(h) && h !== '/'),
  ),
];

/** Every page linked from the home page and every /api table: the same bytes from D1 as from SQLite, none computed. */
function workerReports(target: () => Target & { url: string }): void {
  const auth = { headers: { Authorization: `Bearer ${ADMIN}` } };

  it('renders every page linked from / from the published reports, computing none', async () => {
    const w = target();
    const pages = linked(await (await w.request('/')).text());
    expect(pages).toEqual(
      expect.arrayContaining(['/judges', '/matrix', '/health', '/style', '/variants', '/checkpoints']),
    );
    expect(pages.some((p) => p.startsWith('/models/'))).toBe(true);
    for (const p of pages) {
      const r = await w.request(p);
      expect(r.status, p).toBe(200);
      expect(await r.text(), p).not.toMatch(/being updated/);
    }
    const counts = (await (await w.request('/api/admin/reports', auth)).json()) as Record<string, unknown>;
    expect(counts).toMatchObject({ mode: 'read', computed: 0, missing: 0, stale: 0 });
    expect(counts.read as number).toBeGreaterThan(10);
  });

  it('serves byte-identical JSON to the SQLite site for every /api table after a publish', async () => {
    const w = target();
    const store = openSqliteStore(file, { readonly: true });
    try {
      const local = createApp({ store });
      const idx = JSON.parse(await (await local.request('/api')).text()) as {
        tables: Record<string, { example?: string }>;
      };
      const paths = Object.entries(idx.tables).flatMap(([name, t]) => {
        const q = t.example ? t.example.slice(t.example.indexOf('?')) : '';
        return [`/api/${name}${q}`, `/api/${name}?judge=human`].filter((p, k) => k === 0 || !t.example);
      });
      expect(paths.length).toBeGreaterThanOrEqual(Object.keys(idx.tables).length);
      for (const p of ['/api', '/api/standings?judge=gpt-4', ...paths]) {
        const [a, b] = [await w.request(p), await local.request(p)];
        expect(b.status, p).toBe(a.status);
        expect(await a.text(), p).toBe(await b.text());
      }
    } finally {
      await store.close();
    }
  });
}

describe('the Worker bundle', () => {
  it('reaches neither better-sqlite3, node-llama-cpp, openai nor the CLI, and generates no code at run time', async () => {
    const built = await bundle;
    if ('error' in built) throw built.error;
    const { out } = built;
    const map = JSON.parse(readFileSync(join(out, 'worker.js.map'), 'utf8')) as { sources: string[] };
    const sources = map.sources.join('\n');
    expect(sources).toContain('src/entry/worker.ts');
    expect(sources).toContain('src/storage/d1.ts');
    for (const banned of [
      'better-sqlite3',
      'node-llama-cpp',
      'node_modules/openai',
      'src/cli/',
      'src/storage/sqlite.ts',
      'src/judges/',
      'ejs/lib',
    ])
      expect(sources, banned).not.toContain(banned);
    const code = readFileSync(join(out, 'worker.js'), 'utf8');
    expect(code).not.toMatch(/new Function\s*\(/);
  });
});
