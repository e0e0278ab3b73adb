// The read-only leaderboard site over any Store (SQLite on Node: `arena serve`; D1 on Workers), composed here:
// security headers, the read-only rule and admin endpoints, conditional requests, stored pages (pages.ts), the
// routes (routes/{api,pages,charts}.ts), the static assets and the error pages.
import { Hono, type Context } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { compress } from 'hono/compress';
import { etag } from 'hono/etag';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { secureHeaders } from 'hono/secure-headers';
import { SiteData } from '../reports/site/site-data.ts';
import { ReportMissing, StoredReports } from '../reports/site/stored.ts';
import type { Store } from '../storage/store.ts';
import { ResultCache, type CacheOptions } from './result-cache.ts';
import { send, TYPES } from './send.ts';
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
import { storedPages } from './pages.ts';

const icon = favicon();

export interface AppOptions {
  store: Store;
  /** enables POST /api/admin/purge (Authorization: Bearer <token>); without it every write is refused */
  adminToken?: string;
  cache?: CacheOptions;
  /** bootstrap rounds behind the rating intervals (default 1000) */
  bootstrapRounds?: number;
  /** gzip/deflate (Node; Workers compress for themselves): true through hono/compress, or with this function */
  compress?: boolean | Deflate;
  /** the site's public address (https://host): makes canonical links and og:url absolute */
  siteUrl?: string;
  /** how the leaderboard's rating intervals are made: 'bootstrap' (default) or 'sandwich' (one fit, no resampling) */
  intervals?: 'bootstrap' | 'sandwich';
  /** turns on /annotate, the blind voting page for invited annotators (off without it: 404) */
  annotate?: AnnotateOptions;
  /** how stored reports are read (stored.ts): 'compute' (default) what is missing, or 'read' (the Worker) only */
  reports?: 'compute' | 'read';
  /** answer the pages the write path rendered (pages.ts) from their rows; never with `annotate` */
  pages?: boolean;
}

/** A strict CSP (this origin only, no inline script or style), no framing; `overwrite: false` keeps the charts' CSP. */
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

export function createApp(o: AppOptions) {
  const { store } = o;
  const cache = new ResultCache(store, o.cache);
  const options = {
    bootstrapRounds: o.bootstrapRounds ?? 1000,
    ...(o.intervals ? { intervals: o.intervals } : {}),
  };
  const reports = new StoredReports(store, cache, options, o.reports ?? 'compute');
  const data = new SiteData(store, reports, options);
  const served = { pages: 0 };
  const site: Site = {
    store,
    data,
    check: lookups(data, cache),
    send,
    reports,
    page: async (c, view, title, d) =>
      page(c, view, title, { provenance: await data.history.provenance(), ...d }, o.siteUrl),
  };
  const app = new Hono();
  app.use(secureHeaders(SECURITY));
  // Node only (Workers compress by themselves)
  if (o.compress) app.use(typeof o.compress === 'function' ? compressWith(o.compress) : compress());
  // invited annotators' votes: the only pages that take a form, and only when the operator turned them on
  if (o.annotate)
    annotateRoutes(app, { ...o.annotate, store, cache, ...(o.siteUrl ? { siteUrl: o.siteUrl } : {}) });
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
  // what this process did: stored reports computed, read, stale, missing, stored pages served, values cached
  app.get('/api/admin/reports', (c) =>
    c.json({ mode: o.reports ?? 'compute', ...reports.counts, pages: served.pages, cached: cache.size }),
  );
  // 304 for a matching If-None-Match: the ETag comes from the response (send.ts), never from hashing it
  app.use(etag());
  // the fixed answers first (they read no data); the assets are immutable under their hashed URL
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
  if (o.pages) app.use(storedPages(store, o, served));
  // what a live page reads is current: the data fingerprint is re-read when due (src/web/result-cache.ts)
  app.use(async (_c, next) => {
    await cache.fresh();
    return next();
  });

  apiRoutes(app, site);
  pageRoutes(app, site);
  chartRoutes(app, site);

  const error = (c: Context, status: ContentfulStatusCode, title: string, message: string, h = {}) =>
    c.html(page(c, 'error', title, { status, message }, o.siteUrl), status, h);
  app.notFound((c) =>
    c.req.path.startsWith('/api/')
      ? c.json({ error: `no such endpoint: ${c.req.path} (see /api)` }, 404)
      : error(c, 404, 'Not found', `No page at ${c.req.path}.`),
  );
  app.onError((e, c) => {
    const wantsJson = c.req.path.startsWith('/api') || c.req.path.startsWith('/charts');
    if (e instanceof ReportMissing) {
      // a report not published (the Worker): never cached, saying what to run
      const h = { 'Retry-After': '60', 'Cache-Control': 'no-store' };
      return wantsJson ? c.json({ error: e.message }, 503, h) : error(c, 503, 'Being updated', e.message, h);
    }
    if (e instanceof HTTPException && e.res) return e.res;
    const status = e instanceof HTTPException ? e.status : 500;
    const message = status === 500 ? 'Internal error.' : e.message;
    if (status === 500) console.error(`[web] ${c.req.method} ${c.req.path}:`, e);
    return wantsJson ? c.json({ error: message }, status) : error(c, status, `Error ${status}`, message);
  });
  // every HEAD is its GET without the body, with all the GET's headers (src/web/head.ts)
  app.fetch = answerHead(app.fetch);
  return app;
}
