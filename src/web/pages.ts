// Pages rendered on the write path (`renderPages`: every write renders what the home page links to) and stored as
// rows of the pages table, which the site answers in one read (`storedPages`) without running the page's code. A row
// holds while its data (the `_state` row's body), its code (views.gen.ts's BUILD) and the options that change the
// HTML still hold; its key is the page's canonical URL, so a shared link's tracking parameters find the same row.
import type { MiddlewareHandler } from 'hono';
import type { StoredPage } from '../storage/page-store.ts';
import type { Store } from '../storage/store.ts';
import { QUERY } from './params.ts';
import { BUILD } from './views.gen.ts';

/** The options of an app that change a page's bytes (an app with /annotate on serves no stored page). */
export interface PageOptions {
  siteUrl?: string | undefined;
  intervals?: 'bootstrap' | 'sandwich' | undefined;
}

/** The headers a page's route sets itself (the app's middleware adds the rest, on a stored page as on a live one). */
const ROUTE_HEADERS = ['content-type', 'cache-control', 'etag'] as const;

/** Every query parameter any route reads: the others never change a page (validPage ignores them). */
const READ = new Set(Object.values(QUERY).flatMap((s) => Object.keys(s.shape)));

/** Paths that are never a stored page: the API, charts, assets and the fixed answers. */
const NEVER = /^\/(api(\/|$)|charts\/|static\/|annotate(\/|$)|healthz$|favicon\.ico$|robots\.txt$)/;

/**
 * The key of a request's URL: its path and, in the order given, the parameters some route reads. Equal to a page's
 * canonical URL only when the request names that page's parameters exactly as the page names them.
 */
export function pageKey(url: string): string {
  const u = new URL(url, 'http://x');
  const kept = new URLSearchParams();
  for (const [k, v] of u.searchParams) if (READ.has(k)) kept.append(k, v);
  const q = kept.toString();
  return q ? `${u.pathname}?${q}` : u.pathname;
}

/** The row's key: the build id, the options and the key (JSON: none of them can be confused with another). */
export const pageParams = (o: PageOptions, key: string): string =>
  JSON.stringify([BUILD, o.intervals ?? 'bootstrap', o.siteUrl ?? '', key]);

/** Middleware answering a GET of a stored page from its row, one read a request; `served` counts them. */
export function storedPages(
  store: Store,
  o: PageOptions & { annotate?: unknown },
  served: { pages: number },
): MiddlewareHandler {
  // with /annotate on, the votes cast on the site change the pages between writes: every page renders live
  if (o.annotate) return (_c, next) => next();
  return async (c, next) => {
    if (c.req.method !== 'GET' || NEVER.test(c.req.path)) return next();
    const row = await store.pages.current(pageParams(o, pageKey(c.req.url)));
    if (row === undefined) return next();
    const p = JSON.parse(row) as { headers: Record<string, string>; body: string };
    served.pages++;
    return new Response(p.body, { status: 200, headers: p.headers });
  };
}

/** The canonical path and query a page names (`<link rel="canonical" href="...">`, the site's address cut off). */
function canonicalOf(html: string, siteUrl = ''): string | undefined {
  const href = /<link rel="canonical" href="([^"]*)"/.exec(html)?.[1];
  if (href === undefined) return undefined;
  const url = href.replace(/&amp;/g, '&').replace(/&#34;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<');
  const base = siteUrl.replace(/\/+$/, '');
  if (!url.startsWith(`${base}/`)) return undefined;
  return url.slice(base.length);
}

/**
 * The site's own pages linked from the home page `html`: `/` first, then each other page once (a link's fragment is
 * not part of it; the sorting links are left out: `?sort=` pages render live).
 */
export function linkedPages(html: string, max = 100): string[] {
  const seen = new Set<string>(['/']);
  for (const m of html.matchAll(/href="(\/[^"#]*)/g)) {
    const url = new URL(m[1]!.replace(/&amp;/g, '&'), 'http://x');
    if (NEVER.test(url.pathname) || url.searchParams.has('sort') || url.searchParams.has('dir')) continue;
    seen.add(url.pathname + url.search);
  }
  return [...seen].slice(0, max);
}

/**
 * The rows of the pages `/` links to, rendered with `fetch` and tied to `state` (the `_state` row's body); a page not
 * a 200, not at its canonical URL, changed by a tracking parameter or named by `skip` is left to render live.
 */
export async function renderPages(
  fetch: (r: Request) => Response | Promise<Response>,
  o: PageOptions,
  state: string,
  skip: (path: string) => boolean = () => false,
): Promise<StoredPage[]> {
  const get = async (path: string) => {
    const res = await fetch(new Request(`http://pages.invalid${path}`));
    return { res, body: await res.text() };
  };
  const home = await get('/');
  if (home.res.status !== 200) return [];
  const rows: StoredPage[] = [];
  for (const path of linkedPages(home.body)) {
    const { res, body } = path === '/' ? home : await get(path);
    const key = pageKey(path);
    const canonical = canonicalOf(body, o.siteUrl);
    if (res.status !== 200 || canonical === undefined || pageKey(canonical) !== key || skip(path)) continue;
    // the row also answers the page's shared links: a page must show itself whatever parameters no route reads
    const shared = await get(`${path}${path.includes('?') ? '&' : '?'}utm_source=shared`);
    if (shared.res.status !== 200 || shared.body !== body) continue;
    const headers: Record<string, string> = {};
    for (const h of ROUTE_HEADERS) {
      const v = res.headers.get(h);
      if (v !== null) headers[h] = v;
    }
    rows.push({
      key: pageParams(o, key),
      state,
      body: JSON.stringify({ headers, body }),
      builtAt: Date.now(),
    });
  }
  return rows;
}
