// Requests per second and latency of the leaderboard site on the MT-Bench release database, under 64
// concurrent connections (autocannon), against a static server answering with the same bytes from the
// same Node process. Prints measured figures; asserts nothing.
//   node --import tsx bench/site.ts [--db arena.db] [--seconds 10] [--connections 64]
// Without --db it imports the release from MTBENCH_DIR into a temporary database first.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { importFiles, mtbenchSources } from '../src/importers/import.ts';
import { openSqliteStore } from '../src/storage/sqlite.ts';

const arg = (name: string, d: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : d;
};
const seconds = Number(arg('seconds', '10'));
const connections = Number(arg('connections', '64'));
const PATHS = arg('paths', '/,/api/leaderboard?judge=gpt-4,/api/standings?judge=gpt-4').split(',');

let db = arg('db', '');
let tmp: string | undefined;
if (!db) {
  const dir = process.env.MTBENCH_DIR ?? join(process.cwd(), '..', 'shared', 'mt_bench');
  tmp = mkdtempSync(join(tmpdir(), 'arena-bench-site-'));
  db = join(tmp, 'mtbench.db');
  const store = openSqliteStore(db);
  await importFiles(store, mtbenchSources(dir));
  await store.close();
}

const server = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./site-server.ts', import.meta.url)), db], { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = createInterface({ input: server.stdout! })[Symbol.asyncIterator]();
const next = async () => JSON.parse((await lines.next()).value as string);
const { app, static: stat } = (await next()) as { app: string; static: string };

interface Fig {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  requests: number;
}
async function load(url: string): Promise<Fig> {
  const r = await autocannon({ url, connections, duration: seconds, pipelining: 1 });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx, requests: r.requests.total };
}

const row = (label: string, f: Fig) => `${label.padEnd(8)} ${f.rps.toFixed(0).padStart(8)} ${f.p50.toFixed(1).padStart(7)} ${f.p99.toFixed(1).padStart(7)} ${String(f.errors).padStart(6)} ${String(f.non2xx).padStart(6)} ${String(f.requests).padStart(9)}`;
console.log(`bench/site: ${connections} connections, ${seconds} s per run, node ${process.version}, ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} (autocannon shares the machine), database ${db}`);
try {
  for (const path of PATHS) {
    server.stdin!.write(`load ${path}\n`);
    const loaded = (await next()) as { status: number; bytes: number };
    await fetch(app + path); // the app's cache is warm now (the first request computed it)
    // a short warm-up of both servers (JIT, sockets) that is not counted
    await autocannon({ url: app + path, connections, duration: 2 });
    await autocannon({ url: stat + path, connections, duration: 2 });
    const a = await load(app + path);
    const s = await load(stat + path);
    console.log(`\n${path}  (${loaded.bytes} bytes, status ${loaded.status})`);
    console.log(`server       req/s  p50 ms  p99 ms errors non2xx  requests`);
    console.log(row('app', a));
    console.log(row('static', s));
    console.log(`load average now: ${loadavg()[0]!.toFixed(1)}`);
    console.log(`ratio app/static req/s: ${(a.rps / s.rps).toFixed(2)}  (goal >= 0.5; p99 goal < 25 ms: ${a.p99 < 25 ? 'met' : 'not met'}; errors: ${a.errors + a.non2xx})`);
  }
} finally {
  server.kill();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}
