// Every answer of `arena serve`, any method and status (200, 404, 403, 405), carries the security headers and its
// length; HEAD answers with its GET's headers and no body. Over node:http, so no header is added unasked.
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playOwn, serveArena, tmpDir, type ServingArena } from '../support/cli.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function send(url: string, method: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

const PATHS: [path: string, status: number][] = [
  ['/', 200],
  ['/runs', 200],
  ['/api/leaderboard', 200],
  ['/api/runs', 200],
  ['/no-such-page', 404],
  ['/api/no-such-endpoint', 404],
  ['/static/no-such-file.css', 404],
  ['/api/admin/purge', 403],
];

function expectGuarded(a: Answer, what: string): void {
  expect(a.headers['content-security-policy'], what).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
  expect(a.headers['x-frame-options'], what).toBe('DENY');
  expect(a.headers['x-content-type-options'], what).toBe('nosniff');
  expect(a.headers['referrer-policy'], what).toBe('no-referrer');
}

describe('arena serve: headers on every answer', { timeout: 180_000 }, () => {
  let served: ServingArena;
  beforeAll(async () => {
    const db = join(tmpDir(), 'arena.db');
    await playOwn(db, 'mock/longer', 'arena-sage,arena-echo', ['--turns', '1']);
    served = await serveArena(['serve', '--db', db, '--port', '0']);
  }, 120_000);
  afterAll(async () => {
    await served?.stop();
  });

  it.each(PATHS)(
    'GET and HEAD %s (%i): CSP, no framing, nosniff, Content-Length; HEAD = GET without the body',
    async (path, status) => {
      const get = await send(served.url + path, 'GET');
      const head = await send(served.url + path, 'HEAD');
      expect(get.status, `GET ${path}`).toBe(status);
      expect(head.status, `HEAD ${path}`).toBe(status);
      expectGuarded(get, `GET ${path}`);
      expectGuarded(head, `HEAD ${path}`);
      expect(get.body.length, `GET ${path}`).toBeGreaterThan(0);
      expect(get.headers['content-length'], `GET ${path}`).toBe(String(get.body.length));
      expect(head.headers['content-length'], `HEAD ${path}`).toBe(String(get.body.length));
      expect(head.body.length, `HEAD ${path}`).toBe(0);
      expect(head.headers['content-type'], `HEAD ${path}`).toBe(get.headers['content-type']);
      expect(head.headers['cache-control'], `HEAD ${path}`).toBe(get.headers['cache-control']);
      expect(head.headers['etag'], `HEAD ${path}`).toBe(get.headers['etag']);
    },
  );

  it('a refused write (405) and a compressed HEAD carry the same headers', async () => {
    const post = await send(served.url + '/', 'POST');
    expect(post.status).toBe(405);
    expectGuarded(post, 'POST /');
    expect(post.headers['content-length']).toBe(String(post.body.length));
    const gz = { 'Accept-Encoding': 'gzip' };
    const get = await send(served.url + '/', 'GET', gz);
    const head = await send(served.url + '/', 'HEAD', gz);
    expect(get.headers['content-encoding']).toBe('gzip');
    expect(head.headers['content-encoding']).toBe('gzip');
    expectGuarded(get, 'GET / gzip');
    expectGuarded(head, 'HEAD / gzip');
    expect(head.body.length).toBe(0);
  });
});
