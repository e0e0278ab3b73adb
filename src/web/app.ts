// The read-only leaderboard site over any Store: SQLite on Node (src/entry/node.ts, `arena serve`),
// D1 on Workers (src/entry/worker.ts). This file composes it: security headers, the read-only rule and the
// admin endpoint, conditional requests, then the routes (src/web/routes/{api,pages,charts}.ts), the static
// assets and the error pages. Parameters: src/web/params.ts; caching: src/web/http-cache.ts and result-cache.ts.
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { compress } from 'hono/compress';
import { HTTPException } from 'hono/http-exception';
import { secureHeaders } from 'hono/secure-headers';
import type { SiteOptions } from '../reports/site/catalog.ts';
import { SiteData } from '../reports/site/site-data.ts';
import { ReportMissing, ReportPending, StoredReports } from '../reports/site/stored.ts';
import type { Store } from '../storage/store.ts';
import { ResultCache, type CacheOptions } from './result-cache.ts';
import { conditional, httpCache, TYPES } from './http-cache.ts';
import { lookups } from './params.ts';
import { apiRoutes } from './routes/api.ts';
import { chartRoutes } from './routes/charts.ts';
import { pageRoutes } from './routes/pages.ts';
import { page, type Site } from './site.ts';
import { assets } from './views.ts';
import { favicon, ROBOTS } from './favicon.ts';
import { annotateRoutes, type AnnotateOptions } from './annotate/routes.ts';
import { answerHead } from './head.ts';
import { compressWith, type Deflate } from './compress.ts';
import { ask, warmPages } from './warm.ts';
import { prerendered } from './prerender.ts';

const icon = favicon();

/**
 * A report being computed (Node) or not published (Worker): 503 with Retry-After, never cached, saying so
 * rather than making the visitor wait for a bootstrap.
 */
function notReady(c: Context, e: ReportPending | ReportMissing, siteUrl?: string): Response {
  const headers = { 'Retry-After': e instanceof ReportPending ? '5' : '60', 'Cache-Control': 'no-store' };
  if (c.req.path.startsWith('/api') || c.req.path.startsWith('/charts'))
    return c.json({ error: e.message, updating: e instanceof ReportPending }, 503, headers);
  const message =
    e instanceof ReportPending
      ? 'This page is being updated: its figures are being computed from the newest games. Reload in a few seconds.'
      : e.message;
  return c.html(page(c, 'error', 'Being updated', { status: 503, message }, siteUrl), 503, headers);
}

/**
 * A GET not answered within `ms` answers as a report being computed (503, Retry-After) while its work goes on for
 * the next request (the result cache keeps it): no wait of the site, a computation or a read, is a visitor's forever.
 */
function answerWithin(o: AppOptions): MiddlewareHandler {
  const ms = o.answerWithinMs ?? (o.reports === 'serve' ? 3000 : undefined);
  return async (c, next) => {
    if (ms === undefined || c.req.method !== 'GET') return next();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<true>((r) => (timer = setTimeout(() => r(true), ms)));
    const work = next();
    const tooLate = await Promise.race([work.then(() => false), late]).finally(() => clearTimeout(timer));
    if (!tooLate) return;
    work.catch(() => undefined);
    return notReady(c, new ReportPending(c.req.path), o.siteUrl);
  };
}

export interface AppOptions {
  store: Store;
  /** enables POST /api/admin/purge (Authorization: Bearer <token>); without it every write is refused */
  adminToken?: string;
  cache?: CacheOptions;
  /** a result cache to use (tests read its stats); default: one built from `cache` */
  resultCache?: ResultCache;
  /** bootstrap rounds behind the rating intervals (default 1000) */
  bootstrapRounds?: number;
  /**
   * gzip/deflate responses for clients that accept them (Node; a Worker's responses are compressed for it): true
   * streams them through hono/compress; a function compresses each whole body with it (src/web/compress.ts)
   */
  compress?: boolean | Deflate;
  /** the site's public address (https://host): makes canonical links and og:url absolute */
  siteUrl?: string;
  /** how the leaderboard's rating intervals are made: 'bootstrap' (default) or 'sandwich' (one fit, no resampling) */
  intervals?: 'bootstrap' | 'sandwich';
  /** turns on /annotate, the blind voting page for invited annotators (off without it: 404) */
  annotate?: AnnotateOptions;
  /**
   * How the stored reports are read (src/reports/site/stored.ts): 'compute' (default) computes a missing or stale
   * one when asked; 'serve' (`arena serve`) computes it in the background and says the page is being updated
   * meanwhile; 'read' (the Worker) never computes, it shows what was published.
   */
  reports?: 'compute' | 'serve' | 'read';
  /**
   * How long a page may take before it answers 503 "being updated" (Retry-After: 5) while its computation goes on
   * (default: 3000 ms with reports 'serve'; unbounded otherwise, where a page is computed when asked or only read)
   */
  answerWithinMs?: number;
  /**
   * log each request that fails with a 500 to console.error (default true); off for the Worker's warm-up, whose
   * pages end in an error under workerd (no Response with a body in global scope) that the warm-up swallows
   */
  logErrors?: boolean;
  /**
   * Answer the pages `arena publish` rendered (src/web/prerender.ts) from their rows when they were made from this
   * data, code and options (the Worker); never with `annotate` (votes cast on the site change the pages)
   */
  prerendered?: boolean;
}

/**
 * Hono's secureHeaders with a strict Content-Security-Policy (nothing but this origin, no inline script or style),
 * no framing at all and no powerful features. `overwrite: false` keeps the one header a route sets itself: the
 * charts' CSP (src/web/http-cache.ts SVG_CSP).
 */
const SECURITY: NonNullable<Parameters<typeof secureHeaders>[0]> = {
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'"],
    connectSrc: ["'self'"],
    fontSrc: ["'self'"],
    formAction: ["'self'"],
    baseUri: ["'none'"],
    frameAncestors: ["'none'"],
  },
  xFrameOptions: 'DENY',
  permissionsPolicy: { camera: [], microphone: [], geolocation: [], payment: [], usb: [] },
  overwrite: false,
};

/** The site's stored reports: one computed in the background replaces the pages shown meanwhile ("being updated"). */
const siteReports = (o: AppOptions, cache: ResultCache, options: SiteOptions) =>
  new StoredReports(o.store, cache, options, {
    mode: o.reports ?? 'compute',
    version: () => cache.version,
    updated: () => cache.clear(),
    failed: (key, e) => console.error(`[reports] computing ${key} failed:`, e),
  });

export function createApp(o: AppOptions) {
  const { store } = o;
  const cache = o.resultCache ?? new ResultCache(store, o.cache);
  const options = {
    bootstrapRounds: o.bootstrapRounds ?? 1000,
    ...(o.intervals ? { intervals: o.intervals } : {}),
  };
  const reports = siteReports(o, cache, options);
  const data = new SiteData(store, reports, options);
  const http = httpCache(cache, { compressing: Boolean(o.compress), updating: () => reports.updating });
  const site: Site = {
    store,
    cache,
    data,
    check: lookups(data, cache),
    send: http.send,
    reports,
    page: async (c, view, title, d) =>
      page(
        c,
        view,
        title,
        { provenance: await data.history.provenance(), updating: reports.updating, ...d },
        o.siteUrl,
      ),
  };
  const app = new Hono();
  app.use(http.replay);
  app.use(secureHeaders(SECURITY));
  // Node only (Workers compress by themselves); a client that takes gzip or deflate is never replayed to
  if (o.compress) app.use(typeof o.compress === 'function' ? compressWith(o.compress) : compress());
  // invited annotators' votes: the only pages that take a form, and only when the operator turned them on
  if (o.annotate)
    annotateRoutes(app, { ...o.annotate, store, cache, ...(o.siteUrl ? { siteUrl: o.siteUrl } : {}) });
  app.use(answerWithin(o));
  // The public site is read-only: only the token-protected admin endpoints (and /annotate, when on) accept a write.
  app.use('*', async (c, next) => {
    const m = c.req.method;
    if (m === 'GET' || m === 'HEAD' || c.req.path.startsWith('/api/admin/')) return next();
    return c.json({ error: `${m} is not allowed: the site is read-only` }, 405, { Allow: 'GET, HEAD' });
  });
  app.use('/api/admin/*', async (c, next) => {
    if (!o.adminToken)
      return c.json({ error: 'write endpoints are disabled (no admin token configured)' }, 403);
    return bearerAuth({ token: o.adminToken })(c, next);
  });
  app.post('/api/admin/purge', (c) => {
    cache.clear();
    return c.json({ purged: true });
  });
  // what the stored reports did in this process: computed, read, stale, missing (the Worker's never computes)
  app.get('/api/admin/reports', (c) => c.json({ mode: o.reports ?? 'compute', ...reports.counts }));
  app.use(conditional());
  if (o.prerendered) app.use(prerendered(store, cache, o, reports.counts));

  apiRoutes(app, site);
  pageRoutes(app, site);
  chartRoutes(app, site);

  // the app's own stylesheet and script (no external requests); immutable under their hashed URL
  app.get('/static/:name', (c) => {
    const a = assets.get(c.req.param('name'));
    if (!a) return c.notFound();
    return c.body(a.body, 200, {
      'Content-Type': TYPES[a.kind],
      'Cache-Control': 'public, max-age=31536000, immutable',
      ETag: `"${a.hash}"`,
    });
  });
  app.get('/healthz', (c) => c.text('ok'));
  app.get('/favicon.ico', (c) =>
    c.body(icon, 200, { 'Content-Type': 'image/x-icon', 'Cache-Control': 'public, max-age=86400' }),
  );
  app.get('/robots.txt', (c) => c.text(ROBOTS, 200, { 'Cache-Control': 'public, max-age=86400' }));

  app.notFound((c) =>
    c.req.path.startsWith('/api/')
      ? c.json({ error: `no such endpoint: ${c.req.path} (see /api)` }, 404)
      : c.html(
          page(c, 'error', 'Not found', { status: 404, message: `No page at ${c.req.path}.` }, o.siteUrl),
          404,
        ),
  );
  app.onError((e, c) => {
    if (e instanceof ReportPending || e instanceof ReportMissing) return notReady(c, e, o.siteUrl);
    const status = e instanceof HTTPException ? e.status : 500;
    if (e instanceof HTTPException && e.res) return e.res;
    const message = status === 500 ? 'Internal error.' : e.message;
    if (status === 500 && o.logErrors !== false) console.error(`[web] ${c.req.method} ${c.req.path}:`, e);
    const wantsJson = c.req.path.startsWith('/api') || c.req.path.startsWith('/charts');
    return wantsJson
      ? c.json({ error: message }, status)
      : c.html(page(c, 'error', `Error ${status}`, { status, message }, o.siteUrl), status);
  });
  // every HEAD is its GET without the body, with all the GET's headers (src/web/head.ts)
  app.fetch = answerHead(app.fetch);
  /**
   * What the first request of a process would otherwise pay, whatever it asks, done before a server listens: the
   * data fingerprint (one pass over the games' index), the runtime's Request, Response and compression classes
   * (loaded on first use), hono's router and middleware, and the views' page frame: one request for a page that
   * does not exist; the content digest the stored reports are checked against (StoredReports.prime); and the code
   * of every kind of page, run by a throwaway app that reads stored reports only (src/web/warm.ts). No report is
   * computed, and nothing is cached but the fingerprint and the digests.
   */
  const warm = async (): Promise<void> => {
    await ask(app.fetch, '/.well-known/arena-warm-up');
    // (a request taking gzip is never replayed, so it did not read the fingerprint: read it before the digests)
    await cache.fresh();
    await reports.prime();
    const { resultCache: _own, annotate: _annotate, ...rest } = o;
    await warmPages(createApp({ ...rest, reports: 'read' }).fetch);
  };
  // a server in front of hono may answer a repeated GET itself (src/entry/node.ts; see src/web/http-cache.ts)
  return Object.assign(app, { replayed: http.replayed, replayUrls: http.urls, warm });
}
