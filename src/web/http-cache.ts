// The site's HTTP caching: every page and endpoint is computed once per data version and validated query, kept
// in the byte-bounded result cache (cache.ts) as encoded bytes with their headers and ETag, and handed to every
// later request as they are. Conditional requests (If-None-Match -> 304) are hono/etag's: it finds the ETag set
// here and never hashes a body again.
import type { Context } from 'hono';
import { etag } from 'hono/etag';
import { fnv1a, type ResultCache } from './cache.ts';

export const TYPES = { html: 'text/html; charset=utf-8', json: 'application/json; charset=utf-8', csv: 'text/csv; charset=utf-8', svg: 'image/svg+xml', css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' } as const;
export type Kind = keyof typeof TYPES;

/** ECharts writes inline style attributes; an SVG shown through <img> never runs script anyway. */
export const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";

/** Serve `compute()`'s bytes as `kind`, cached (see createSend). */
export type Send = (c: Context, kind: Kind, compute: () => Promise<string>, extra?: Record<string, string>) => Promise<Response>;

interface Entry {
  body: Uint8Array<ArrayBuffer>;
  etag: string;
  headers: Record<string, string>;
}

/**
 * `send` for a site over `cache`: the cache key is the kind, the path and the route's validated query (never the
 * raw URL: unknown parameters were refused before, and a value refused by a check throws, so it is never cached).
 */
export function createSend(cache: ResultCache): Send {
  return async (c, kind, compute, extra = {}) => {
    await cache.fresh();
    const key = `resp:${kind}:${c.req.path}:${JSON.stringify(c.req.valid('query' as never) ?? null)}`;
    const entry = await cache.get<Entry>(key, async () => {
      const body = await compute();
      const tag = `"${fnv1a(body)}-${body.length.toString(36)}"`;
      const headers: Record<string, string> = { 'Content-Type': TYPES[kind], 'Cache-Control': 'public, max-age=0, must-revalidate', ETag: tag, ...extra };
      if (kind === 'svg') headers['Content-Security-Policy'] = SVG_CSP;
      // encoded once: every response hands over the same bytes
      return { body: new TextEncoder().encode(body), etag: tag, headers };
    });
    return new Response(entry.body, { status: 200, headers: entry.headers });
  };
}

/** 304 for a matching If-None-Match (strong or weak); the ETag comes from the response, never from hashing it. */
export const conditional = () => etag();
