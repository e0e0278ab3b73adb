// How a route answers: its body with its Content-Type, Cache-Control and an ETag of the body, so that hono/etag
// (app.ts) answers If-None-Match with a 304 without hashing again.
import type { Context } from 'hono';
import { fnv1a } from './result-cache.ts';

export const TYPES = {
  html: 'text/html; charset=utf-8',
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  svg: 'image/svg+xml',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
} as const;
type Kind = keyof typeof TYPES;

/** ECharts writes inline style attributes; an SVG shown through <img> never runs script anyway. */
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";

/** Serve `compute()`'s bytes as `kind`. */
export type Send = (
  c: Context,
  kind: Kind,
  compute: () => Promise<string>,
  extra?: Record<string, string>,
) => Promise<Response>;

export const send: Send = async (_c, kind, compute, extra = {}) => {
  const body = await compute();
  const headers: Record<string, string> = {
    'Content-Type': TYPES[kind],
    'Cache-Control': 'public, max-age=0, must-revalidate',
    ETag: `"${fnv1a(body)}-${body.length.toString(36)}"`,
    ...extra,
  };
  if (kind === 'svg') headers['Content-Security-Policy'] = SVG_CSP;
  return new Response(body, { status: 200, headers });
};
