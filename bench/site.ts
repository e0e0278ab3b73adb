// Requests per second and latency of the leaderboard site on the MT-Bench release database, under 64
// concurrent connections (autocannon), against a static server answering with the same bytes from the
// same Node process. Prints measured figures; asserts nothing.
//   node --import tsx bench/site.ts [--db arena.db] [--seconds 5] [--rounds 3] [--warmup 5] [--connections 64] [--paths /,/api/...]
// First visits after a restart, on Node and on the Worker: bench/site-cold.ts.
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
const seconds = Number(arg('seconds', '5'));
const rounds = Number(arg('rounds', '3'));
const warmup = Number(arg('warmup', '5'));
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

const server = spawn(
  process.execPath,
  ['--import', 'tsx', fileURLToPath(new URL('./site-server.ts', import.meta.url)), db],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
const lines = createInterface({ input: server.stdout! })[Symbol.asyncIterator]();
const next = async () => JSON.parse((await lines.next()).value as string);
const { app, static: stat } = (await next()) as { app: string; static: string };

interface Fig {
  rps: number;
  /** the server process' CPU time per request (µs): steadier than req/s on a shared machine */
  cpu: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  requests: number;
}
const cpu = async () => {
  server.stdin!.write('cpu\n');
  return ((await next()) as { cpuUs: number }).cpuUs;
};
async function load(url: string): Promise<Fig> {
  const c0 = await cpu();
  const r = await autocannon({ url, connections, duration: seconds, pipelining: 1 });
  const used = (await cpu()) - c0;
  return {
    rps: r.requests.average,
    cpu: used / Math.max(1, r.requests.total),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    requests: r.requests.total,
  };
}

/** The median round by req/s, with the worst p99 and the summed errors and requests of all rounds. */
function combine(fs: Fig[]): Fig {
  const m = [...fs].sort((x, y) => x.rps - y.rps)[Math.floor(fs.length / 2)]!;
  return {
    rps: m.rps,
    cpu: Math.min(...fs.map((f) => f.cpu)),
    p50: m.p50,
    p99: Math.max(...fs.map((f) => f.p99)),
    errors: fs.reduce((t, f) => t + f.errors, 0),
    non2xx: fs.reduce((t, f) => t + f.non2xx, 0),
    requests: fs.reduce((t, f) => t + f.requests, 0),
  };
}
const row = (label: string, f: Fig) =>
  `${label.padEnd(8)} ${f.rps.toFixed(0).padStart(8)} ${f.cpu.toFixed(0).padStart(7)} ${f.p50.toFixed(1).padStart(7)} ${f.p99.toFixed(1).padStart(7)} ${String(f.errors).padStart(6)} ${String(f.non2xx).padStart(6)} ${String(f.requests).padStart(9)}`;
console.log(
  `bench/site: ${connections} connections, ${rounds} interleaved rounds of ${seconds} s per server (median req/s, worst p99), node ${process.version}, ${cpus().length} cores, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} (autocannon shares the machine), database ${db}`,
);
try {
  for (const path of PATHS) {
    server.stdin!.write(`load ${path}\n`);
    const loaded = (await next()) as { status: number; bytes: number };
    await fetch(app + path); // what the route reads is held now (the first request read it)
    // a warm-up of both servers (JIT, sockets, heap) that is not counted: a cold Node process is several
    // times slower for its first few seconds, which would otherwise land on whichever path is measured first
    await autocannon({ url: app + path, connections, duration: warmup });
    await autocannon({ url: stat + path, connections, duration: warmup });
    // interleaved rounds (app, static, app, static, ...): a load change on this shared machine hits both
    const as: Fig[] = [];
    const ss: Fig[] = [];
    for (let k = 0; k < rounds; k++) {
      as.push(await load(app + path));
      ss.push(await load(stat + path));
    }
    const a = combine(as);
    const s = combine(ss);
    console.log(`\n${path}  (${loaded.bytes} bytes, status ${loaded.status})`);
    console.log(`server       req/s  cpu µs  p50 ms  p99 ms errors non2xx  requests`);
    console.log(row('app', a));
    console.log(row('static', s));
    console.log(`load average now: ${loadavg()[0]!.toFixed(1)}`);
    console.log(
      `ratio app/static req/s: ${(a.rps / s.rps).toFixed(2)}, static/app server CPU per request: ${(s.cpu / a.cpu).toFixed(2)}  (goal >= 0.5; p99 goal < 25 ms: ${a.p99 < 25 ? 'met' : 'not met'}; errors: ${a.errors + a.non2xx})`,
    );
  }
} finally {
  server.kill();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}
