// Cold first visits of the leaderboard site, after `arena import` and after `arena start`, on Node (`arena serve`)
// and on the Worker (`wrangler dev` over a local D1 that `arena publish` filled): every page linked from the home
// page, each asked once of a server that has just started (a new process per page: nothing read, nothing cached),
// timed from sending to the last byte of the body, as a ratio to a static file served by the same server in the same
// run (`/robots.txt`: fixed bytes through the same app and the same process start). Prints measured figures; asserts
// nothing.
//   node --import tsx bench/site-cold.ts [--rounds 1] [--max-pages 40] [--node-only] [--keep DIR]
//   node --import tsx bench/site-cold.ts --persist DIR [--rounds 1]: the Worker only, over a D1 already published
// Databases: `arena import mtbench` (MTBENCH_DIR) and `arena start` (the release and, from JUDGE_LLAMA2_DIR, the
// study's judgments) into a temporary folder (--keep DIR keeps them there). CPU times are the server's own (/proc,
// all threads), read from outside, so measuring runs no code in the server.
import Database from 'better-sqlite3';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ARENA = fileURLToPath(new URL('../bin/arena.mjs', import.meta.url));
const WRANGLER = createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');
const CONFIG = fileURLToPath(new URL('../wrangler.toml', import.meta.url));
const ENV = { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', CI: '1' };
/** how long the server must have used (almost) no CPU before the request is sent */
const IDLE_MS = 200;
/** the static file every page is compared with */
export const FLOOR = '/robots.txt';

/** The CPU time (ms) of `pids` so far, all their threads; NaN where /proc is not there. */
export function cpuMsOf(...pids: number[]): number {
  let ns = 0;
  for (const pid of pids)
    try {
      for (const task of readdirSync(`/proc/${pid}/task`))
        try {
          ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
        } catch {
          // the thread ended meanwhile
        }
    } catch {
      return NaN;
    }
  return ns / 1e6;
}

/** The processes of group `pgid` (wrangler and its workerd). */
function group(pgid: number): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d)))
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid) out.push(Number(pid));
    } catch {
      // gone
    }
  return out;
}

interface Server {
  url: string;
  cpuMs(): number;
  stop(): void;
}

/** Resolves once `cpuMs` is idle: less than 1 ms of CPU in IDLE_MS (at most 10 s). */
async function idle(cpuMs: () => number): Promise<void> {
  let last = cpuMs();
  for (let waited = 0; waited < 10_000; waited += IDLE_MS) {
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const now = cpuMs();
    if (!(now - last >= 1)) return;
    last = now;
  }
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** `child`'s output until `pattern` matches (its first group), else an error with the output. */
function waitFor(child: ChildProcess, pattern: RegExp, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const on = (d: Buffer) => {
      out += d.toString();
      const m = pattern.exec(out);
      if (m) resolve(m[1] ?? '');
    };
    child.stdout?.on('data', on);
    child.stderr?.on('data', on);
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}): ${out.slice(-3000)}`)));
  });
}

/** `arena serve` over `db` on a free port, once listening and idle. */
async function nodeServer(db: string): Promise<Server> {
  const p = spawn(process.execPath, [ARENA, 'serve', '--db', db, '--port', '0'], { stdio: 'pipe' });
  const url = await waitFor(p, /leaderboard on (http:\/\/\S+?)\/?\s/, 'arena serve');
  const cpuMs = () => cpuMsOf(p.pid!);
  await idle(cpuMs);
  return { url, cpuMs, stop: () => p.kill() };
}

/** `wrangler dev` of the bundled Worker `script` over the local D1 in `persist`, once ready and idle. */
async function workerServer(script: string, persist: string): Promise<Server> {
  const port = await freePort();
  const p = spawn(
    process.execPath,
    [
      WRANGLER,
      'dev',
      script,
      '--no-bundle',
      '--config',
      CONFIG,
      '--local',
      '--persist-to',
      persist,
      '--port',
      String(port),
      '--ip',
      '127.0.0.1',
      '--inspector-port',
      String(await freePort()),
      '--show-interactive-dev-session=false',
    ],
    { env: ENV, stdio: 'pipe', detached: true },
  );
  await waitFor(p, /(Ready on)/, 'wrangler dev');
  const cpuMs = () => cpuMsOf(...group(p.pid!));
  await idle(cpuMs);
  return {
    url: `http://127.0.0.1:${port}`,
    cpuMs,
    stop: () => {
      try {
        process.kill(-p.pid!, 'SIGTERM');
      } catch {
        // gone already
      }
    },
  };
}

/**
 * The local D1's SQLite files with their write-ahead log folded in: workerd never checkpoints it (each wrangler dev is
 * stopped), so the first read of a new process would otherwise scan the whole log (tens of ms for the `arena start`
 * database), a cost of the local simulation that a deployed D1 does not have.
 */
function checkpointD1(persist: string): void {
  const dir = join(persist, 'v3', 'd1');
  for (const sub of readdirSync(dir))
    for (const f of readdirSync(join(dir, sub)).filter((x) => x.endsWith('.sqlite'))) {
      const db = new Database(join(dir, sub, f));
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
    }
}

/** The Worker bundled once as `wrangler deploy` bundles it (wrangler dev then runs it as it is). */
function bundleWorker(dir: string): string {
  const out = join(dir, 'worker');
  const r = spawnSync(
    process.execPath,
    [WRANGLER, 'deploy', '--dry-run', '--outdir', out, '--config', CONFIG],
    {
      env: ENV,
      encoding: 'utf8',
    },
  );
  const js = readdirSync(out).find((f) => f.endsWith('.js'));
  if (r.status !== 0 || !js) throw new Error(`wrangler deploy --dry-run failed:\n${r.stderr}`);
  return join(out, js);
}

/**
 * The site's own pages linked from the home page `html`: `/` first, then each other page once. A link's fragment
 * is not sent, and the sorting links (`?sort=...&dir=...`) are the page they sort: one of each is kept.
 */
export function pagesOf(html: string, max = 40): string[] {
  const seen = new Set<string>(['/']);
  for (const m of html.matchAll(/href="(\/[^"#]*)/g)) {
    const url = new URL(m[1]!.replace(/&amp;/g, '&'), 'http://x');
    if (/^\/(static|charts|favicon|api\/)/.test(url.pathname)) continue;
    url.searchParams.delete('sort');
    url.searchParams.delete('dir');
    seen.add(url.pathname + url.search);
  }
  return [...seen].slice(0, max);
}

export interface Cold {
  path: string;
  status: number;
  bytes: number;
  /** ms from sending the request to the end of the body, per round */
  ms: number[];
  /** the server's CPU time (ms) over the same request, per round */
  cpu: number[];
}

/** Each path's first visit of a new server from `start`, `rounds` times. */
async function coldVisits(start: () => Promise<Server>, paths: string[], rounds: number): Promise<Cold[]> {
  const out: Cold[] = paths.map((path) => ({ path, status: 0, bytes: 0, ms: [], cpu: [] }));
  for (let k = 0; k < rounds; k++)
    for (const c of out) {
      const s = await start();
      try {
        const c0 = s.cpuMs();
        const t0 = performance.now();
        const r = await fetch(s.url + c.path);
        const body = await r.arrayBuffer();
        c.ms.push(performance.now() - t0);
        c.cpu.push(s.cpuMs() - c0);
        c.status = r.status;
        c.bytes = body.byteLength;
      } finally {
        s.stop();
      }
    }
  return out;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Per page: status, bytes, median first visit and the server's median CPU over it, each with its ratio to the static
 * file's (the CPU ratio is the steadier one on a shared machine: the wall time is mostly the load's).
 */
function coldTable(title: string, rows: Cold[], goal = 1.5): string {
  const floor = rows.find((r) => r.path === FLOOR)!;
  const f = (x: number, w: number, d = 1) => x.toFixed(d).padStart(w);
  const lines = [title, `${'page'.padEnd(56)} status    bytes  median ms  x static  cpu ms  cpu x static`];
  const ms = (c: Cold) => median(c.ms) / median(floor.ms);
  const cpu = (c: Cold) => median(c.cpu) / median(floor.cpu);
  for (const c of rows)
    lines.push(
      `${c.path.slice(0, 55).padEnd(56)} ${String(c.status).padStart(6)} ${String(c.bytes).padStart(8)} ${f(median(c.ms), 10)} ${f(ms(c), 9, 2)} ${f(median(c.cpu), 7)} ${f(cpu(c), 13, 2)}`,
    );
  const pages = rows.filter((r) => r !== floor);
  const summary = (what: string, x: (c: Cold) => number) => {
    const r = pages.map(x).sort((a, b) => a - b);
    const over = pages.filter((c) => x(c) > goal).map((c) => c.path);
    return `${what} median ${median(r).toFixed(2)}, worst ${r.at(-1)!.toFixed(2)}, over ${goal}x: ${over.length ? over.join(', ') : 'none'}`;
  };
  lines.push(
    `${pages.length} pages as a ratio to the static file: ${summary('time', ms)}; ${summary('CPU', cpu)}; load average ${loadavg()[0]!.toFixed(1)}`,
  );
  return lines.join('\n');
}

/** `arena <args>`, its exit checked; `until`: stop it once its output matches (`arena start` serves). */
async function arena(args: string[], until?: RegExp): Promise<void> {
  const p = spawn(process.execPath, [ARENA, ...args], { stdio: 'pipe', env: ENV });
  if (until) {
    await waitFor(p, until, `arena ${args[0]}`);
    p.kill();
    await new Promise((r) => p.once('exit', r));
    return;
  }
  let err = '';
  p.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise((r) => p.once('exit', r));
  if (code !== 0) throw new Error(`arena ${args.join(' ')} exited ${code}: ${err.slice(-3000)}`);
}

async function main(): Promise<void> {
  const arg = (name: string, d: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1]! : d;
  };
  const rounds = Number(arg('rounds', '1'));
  const max = Number(arg('max-pages', '40'));
  const published = arg('persist', '');
  if (published) {
    const tmp = mkdtempSync(join(tmpdir(), 'arena-bench-cold-'));
    const worker = bundleWorker(tmp);
    checkpointD1(published);
    const first = await workerServer(worker, published);
    const home = await (await fetch(`${first.url}/`)).text();
    first.stop();
    const paths = [FLOOR, ...pagesOf(home, max)];
    const rows = await coldVisits(() => workerServer(worker, published), paths, rounds);
    console.log(coldTable(`Worker (wrangler dev) over the D1 in ${published}:`, rows));
    rmSync(tmp, { recursive: true, force: true });
    return;
  }
  const keep = arg('keep', '');
  const dir = keep || mkdtempSync(join(tmpdir(), 'arena-bench-cold-'));
  mkdirSync(dir, { recursive: true });
  const dbs = { 'arena import': join(dir, 'import.db'), 'arena start': join(dir, 'start.db') };
  const t0 = performance.now();
  const release = process.env.MTBENCH_DIR ?? fileURLToPath(new URL('../../shared/mt_bench', import.meta.url));
  await arena(['import', 'mtbench', '--db', dbs['arena import'], '--dir', release]);
  const importS = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  await arena(['start', '--db', dbs['arena start'], '--port', '0'], /(leaderboard on)/);
  const startS = (performance.now() - t1) / 1000;
  console.log(
    `bench/site-cold: first visits after a restart, ${rounds} round(s), node ${process.version}, ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(
        ' ',
      )}; arena import mtbench ${importS.toFixed(1)} s, arena start (until listening) ${startS.toFixed(1)} s (both build the reports and pages)`,
  );
  const worker = process.argv.includes('--node-only') ? undefined : bundleWorker(dir);
  try {
    for (const [made, db] of Object.entries(dbs)) {
      const first = await nodeServer(db);
      const home = await (await fetch(`${first.url}/`)).text();
      first.stop();
      const paths = [FLOOR, ...pagesOf(home, max)];
      console.log(coldTable(`\nNode, after ${made}:`, await coldVisits(() => nodeServer(db), paths, rounds)));
      if (!worker) continue;
      const persist = join(dir, `d1-${made.split(' ')[1]}`);
      const apply = spawnSync(
        process.execPath,
        [
          WRANGLER,
          'd1',
          'migrations',
          'apply',
          'mt-arena',
          '--local',
          '--persist-to',
          persist,
          '--config',
          CONFIG,
        ],
        { env: ENV, encoding: 'utf8' },
      );
      if (apply.status !== 0) throw new Error(`wrangler d1 migrations apply failed: ${apply.stderr}`);
      await arena(['publish', '--db', db, '--persist-to', persist]);
      checkpointD1(persist);
      console.log(
        coldTable(
          `\nWorker (wrangler dev), after ${made} and arena publish:`,
          await coldVisits(() => workerServer(worker, persist), paths, rounds),
        ),
      );
    }
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
