// The site's HTTP cache (src/web/http-cache.ts): a repeated GET is answered from the recorded response (same
// bytes, same headers, security headers included) without running the route again; new data is never answered
// with an old recording; If-None-Match still gives a 304 through hono/etag.
import { describe, expect, it } from 'vitest';
import { serveNode } from '../../src/entry/node.ts';
import { openMemoryStore } from '../../src/storage/sqlite.ts';
import { ResultCache } from '../../src/web/result-cache.ts';
import { createApp } from '../../src/web/app.ts';

const vote = (judge: string, questionId: number) => ({
  votes: [
    {
      source: `${judge}.csv`,
      items: [
        {
          judge,
          voter: 'v',
          questionId,
          turn: 1,
          model1: 'a',
          model2: 'b',
          winner: 'model_1' as const,
          line: 2,
        },
      ],
    },
  ],
});
const headers = (r: Response) => {
  const h: [string, string][] = [];
  r.headers.forEach((v, k) => h.push([k, v]));
  return h.sort();
};

describe('the HTTP cache', () => {
  it('a repeated GET replays the first response byte for byte, headers included, without running the route', async () => {
    const store = openMemoryStore();
    await store.importBundle(vote('human', 81));
    const cache = new ResultCache(store, { checkMs: 60_000 });
    const app = createApp({ store, resultCache: cache });
    const a = await app.request('/api/judges');
    const body = await a.text();
    // the route would now compute a different answer: only a replay can still give the first one
    let computed = 0;
    const get = cache.get.bind(cache);
    cache.get = ((k: string, f: () => Promise<unknown>) => (computed++, get(k, f))) as typeof cache.get;
    const b = await app.request('/api/judges');
    expect(await b.text()).toBe(body);
    // the recording adds Content-Length (a server adds it to the first response itself)
    expect(headers(b).filter(([k]) => k !== 'content-length')).toEqual(headers(a));
    expect(b.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(b.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(computed).toBe(0);
    // a conditional request goes through hono/etag: 304 with the same ETag
    const c = await app.request('/api/judges', { headers: { 'If-None-Match': a.headers.get('etag')! } });
    expect(c.status).toBe(304);
    expect(c.headers.get('etag')).toBe(a.headers.get('etag'));
    await store.close();
  });

  it('new data is never answered with an old recording', async () => {
    const store = openMemoryStore();
    await store.importBundle(vote('human', 81));
    const app = createApp({ store, cache: { checkMs: 0 } });
    const first = await (await app.request('/api/judges')).json();
    expect(await (await app.request('/api/judges')).json()).toEqual(first);
    await store.importBundle(vote('gpt-4', 82));
    expect(await (await app.request('/api/judges')).json()).toEqual([
      ...(first as object[]),
      { judge: 'gpt-4', games: 0, votes: 1 },
    ]);
    await store.close();
  });

  it('on Node the server in front of hono replays the same bytes and headers; conditional and other requests reach hono', async () => {
    const store = openMemoryStore();
    await store.importBundle(vote('human', 81));
    const cache = new ResultCache(store, { checkMs: 60_000 });
    const server = await serveNode(store, { port: 0, resultCache: cache });
    try {
      // the replay path serves clients that take no compressed body (a gzip client gets hono's compress)
      const identity = { headers: { 'Accept-Encoding': 'identity' } };
      const a = await fetch(`${server.url}/api/judges?`, identity);
      const body = await a.text();
      let computed = 0;
      const get = cache.get.bind(cache);
      cache.get = ((k: string, f: () => Promise<unknown>) => (computed++, get(k, f))) as typeof cache.get;
      const b = await fetch(`${server.url}/api/judges?`, identity);
      expect(await b.text()).toBe(body);
      const without = (r: Response) => headers(r).filter(([k]) => k !== 'date');
      expect(without(b)).toEqual(without(a));
      expect(b.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
      expect(computed).toBe(0);
      const c = await fetch(`${server.url}/api/judges?`, {
        headers: { 'If-None-Match': a.headers.get('etag')! },
      });
      expect(c.status).toBe(304);
      expect((await fetch(`${server.url}/api/judges`, { method: 'POST' })).status).toBe(405);
      expect((await fetch(`${server.url}/api/judges?junk=1`)).status).toBe(400);
    } finally {
      await server.close();
      await store.close();
    }
  });
});
