// The same route tests against the Worker under `wrangler dev`, over a local D1 that the migrations
// built and that `arena publish` filled from the test database. Also: the Worker bundle stays free of
// Node-only code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inviteHash } from '../../src/core/annotate.ts';
import { HAVE_CHROMIUM, launchChromium } from '../support/chromium.ts';
import { runArena, tmpDir } from '../support/cli.ts';
import { voteWithKeyboard } from './annotate-flow.ts';
import { buildFixture } from './fixture.ts';
import { describeRoutes, type Target } from './routes.ts';
import { exec, localD1, wranglerDev } from './support.ts';

const INVITE = 'worker-invite-token-0123456789';

// one wrangler dev for the route tests and the annotate flow: /annotate on (ANNOTATE=on), which changes nothing
// the route tests see; the annotator is invited in the SQLite file that is published to D1
describeRoutes(
  'Worker under wrangler dev over local D1',
  async (): Promise<Target & { url: string }> => {
    const dir = tmpDir('arena-worker-');
    const { file, store } = await buildFixture(dir);
    await store.annotators.add('wendy', inviteHash(INVITE), Date.now());
    await store.close();
    const persist = await localD1(dir);
    const pub = await runArena(['publish', '--db', file, '--persist-to', persist], { timeoutMs: 360_000 });
    expect(pub.code, pub.stderr).toBe(0);
    expect(pub.stdout).toMatch(/published .* to D1 mt-arena \(local\)/);
    const dev = await wranglerDev(persist, {
      BOOTSTRAP_ROUNDS: '200',
      ANNOTATE: 'on',
      ANNOTATE_SECRET: 'worker-test-secret-of-more-than-32-characters',
    });
    return {
      url: dev.url,
      request: (path, init) => fetch(dev.url + path, { ...init, redirect: 'manual' }),
      close: () => dev.stop(),
    };
  },
  (target) => {
    it.skipIf(!HAVE_CHROMIUM)(
      '/annotate on D1: an invited annotator votes on ten matches with the keyboard, and the agreement of gpt-4 with annotators counts them',
      async () => {
        const t = target();
        const browser = await launchChromium();
        try {
          const voted = await voteWithKeyboard(browser, `${t.url}/annotate/login?token=${INVITE}`, 10);
          expect(voted.problems).toEqual([]);
          expect(voted.progress).toContain('10 voted · 0 skipped');
        } finally {
          await browser.close();
        }
        // a replayed invite is refused on the Worker too
        const replay = await t.request('/annotate/login', {
          method: 'POST',
          body: `token=${INVITE}`,
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: t.url },
        });
        expect(replay.status).toBe(403);
        expect(replay.headers.get('content-security-policy')).toContain("default-src 'none'");
        const rows = (await (await t.request('/api/agreement')).json()) as {
          judge1: string;
          judge2: string;
          setup: string;
          total: number;
        }[];
        const pair = rows.filter(
          (r) => r.setup === 'with-tie' && [r.judge1, r.judge2].sort().join() === 'annotators,gpt-4',
        );
        expect(pair.reduce((n, r) => n + r.total, 0)).toBe(10);
      },
      120_000,
    );
  },
);

describe('the Worker bundle', () => {
  it('reaches neither better-sqlite3, node-llama-cpp, openai nor the CLI, and generates no code at run time', async () => {
    const out = tmpDir('arena-bundle-');
    await exec('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', out]);
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
