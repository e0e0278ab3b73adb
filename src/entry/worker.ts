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
  /** "sandwich": show the reports built with sandwich intervals (README: "Sandwich intervals") */
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

/** the first request's D1 binding (global scope has no env): what `preset`'s store reads */
let db: AnyD1Database | undefined;
/** The app of a Worker without optional vars, made while the script starts, so the first request only reads. */
const preset = createApp({ store: openD1Store(laterBinding(() => db)), reports: 'read', pages: true });
// hono builds an app's route matcher on its first match: build the preset's now (no request, no I/O)
preset.router.match('GET', '/');

/** The optional vars that change the app, each with the value that changes nothing where it has one. */
const OPTIONS = {
  ADMIN_TOKEN: undefined,
  INTERVALS: undefined,
  SITE_URL: undefined,
  ANNOTATE: 'off',
  ANNOTATE_SECRET: undefined,
  ANNOTATE_QUEUE: undefined,
} as const satisfies Partial<Record<keyof Env, string>>;

/** Whether `env` asks for nothing the preset app lacks. */
export const presetFits = (env: Env): boolean =>
  (Object.keys(OPTIONS) as (keyof typeof OPTIONS)[]).every(
    (k) => env[k] === undefined || env[k] === OPTIONS[k],
  );

export default {
  fetch(request: Request, env: Env, ctx: unknown): Response | Promise<Response> {
    if (!app && presetFits(env)) {
      db = env.DB;
      app = preset;
    }
    // one app per isolate: its result cache lives as long as the isolate does
    app ??= createApp({
      store: openD1Store(env.DB),
      // the reports and pages `arena publish` shipped with the rows; the Worker computes none
      reports: 'read',
      pages: true,
      ...(env.ADMIN_TOKEN ? { adminToken: env.ADMIN_TOKEN } : {}),
      ...(env.INTERVALS ? { intervals: intervalsVar(env.INTERVALS) } : {}),
      ...(env.SITE_URL ? { siteUrl: env.SITE_URL } : {}),
      ...annotateVars(env),
    });
    return app.fetch(request, env, ctx as never);
  },
};

/** A D1 binding whose every call goes to `binding()`, known only once a request brought it. */
function laterBinding(binding: () => AnyD1Database | undefined): AnyD1Database {
  const now = (): Record<string, (...a: unknown[]) => unknown> => {
    const b = binding();
    if (!b) throw new Error('[worker] no D1 binding yet (read before the first request)');
    return b as never;
  };
  return {
    prepare: (sql: string) => now().prepare!(sql),
    batch: (statements: unknown[]) => now().batch!(statements),
    exec: (sql: string) => now().exec!(sql),
    dump: () => now().dump!(),
  } as unknown as AnyD1Database;
}

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
