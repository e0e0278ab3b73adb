// Node entry: the leaderboard app over a SQLite file, served by @hono/node-server.
// `node --import tsx src/entry/node.ts <db> [port] [host]`, or use `arena serve` (src/cli/commands/serve.ts).
import { serve, type ServerType } from '@hono/node-server';
import { createServer, get, type RequestListener } from 'node:http';
import { pathToFileURL } from 'node:url';
import { deflateSync, gzipSync } from 'node:zlib';
import { openSqliteStore, type SqliteStore } from '../storage/sqlite.ts';
import type { Store } from '../storage/store.ts';
import { createApp, type AppOptions } from '../web/app.ts';
import { takesCompressed } from '../web/http-cache.ts';

export interface NodeServer {
  server: ServerType;
  url: string;
  close(): Promise<void>;
}

/**
 * The site for @hono/node-server's `serve`: hono's fetch (compressing whole bodies with zlib), and a `createServer` that puts a
 * plain node:http handler in front of it: a plain GET of a URL the app answered before, in the same data version,
 * from a client that does not take compressed bodies, gets the recorded bytes and headers without going through
 * hono (src/web/http-cache.ts); anything else goes to the app.
 */
export function nodeSite(o: AppOptions): {
  fetch: ReturnType<typeof createApp>['fetch'];
  createServer: typeof createServer;
  /** call before listening: the first request's fixed costs, paid ahead (createApp's `warm`) */
  warm(): Promise<void>;
} {
  // over SQLite the data fingerprint is read again only when the database may have changed (PRAGMA data_version)
  const sqlite = o.store as Partial<Pick<SqliteStore, 'dataVersion'>>;
  const version = typeof sqlite.dataVersion === 'function' ? () => sqlite.dataVersion!() : undefined;
  const app = createApp({
    // whole bodies through zlib, not a web stream per response (src/web/compress.ts)
    compress: (body, encoding) => (encoding === 'gzip' ? gzipSync(body) : deflateSync(body)),
    ...o,
    ...(version && !o.resultCache ? { cache: { version, ...o.cache } } : {}),
  });
  const front = (_: unknown, listener: RequestListener) =>
    createServer((req, res) => {
      // a client that takes compressed bodies gets them from the app's compression (src/web/compress.ts)
      const hit =
        req.method === 'GET' &&
        req.headers['if-none-match'] === undefined &&
        !takesCompressed(req.headers['accept-encoding']) &&
        req.url
          ? app.replayed(req.url)
          : undefined;
      if (hit) res.writeHead(200, hit.headers).end(hit.body);
      else listener(req, res);
    });
  return { fetch: app.fetch, createServer: front as unknown as typeof createServer, warm: app.warm };
}

/**
 * One request over HTTP to a server that has just started listening on `host`:`port`, before it says so: the
 * socket, node:http's parser, @hono/node-server's Request and Response and a compressed body streamed out are
 * compiled then rather than on the first visitor's request (a page that does not exist; nothing is cached).
 * Never fails: a warm-up that cannot connect only leaves that cost to the first visitor.
 */
export function warmOverHttp(host: string, port: number): Promise<void> {
  const to = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return new Promise((resolve) => {
    const req = get(
      { host: to, port, path: '/.well-known/arena-warm-up', headers: { 'Accept-Encoding': 'gzip' } },
      (res) =>
        res
          .on('end', resolve)
          .on('error', () => resolve())
          .resume(),
    );
    req.on('error', () => resolve());
  });
}

/** Serve the app over a store; resolves once listening (port 0 picks a free port). */
export async function serveNode(
  store: Store,
  o: { port?: number; host?: string } & Omit<AppOptions, 'store'> = {},
): Promise<NodeServer> {
  const host = o.host ?? '127.0.0.1';
  const { warm, ...site } = nodeSite({ ...o, store });
  // the first visitor after a restart pays for their page only (src/web/app.ts `warm`)
  await warm();
  return new Promise((resolve) => {
    const server = serve(
      { ...site, port: o.port ?? 3000, hostname: host },
      (info) =>
        void warmOverHttp(host, info.port).then(() =>
          resolve({
            server,
            url: `http://${host === '0.0.0.0' ? 'localhost' : host}:${info.port}`,
            close: () => new Promise<void>((r) => server.close(() => r())),
          }),
        ),
    );
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [db = './arena.db', port = process.env.PORT ?? '3000', host = '127.0.0.1'] = process.argv.slice(2);
  const store = openSqliteStore(db);
  const s = await serveNode(store, {
    port: Number(port),
    host,
    ...(process.env.ARENA_ADMIN_TOKEN ? { adminToken: process.env.ARENA_ADMIN_TOKEN } : {}),
  });
  process.stdout.write(`leaderboard on ${s.url}/\n`);
  const stop = () => void s.close().then(() => store.close());
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
