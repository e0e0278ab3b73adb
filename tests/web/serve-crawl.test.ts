// `arena serve` right after `arena import mtbench` (issue 35, item 0): a crawl from `/` along same-origin links where
// every page answers within 5 s, 200 or 503 with Retry-After (asked again at the end).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveArena, tmpDir } from '../support/cli.ts';
import { MTBENCH_DIR, noMtbench, skipWhy } from '../support/materials.ts';
import { mtbenchReleaseDb } from '../support/mtbench-release.ts';

const PAGES = 300;
const WITHIN_MS = 5000;
const skip = skipWhy('serve-crawl', noMtbench('the release imported, then served'));

/** the same-origin links of a page (`href`s; the static assets and fragments left out) */
function links(html: string, base: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/href="([^"]+)"/g)) {
    const u = new URL(m[1]!.replace(/&amp;/g, '&'), base);
    if (u.origin !== new URL(base).origin || u.pathname.startsWith('/static/')) continue;
    out.push(u.pathname + u.search);
  }
  return out;
}

/** GET `path`, its status and body and how long it took; a page that has not answered in WITHIN_MS throws */
async function ask(url: string, path: string) {
  const t0 = performance.now();
  const r = await fetch(url + path, { signal: AbortSignal.timeout(WITHIN_MS) }).catch((e: Error) => {
    throw new Error(`${path}: no answer within ${WITHIN_MS} ms (${e.message})`);
  });
  const body = await r.text();
  return { status: r.status, retry: r.headers.get('retry-after'), body, ms: performance.now() - t0 };
}

/** ask `path` until it is 200, at most 10 times a second apart */
async function until200(url: string, path: string) {
  for (let i = 0; ; i++) {
    const r = await ask(url, path);
    if (r.status !== 503 || i === 10) return r;
    await new Promise((done) => setTimeout(done, 1000));
  }
}

describe.skipIf(!!skip)('arena serve after arena import alone', { timeout: 180_000 }, () => {
  it(`a crawl from / of up to ${PAGES} pages (every one the site links): each answers within ${WITHIN_MS / 1000} s`, async () => {
    const db = await mtbenchReleaseDb(join(tmpDir('arena-crawl-'), 'x.db'), MTBENCH_DIR);
    const served = await serveArena(['serve', '--db', db, '--port', '0']);
    try {
      const seen = new Set(['/']);
      const queue = ['/'];
      const later: string[] = [];
      let slowest = 0;
      let models = 0;
      while (queue.length && seen.size <= PAGES) {
        const path = queue.shift()!;
        const r = await ask(served.url, path);
        slowest = Math.max(slowest, r.ms);
        if (r.status === 503) {
          expect(r.retry, path).toBe('5');
          later.push(path);
          continue;
        }
        expect(r.status, `${path}: ${r.body.slice(0, 300)}`).toBe(200);
        if (path.startsWith('/models/')) models++;
        for (const l of links(r.body, served.url))
          if (!seen.has(l) && seen.size < PAGES) (seen.add(l), queue.push(l));
      }
      // a page that took longer answers once its computation, which went on, is done
      for (const path of later) expect((await until200(served.url, path)).status, path).toBe(200);
      console.log(
        `[serve-crawl] ${seen.size} pages (${models} model pages), slowest ${Math.round(slowest)} ms, ` +
          `${later.length} answered 503 first`,
      );
      // (the release's site links 137 pages: every one is asked)
      expect(seen.size).toBeGreaterThan(100);
      expect(models).toBeGreaterThan(5);
    } finally {
      await served.stop();
    }
  });
});
