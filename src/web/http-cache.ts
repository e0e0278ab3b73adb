// The site's HTTP caching: every page and endpoint is computed once per data version and validated query, kept
// in the byte-bounded result cache (result-cache.ts) as encoded bytes with their headers and ETag, and handed to every
// later request as they are. Conditional requests (If-None-Match -> 304) are hono/etag's: it finds the ETag set
// here and never hashes a body again.
//
// The replay path (bench/site.ts; the profile in bench/README.md): a cached response still spent most of the
// app's time per request outside our code: hono's validator re-parsing the query, secureHeaders and etag
// turning the header record into a Headers object, node-server turning it back. So the first
// 200 for a URL goes through the whole chain, its final headers are recorded with the cached bytes, and later
// plain GETs of the same URL in the same data version are answered with those bytes and headers straight away:
// here, before the routes (`replay`), and on Node before hono sees the request at all (`replayed`, used by
// src/entry/node.ts). A request with If-None-Match still goes through hono/etag. The URL -> cache key aliases are
// few bytes each and bounded by count; the bytes stay in the result cache (and leave it with its byte bound).
import type { Context, MiddlewareHandler } from 'hono';
import { etag } from 'hono/etag';
import { LRUCache } from 'lru-cache';
import { ignoredParams } from './params.ts';
import { fnv1a, type ResultCache } from './result-cache.ts';

export const TYPES = {
  html: 'text/html; charset=utf-8',
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  svg: 'image/svg+xml',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
} as const;
type Kind = keyof typeof TYPES;

/** The header of a response computed while a report was being updated: some figures may be older than the data. */
export const UPDATING = 'X-Arena-Updating';

/** ECharts writes inline style attributes; an SVG shown through <img> never runs script anyway. */
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";

/** Serve `compute()`'s bytes as `kind`, cached (see createSend). */
export type Send = (
  c: Context,
  kind: Kind,
  compute: () => Promise<string>,
  extra?: Record<string, string>,
) => Promise<Response>;

interface Entry {
  body: Uint8Array<ArrayBuffer>;
  headers: Record<string, string>;
  /** the headers of the first 200 after every middleware ran (security headers and Content-Length included): what the replay path sends */
  final?: Record<string, string>;
}

/** A recorded response: its bytes and every header. */
interface Replay {
  body: Uint8Array<ArrayBuffer>;
  headers: Record<string, string>;
}

/** The path and query of a URL, as the replay path keys it ("http://h:1/a?b" -> "/a?b"). */
const pathOf = (url: string) => url.slice(url.indexOf('/', url.indexOf('//') + 2));

/** URLs longer than this are never replayed (they still get their cached bytes through the whole chain) */
const MAX_REPLAY_URL = 2048;

export interface HttpCache {
  send: Send;
  /** the outermost middleware: replays a recorded 200 for a plain GET of a URL seen before (see above) */
  replay: MiddlewareHandler;
  /**
   * The recorded response for a plain GET of `path` (path and query as the client sent them), when there is one
   * and the data version need not be re-read first; synchronous, for a server in front of hono.
   */
  replayed(path: string): Replay | undefined;
  /** how many URLs the replay path knows (bounded by maxUrls; never one with ignored parameters) */
  urls(): number;
}

/** Whether a request's Accept-Encoding takes a body hono's compress middleware makes. */
export const takesCompressed = (acceptEncoding: string | undefined): boolean =>
  /\b(gzip|deflate)\b/.test(acceptEncoding ?? '');

/**
 * `compressing`: the app compresses (hono/compress, inside this middleware); a request that takes a compressed
 * body then goes through the whole chain (its bytes still come from the result cache) and is never recorded.
 */
export function httpCache(
  cache: ResultCache,
  o: {
    maxUrls?: number;
    compressing?: boolean;
    /** whether what was just computed may be older than the data (a stale report shown): says so in UPDATING */
    updating?: () => boolean;
  } = {},
): HttpCache {
  /** the cache key of each response `send` made, until the replay path has read it */
  const keyOf = new WeakMap<Request, string>(); // by request: a later middleware may replace the response
  const aliases = new LRUCache<string, string>({ max: o.maxUrls ?? 4096 });

  /**
   * The cache key is the kind, the path and the route's validated query (never the raw URL: unknown parameters
   * were refused or, on pages, dropped before, and a value refused by a check throws, so it is never cached).
   */
  const send: Send = async (c, kind, compute, extra = {}) => {
    await cache.fresh();
    const key = `resp:${kind}:${c.req.path}:${JSON.stringify(c.req.valid('query' as never) ?? null)}`;
    const entry = await cache.get<Entry>(key, async () => {
      const body = await compute();
      const headers: Record<string, string> = {
        'Content-Type': TYPES[kind],
        'Cache-Control': 'public, max-age=0, must-revalidate',
        ETag: `"${fnv1a(body)}-${body.length.toString(36)}"`,
        ...extra,
      };
      if (kind === 'svg') headers['Content-Security-Policy'] = SVG_CSP;
      // the page says so in words; a table or chart only here (kept until the cache is dropped for the new figures)
      if (o.updating?.()) headers[UPDATING] = 'true';
      // encoded once: every response hands over the same bytes
      return { body: new TextEncoder().encode(body), headers };
    });
    const res = new Response(entry.body, { status: 200, headers: entry.headers });
    keyOf.set(c.req.raw, key);
    return res;
  };

  const replayed = (path: string): Replay | undefined => {
    if (cache.due) return undefined;
    const key = aliases.get(path);
    const entry = key === undefined ? undefined : cache.peek<Entry>(key);
    return entry?.final ? { body: entry.body, headers: entry.final } : undefined;
  };

  const replay: MiddlewareHandler = async (c, next) => {
    if (
      c.req.method !== 'GET' ||
      c.req.header('If-None-Match') !== undefined ||
      (o.compressing && takesCompressed(c.req.header('Accept-Encoding')))
    )
      return next();
    await cache.fresh();
    const path = pathOf(c.req.url);
    const hit = replayed(path);
    if (hit) return new Response(hit.body, { status: 200, headers: hit.headers });
    await next();
    const key = keyOf.get(c.req.raw);
    // a URL whose page ignored some of its parameters is never an alias: junk URLs take no memory
    if (key === undefined || c.res.status !== 200 || path.length > MAX_REPLAY_URL || ignoredParams(c)) return;
    const entry = cache.peek<Entry>(key);
    if (!entry) return;
    if (!entry.final) {
      const final: Record<string, string> = {};
      c.res.headers.forEach((v, k) => (final[k] = v));
      final['content-length'] = String(entry.body.byteLength);
      entry.final = final;
    }
    aliases.set(path, key);
  };
  return { send, replay, replayed, urls: () => aliases.size };
}

/** 304 for a matching If-None-Match (strong or weak); the ETag comes from the response, never from hashing it. */
export const conditional = () => etag();
