import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { httpFetch, ReplyHeaders } from '../../src/judges/http-fetch.ts';

// raw header lists as node:http hands them over (name, value, name, value...)
const RAW: string[][] = [
  ['Content-Type', 'application/json', 'X-Request-Id', 'req_1', 'content-length', '12'],
  ['Retry-After', '3', 'retry-after-ms', '2500', 'X-Should-Retry', 'true'],
  ['Vary', 'Origin', 'vary', 'Accept-Encoding', 'VARY', 'Cookie'],
  ['Set-Cookie', 'a=1; Path=/', 'set-cookie', 'b=2', 'Date', 'Sun, 22 Nov 2026 22:00:00 GMT'],
  ['b', '2', 'A', '1', 'c', '3', 'a', 'again'],
  [],
];

describe('ReplyHeaders', () => {
  it('reads as fetch Headers would, for every raw list: get, has, sorted iteration, getSetCookie', () => {
    for (const raw of RAW) {
      const h = new Headers();
      for (let i = 0; i < raw.length; i += 2) h.append(raw[i]!, raw[i + 1]!);
      // undici's Headers is iterable at run time; the project's TS lib (no DOM) does not declare it
      const want = h as unknown as ReplyHeaders;
      const got = new ReplyHeaders(raw);
      expect([...got]).toEqual([...want]);
      expect([...got.entries()]).toEqual([...want.entries()]);
      expect([...got.keys()]).toEqual([...want.keys()]);
      expect([...got.values()]).toEqual([...want.values()]);
      expect(got.getSetCookie()).toEqual(want.getSetCookie());
      const seen: string[] = [];
      got.forEach((v, k) => seen.push(`${k}=${v}`));
      const wantSeen: string[] = [];
      want.forEach((v, k) => wantSeen.push(`${k}=${v}`));
      expect(seen).toEqual(wantSeen);
      for (const name of [
        'content-type',
        'X-REQUEST-ID',
        'retry-after',
        'vary',
        'set-cookie',
        'a',
        'missing',
      ])
        expect([got.get(name), got.has(name)]).toEqual([want.get(name), want.has(name)]);
    }
  });

  it("is what httpFetch's replies carry, over real HTTP (repeated headers included)", async () => {
    const server = createServer((_req, res) => {
      res.setHeader('Retry-After', '7');
      res.setHeader('X-Multi', ['one', 'two']);
      res.setHeader('Content-Type', 'application/json');
      res.end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const r = await httpFetch(url, { method: 'POST', body: '{}' });
      expect(r.headers).toBeInstanceOf(ReplyHeaders);
      expect(r.headers.get('retry-after')).toBe('7');
      expect(r.headers.get('x-multi')).toBe('one, two');
      expect(await r.json()).toEqual({ ok: true });
    } finally {
      server.close();
    }
  });
});
