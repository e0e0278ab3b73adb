import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/** The most bytes of one reply body read from a judge server: a longer one fails the call as it passes the cap. */
export const MAX_REPLY_BYTES = 4 * 1024 * 1024;

/** A reply body over the cap (not retried: the same server would send it again). */
export class ReplyTooLargeError extends Error {
  constructor(
    readonly limit: number,
    readonly url: string,
  ) {
    super(
      `the reply from ${url} is larger than ${limit} bytes; it was not read (a judge reply is capped at ${limit} bytes)`,
    );
    this.name = 'ReplyTooLargeError';
  }
}

/**
 * A `fetch` for the OpenAI SDK on node:http(s) with keep-alive, for the one shape a judge call has (a string or
 * byte body, a JSON reply read whole); anything else goes to the global fetch, whose per-call Requests, web
 * streams and abort plumbing cost more CPU than the call itself at tournament scale (bench/README.md).
 */
export const httpFetch: typeof fetch = (input, init = {}) => cappedFetch(input, init, MAX_REPLY_BYTES);

/** httpFetch with a cap of `maxBytes` on the reply body. */
export function cappedFetch(
  input: Parameters<typeof fetch>[0],
  init: RequestInit = {},
  maxBytes = MAX_REPLY_BYTES,
): Promise<Response> {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : undefined;
  const body = init.body;
  if (
    url === undefined ||
    !(body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array)
  )
    return fetch(input, init);
  const u = new URL(url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return fetch(input, init);
  const signal = init.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const headers: Record<string, string> = {};
    (init.headers instanceof Headers ? init.headers : new Headers(init.headers)).forEach(
      (v, k) => (headers[k] = v),
    );
    // a string body is written as it is (no copy into a Buffer first)
    const data = body ?? undefined;
    if (data !== undefined)
      headers['content-length'] = String(
        typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength,
      );
    const https = u.protocol === 'https:';
    const req = (https ? httpsRequest : httpRequest)(u, {
      method: init.method ?? 'GET',
      headers,
      agent: https ? agents.https : agents.http,
    });
    const onAbort = () =>
      req.destroy(
        signal!.reason instanceof Error
          ? signal!.reason
          : new DOMException('This operation was aborted', 'AbortError'),
      );
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    req.on('error', (e) => {
      done();
      reject(e);
    });
    req.on('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const tooLarge = () => {
        done();
        reject(new ReplyTooLargeError(maxBytes, `${u.origin}${u.pathname}`));
        req.destroy();
      };
      if (Number(res.headers['content-length']) > maxBytes) return tooLarge();
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) return tooLarge();
        chunks.push(c);
      });
      res.on('error', (e) => {
        done();
        reject(e);
      });
      res.on('close', () => {
        if (res.complete) return;
        done();
        reject(new Error('the connection closed before the response ended'));
      });
      res.on('end', () => {
        done();
        const h = new ReplyHeaders(res.rawHeaders);
        const status = res.statusCode ?? 0;
        const nullBody = status === 204 || status === 304 || init.method === 'HEAD';
        resolve(
          new BufferedResponse(
            nullBody ? null : Buffer.concat(chunks),
            status,
            res.statusMessage ?? '',
            h,
            url,
          ) as unknown as Response,
        );
      });
    });
    req.end(data);
  });
}

/**
 * A reply's headers with the reading half of `Headers`, as fetch joins them: undici's `Headers` validates and
 * re-sorts on each iteration, and the SDK iterates them twice a call (bench/README.md). The SDK's debug log
 * (OPENAI_LOG=debug) shows them as {}: it reads a non-`Headers` object with Object.entries.
 */
export class ReplyHeaders implements Iterable<[string, string]> {
  readonly #map = new Map<string, string>();
  readonly #cookies: string[] = [];
  constructor(raw: readonly string[]) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      const value = raw[i + 1]!;
      if (name === 'set-cookie') this.#cookies.push(value);
      const had = this.#map.get(name);
      this.#map.set(name, had === undefined ? value : `${had}, ${value}`);
    }
  }
  get(name: string): string | null {
    return this.#map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.#map.has(name.toLowerCase());
  }
  getSetCookie(): string[] {
    return [...this.#cookies];
  }
  *entries(): IterableIterator<[string, string]> {
    for (const k of [...this.#map.keys()].sort())
      if (k === 'set-cookie') for (const c of this.#cookies) yield [k, c];
      else yield [k, this.#map.get(k)!];
  }
  *keys(): IterableIterator<string> {
    for (const [k] of this.entries()) yield k;
  }
  *values(): IterableIterator<string> {
    for (const [, v] of this.entries()) yield v;
  }
  forEach(f: (value: string, name: string, parent: ReplyHeaders) => void): void {
    for (const [k, v] of this.entries()) f(v, k, this);
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/**
 * The reply as the SDK reads it, on the body already buffered here: a `Response` built from a Buffer reads it
 * back through a web stream, a visible share of a tournament's CPU (bench/README.md).
 */
class BufferedResponse {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  /** no stream: the SDK cancels `body` only when it is an object */
  readonly body = null;
  bodyUsed = false;
  constructor(
    private readonly bytes: Buffer | null,
    readonly status: number,
    readonly statusText: string,
    readonly headers: ReplyHeaders,
    readonly url: string,
  ) {
    this.ok = status >= 200 && status <= 299;
  }

  private take(): Buffer {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    this.bodyUsed = true;
    return this.bytes ?? Buffer.alloc(0);
  }

  /** UTF-8, a leading BOM dropped, as `Response.text()` */
  async text(): Promise<string> {
    return new TextDecoder().decode(this.take());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = this.take();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  async blob(): Promise<Blob> {
    return new Blob([new Uint8Array(this.take())], { type: this.headers.get('content-type') ?? '' });
  }

  clone(): BufferedResponse {
    if (this.bodyUsed) throw new TypeError('Response.clone: Body has already been consumed.');
    return new BufferedResponse(this.bytes, this.status, this.statusText, this.headers, this.url);
  }
}
