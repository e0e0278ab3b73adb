// The Worker's warm-up while its script starts. A new isolate's first request would otherwise compile and first run
// everything its page goes through (hono's router and middleware, the D1 reads, the result cache, the stored
// reports' checks, the page's view and tables), and Cloudflare counts that against the request's CPU limit. The
// script's start-up is limited apart (global scope, 1 s), so that one-time work is done there: every kind of page
// the home page links to, asked of a throwaway app over a D1 that answers from a recorded sample of published rows
// (src/entry/worker-sample.json, scripts/worker-sample.ts). It never touches the real binding (global scope may
// not do I/O), computes no report (the app only reads stored ones), and nothing of it is kept but the compiled
// code: the real app has its own caches.
import type { AnyD1Database } from 'drizzle-orm/d1';
import { sha256Hex } from '../core/sha256.ts';
import { CURRENT_REPORT } from '../storage/drizzle/reports.ts';
import { PAGE_VIEW, pageParams } from '../web/prerender.ts';

/** What the warm-up's D1 answers (src/entry/worker-sample.json, recorded by scripts/worker-sample.ts). */
export interface WorkerSample {
  /** the pages the warm-up asks, in order: every kind of page the home page links to */
  paths: string[];
  /** each statement the app ran for them: its SQL, its parameters and the rows a published D1 answered */
  reads: [sql: string, params: unknown[], rows: Record<string, unknown>[]][];
}

/**
 * A D1 binding that answers each statement of `sample` with its recorded rows and any other with none, at once (no
 * I/O: global scope forbids it).
 */
export function sampleD1(sample: Pick<WorkerSample, 'reads'>): AnyD1Database {
  const answers = new Map(sample.reads.map(([sql, params, rows]) => [JSON.stringify([sql, params]), rows]));
  const statement = (sql: string, params: unknown[] = []) => {
    const rows = () => answers.get(JSON.stringify([sql, params])) ?? [];
    const s = {
      bind: (...p: unknown[]) => statement(sql, p),
      all: () => Promise.resolve({ results: rows(), success: true, meta: {} }),
      raw: () => Promise.resolve(rows().map((r) => Object.values(r))),
      first: () => Promise.resolve(rows()[0] ?? null),
      run: () => Promise.resolve({ results: [], success: true, meta: {} }),
    };
    return s;
  };
  return {
    prepare: (sql: string) => statement(sql),
    batch: (s: { all(): Promise<unknown> }[]) => Promise.all(s.map((x) => x.all())),
    exec: () => Promise.resolve({ count: 0, duration: 0 }),
    dump: () => Promise.resolve(new ArrayBuffer(0)),
  } as unknown as AnyD1Database;
}

/** A D1 binding with no rows: every statement answers an empty result, at once (no I/O). */
export const emptyD1 = (): AnyD1Database => sampleD1({ reads: [] });

/**
 * Compute one SHA-256 digest, then ask `fetch` (an app over `sampleD1(sample)`) for each of the sample's paths and
 * read the answers. Everything settles in microtasks, so it is done before the script's start-up ends. Each request's
 * failure is swallowed on its own and the next one is asked: under workerd a Response with a body cannot be made in
 * global scope, so every page fails at its very end, after its reads, its figures and its view have run (what the
 * warm-up is for); nothing is ever thrown at start-up.
 */
export function warmUp(
  fetch: (r: Request) => Response | Promise<Response>,
  paths: readonly string[],
  stored?: (d1: AnyD1Database) => (r: Request) => Response | Promise<Response>,
): Promise<void> {
  return (async () => {
    // the digests a stored report is checked against (pure JS on Workers; no report is read here)
    sha256Hex('warm-up');
    for (const path of paths) await ask(fetch, new Request(`http://warm-up.invalid${path}`));
    // a pre-rendered page (src/web/prerender.ts): its GET, a HEAD and a conditional GET, from a made-up row
    if (!stored) return;
    const again = stored(pageD1(WARM_PAGE));
    const url = `http://warm-up.invalid${WARM_PAGE}?utm_source=warm-up`;
    for (const init of [{}, { method: 'HEAD' }, { headers: { 'If-None-Match': WARM_ETAG } }])
      await ask(again, new Request(url, init));
  })().catch(() => undefined);
}

/** `fetch(request)` and its body read, whatever fails on the way (swallowed). */
async function ask(fetch: (r: Request) => Response | Promise<Response>, request: Request): Promise<void> {
  try {
    await (await fetch(request)).text();
  } catch {
    // workerd: no Response with a body in global scope (the page's own work has run by then)
  }
}

const WARM_PAGE = '/';
const WARM_ETAG = '"warm-up"';

/** A D1 whose only answer is a pre-rendered row of `path` (for a Worker of no optional vars). */
function pageD1(path: string): AnyD1Database {
  const body = JSON.stringify({
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', etag: WARM_ETAG },
    body: '<!doctype html><title>warm-up</title>',
  });
  return sampleD1({ reads: [[CURRENT_REPORT, [PAGE_VIEW, pageParams({}, path)], [{ body }]]] });
}
