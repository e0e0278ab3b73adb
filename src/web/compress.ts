// Compression of whole bodies by a function the runtime hands in (Node: zlib's gzipSync) instead of hono/compress's
// stream, which cost more CPU than the compression itself on a server's first visits. Same rules as hono/compress.
import type { MiddlewareHandler } from 'hono';
import { parseAccept } from 'hono/utils/accept';
import { COMPRESSIBLE_CONTENT_TYPE_REGEX } from 'hono/utils/compress';

export type Encoding = 'gzip' | 'deflate';
/** The body compressed in `encoding` (deflate: the zlib format, as CompressionStream's 'deflate'). */
export type Deflate = (body: Uint8Array, encoding: Encoding) => Uint8Array<ArrayBuffer>;

const THRESHOLD = 1024;

/** The encoding hono/compress would pick for this Accept-Encoding (gzip first at equal weight), if any. */
export function encodingFor(header: string | undefined): Encoding | undefined {
  if (header === undefined) return undefined;
  const accepts = parseAccept(header);
  const wildcard = accepts.find((a) => a.type === '*')?.q;
  let best: { encoding: Encoding; q: number } | undefined;
  for (const encoding of ['gzip', 'deflate'] as const) {
    const q = accepts.find((a) => a.type.toLowerCase() === encoding)?.q ?? wildcard ?? 0;
    if (q === 1) return encoding;
    if (q > 0 && (!best || q > best.q)) best = { encoding, q };
  }
  return best?.encoding;
}

/** hono middleware: the response compressed by `deflate` where hono/compress would stream it. */
export function compressWith(deflate: Deflate): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = c.res;
    const h = res.headers;
    const length = h.get('Content-Length');
    if (
      res.status === 206 ||
      h.has('Content-Encoding') ||
      h.has('Transfer-Encoding') ||
      c.req.method === 'HEAD' ||
      (length && Number(length) < THRESHOLD) ||
      !COMPRESSIBLE_CONTENT_TYPE_REGEX.test(h.get('Content-Type') ?? '') ||
      /(?:^|,)\s*?no-transform\s*?(?:,|$)/i.test(h.get('Cache-Control') ?? '')
    )
      return;
    const vary = h.get('Vary');
    if (vary !== '*' && !(vary && /(?:^|,)\s*accept-encoding\s*(?:,|$)/i.test(vary)))
      c.header('Vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
    const encoding = encodingFor(c.req.header('Accept-Encoding'));
    if (!encoding || !res.body) return;
    const raw = new Uint8Array(await res.arrayBuffer());
    const headers = new Headers(c.res.headers);
    // the threshold on the body itself, where hono/compress sees only a Content-Length the route gave
    const small = raw.byteLength < THRESHOLD;
    const body = small ? raw : deflate(raw, encoding);
    headers.set('Content-Length', String(body.byteLength));
    const etag = headers.get('ETag');
    if (!small) headers.set('Content-Encoding', encoding);
    if (!small && etag && !etag.startsWith('W/')) headers.set('ETag', `W/${etag}`);
    // (assigned over nothing: hono's setter would copy the old response's headers over these, length included)
    c.res = undefined;
    c.res = new Response(body, { status: res.status, statusText: res.statusText, headers });
  };
}
