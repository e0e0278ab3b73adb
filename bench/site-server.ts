// The process bench/site.ts measures: the site over a SQLite database, and beside it, in the same
// process, a plain node:http server that answers with fixed bytes (the static-file baseline).
// Prints one JSON line {app, static} with both ports, then serves until killed.
import { createServer } from 'node:http';
import { serveNode } from '../src/entry/node.ts';
import { openSqliteStore } from '../src/storage/sqlite.ts';

const [db] = process.argv.slice(2);
if (!db) throw new Error('usage: site-server.ts <db>');
const store = openSqliteStore(db, { readonly: true });
// as `arena serve` runs it: the stored pages, and live pages from the stored reports
const app = await serveNode(store, { port: 0 });

// the static baseline serves exactly the bytes the app serves for the same path (fetched once)
const bytes = new Map<string, { body: Buffer; type: string }>();
const stat = createServer((req, res) => {
  const b = bytes.get(req.url ?? '');
  if (!b) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'Content-Type': b.type, 'Content-Length': b.body.length }).end(b.body);
});
await new Promise<void>((r) => stat.listen(0, '127.0.0.1', r));
process.stdin.on('data', async (d) => {
  // "load <path>": fetch a path from the app and serve the same bytes statically; "cpu": this process' CPU time so far
  for (const line of d.toString().split('\n').filter(Boolean)) {
    if (line === 'cpu') {
      const u = process.cpuUsage();
      process.stdout.write(`${JSON.stringify({ cpuUs: u.user + u.system })}\n`);
      continue;
    }
    const path = line.replace(/^load /, '');
    const r = await fetch(app.url + path);
    bytes.set(path, {
      body: Buffer.from(await r.arrayBuffer()),
      type: r.headers.get('content-type') ?? 'application/octet-stream',
    });
    process.stdout.write(
      `${JSON.stringify({ loaded: path, status: r.status, bytes: bytes.get(path)!.body.length })}\n`,
    );
  }
});
process.stdout.write(
  `${JSON.stringify({ app: app.url, static: `http://127.0.0.1:${(stat.address() as { port: number }).port}` })}\n`,
);
