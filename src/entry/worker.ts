// Cloudflare Worker entry: the leaderboard app over D1. Bundled by wrangler (wrangler.toml); it must
// never reach better-sqlite3, node-llama-cpp, openai or the CLI (tests/web/worker-bundle.test.ts checks).
import type { AnyD1Database } from 'drizzle-orm/d1';
import { openD1Store } from '../storage/d1.ts';
import { createApp } from '../web/app.ts';
import { MIN_SECRET, secretProblem, type AnnotateOptions } from '../web/annotate/routes.ts';

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
  /** "on" turns on /annotate, the blind voting page for invited annotators (default "off") */
  ANNOTATE?: string;
  /** signs the annotators' session cookies (32+ characters): `wrangler secret put ANNOTATE_SECRET`; needed with ANNOTATE=on */
  ANNOTATE_SECRET?: string;
  /** where annotators start: "review" (the matches the judges disagree on most; default) or "uniform" */
  ANNOTATE_QUEUE?: string;
}

let app: ReturnType<typeof createApp> | undefined;

export default {
  fetch(request: Request, env: Env, ctx: unknown): Response | Promise<Response> {
    // one app per isolate: its result cache lives as long as the isolate does
    app ??= createApp({
      store: openD1Store(env.DB),
      // the Worker shows the reports `arena publish` shipped with the rows; it never computes one
      reports: 'read',
      // the pages `arena publish` rendered for a Worker of these vars (src/web/pages.ts)
      pages: true,
      ...(env.ADMIN_TOKEN ? { adminToken: env.ADMIN_TOKEN } : {}),
      ...(env.INTERVALS ? { intervals: intervalsVar(env.INTERVALS) } : {}),
      ...(env.SITE_URL ? { siteUrl: env.SITE_URL } : {}),
      ...annotateVars(env),
    });
    return app.fetch(request, env, ctx as never);
  },
};

function intervalsVar(v: string): 'bootstrap' | 'sandwich' {
  if (v !== 'bootstrap' && v !== 'sandwich')
    throw new Error(`[worker] the var INTERVALS must be "bootstrap" or "sandwich", got "${v}"`);
  return v;
}

/** ANNOTATE=on: the annotate page's options from the Worker's variables and secret. */
function annotateVars(env: Env): { annotate?: AnnotateOptions } {
  const on = env.ANNOTATE ?? 'off';
  if (on !== 'on' && on !== 'off')
    throw new Error(`[worker] the var ANNOTATE must be "on" or "off", got "${on}"`);
  if (on === 'off') return {};
  const secret = env.ANNOTATE_SECRET ?? '';
  const weak = secret ? secretProblem(secret) : 'is not set';
  if (weak)
    throw new Error(
      `[worker] ANNOTATE=on needs the secret ANNOTATE_SECRET of at least ${MIN_SECRET} random characters (wrangler secret put ANNOTATE_SECRET); it ${weak}`,
    );
  const queue = env.ANNOTATE_QUEUE ?? 'review';
  if (queue !== 'review' && queue !== 'uniform')
    throw new Error(`[worker] the var ANNOTATE_QUEUE must be "review" or "uniform", got "${queue}"`);
  return {
    annotate: {
      secret,
      queue,
      // Cloudflare sets it to the client's address; a client cannot forge it through Cloudflare
      address: (c) => c.req.header('cf-connecting-ip'),
    },
  };
}
