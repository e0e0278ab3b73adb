// The Worker's warm-up while its script starts. A new isolate's first request would otherwise compile and first run
// everything any request goes through (hono's router and middleware, drizzle's query builder and D1 session, the
// result cache, the page frame and the error page), and Cloudflare counts that against the request's CPU limit.
// The script's start-up is limited apart (global scope), so that one-time work is done there: one request through
// a throwaway app over an in-memory D1 with no rows. It never touches the real binding (global scope may not do
// I/O), and nothing of it is kept but the compiled code: the real app is created on the first request, with its
// own caches, as before.
import type { AnyD1Database } from 'drizzle-orm/d1';
import { sha256Hex } from '../core/sha256.ts';

/** A D1 binding with no rows: every statement answers an empty result, at once (no I/O). */
export function emptyD1(): AnyD1Database {
  const result = { results: [], success: true, meta: {} };
  const statement = {
    bind: () => statement,
    all: () => Promise.resolve(result),
    raw: () => Promise.resolve([]),
    first: () => Promise.resolve(null),
    run: () => Promise.resolve(result),
  };
  return {
    prepare: () => statement,
    batch: (s: unknown[]) => Promise.resolve(s.map(() => result)),
    exec: () => Promise.resolve({ count: 0, duration: 0 }),
    dump: () => Promise.resolve(new ArrayBuffer(0)),
  } as unknown as AnyD1Database;
}

/** The paths the warm-up asks: the leaderboard (its route, the catalog and the stored reports' reads) and the API. */
export const WARM_PATHS = ['/', '/api/standings?judge=warm-up'];

/**
 * Compute one SHA-256 digest, then ask `fetch` (an app over `emptyD1()`) for each of WARM_PATHS and read the answers. Everything settles in
 * microtasks, so it is done before the script's start-up ends; a failure is swallowed (the first request then
 * pays as before), never thrown at start-up.
 */
export function warmUp(fetch: (r: Request) => Response | Promise<Response>): Promise<void> {
  return (async () => {
    // the digests a stored report is checked against (pure JS on Workers; no report is read here)
    sha256Hex('warm-up');
    for (const path of WARM_PATHS) {
      const r = await fetch(new Request(`http://warm-up.invalid${path}`));
      await r.text();
    }
  })().catch(() => undefined);
}
