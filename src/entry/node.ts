// Node entry: `node --import tsx src/entry/node.ts <db> [port] [host]`, or `arena serve`.
import { serve, type ServerType } from '@hono/node-server';
import { get } from 'node:http';
import { pathToFileURL } from 'node:url';
import { deflateSync, gzipSync } from 'node:zlib';
import { openSqliteStore, type SqliteStore } from '../storage/sqlite.ts';
import type { Store } from '../storage/store.ts';
import { createApp, type AppOptions } from '../web/app.ts';

export interface NodeServer {
  server: ServerType;
  url: string;
  close(): Promise<void>;
}

/** The site for @hono/node-server's `serve`: hono's fetch, compressing whole bodies with zlib. */
export function nodeSite(o: AppOptions): { fetch: ReturnType<typeof createApp>['fetch'] } {
  // over SQLite the data fingerprint is read again only when the database may have changed (PRAGMA data_version)
  const sqlite = o.store as Partial<Pick<SqliteStore, 'dataVersion'>>;
  const version = typeof sqlite.dataVersion === 'function' ? () => sqlite.dataVersion!() : undefined;
  const app = createApp({
    // whole bodies through zlib, not a web stream per response (src/web/compress.ts)
    compress: (body, encoding) => (encoding === 'gzip' ? gzipSync(body) : deflateSync(body)),
    pages: true,
    ...o,
    ...(version ? { cache: { version, ...o.cache } } : {}),
  });
  return { fetch: app.fetch };
}

/**
 * One request (to a page that does not exist) over HTTP to a server that has just started listening, before it
 * says so: the request path is compiled then, not on the first visitor's request. Never fails.
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

/** Serve the app over a store; resolves once listening (port 0 picks a free port), rejects if it cannot listen. */
export async function serveNode(
  store: Store,
  o: { port?: number; host?: string } & Omit<AppOptions, 'store'> = {},
): Promise<NodeServer> {
  const host = o.host ?? '127.0.0.1';
  const site = nodeSite({ ...o, store });
  return new Promise((resolve, reject) => {
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
    server.once('error', reject);
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
