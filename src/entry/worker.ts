// Cloudflare Worker entry: the leaderboard app over D1. Bundled by wrangler (wrangler.toml); it must
// never reach better-sqlite3, node-llama-cpp, openai or the CLI (tests/web/worker-bundle.test.ts checks).
import type { AnyD1Database } from 'drizzle-orm/d1';
import { openD1Store } from '../storage/d1.ts';
import { createApp } from '../web/app.ts';

export interface Env {
  DB: AnyD1Database;
  /** enables the token-protected write endpoints (cache purge) when set: `wrangler secret put ADMIN_TOKEN` */
  ADMIN_TOKEN?: string;
  /**
   * "sandwich": show the reports built with sandwich intervals (`arena reports --rebuild --intervals sandwich`
   * before `arena publish`) instead of the bootstrap's (README: "Sandwich intervals")
   */
  INTERVALS?: string;
  /** the site's public address (https://host): canonical links and og:url become absolute */
  SITE_URL?: string;
}

let app: ReturnType<typeof createApp> | undefined;

export default {
  fetch(request: Request, env: Env, ctx: unknown): Response | Promise<Response> {
    // one app per isolate: its result cache lives as long as the isolate does
    app ??= createApp({
      store: openD1Store(env.DB),
      // the Worker shows the reports `arena publish` shipped with the rows; it never computes one
      reports: 'read',
      ...(env.ADMIN_TOKEN ? { adminToken: env.ADMIN_TOKEN } : {}),
      ...(env.INTERVALS ? { intervals: intervalsVar(env.INTERVALS) } : {}),
      ...(env.SITE_URL ? { siteUrl: env.SITE_URL } : {}),
    });
    return app.fetch(request, env, ctx as never);
  },
};

function intervalsVar(v: string): 'bootstrap' | 'sandwich' {
  if (v !== 'bootstrap' && v !== 'sandwich')
    throw new Error(`[worker] the var INTERVALS must be "bootstrap" or "sandwich", got "${v}"`);
  return v;
}
