// The Worker's first request per page after a (re)start, split: `wrangler dev` over a local D1 that `arena publish`
// filled, one new wrangler dev (a new isolate, nothing cached) per page. Three figures per page, each beside the same
// figure of a floor measured in the same run:
//   start-up: workerd's CPU time (/proc) from its start until the Worker is loaded and idle (bundle parse and
//             compile, module top-level work), against a Worker of one fixed answer (bench/worker-floor.ts);
//   handler:  the request's JavaScript and GC time in a V8 CPU profile of the Worker's isolate, taken through
//             wrangler's inspector (workerd's clocks stand still while JavaScript runs, so the Worker cannot time
//             itself), split by the bundle's module each sample's function comes from; against /robots.txt;
//   D1 wait:  the time the request waited for D1, timed by the Worker's own clock across each D1 call (it moves
//             only across I/O), and the number of calls (bench/worker-timed.ts, the Worker with its binding timed).
// Prints measured figures; asserts nothing.
//   node --import tsx bench/site-worker.ts --persist DIR [--pages /,/judges] [--rounds 1] [--save DIR]
// DIR: a --persist-to folder with the published D1 (`wrangler d1 migrations apply mt-arena --local --persist-to DIR`,
// then `arena publish --db arena.db --persist-to DIR`). Without --pages: the floor (/robots.txt) and every page
// that `/` links to (as bench/site-cold.ts picks them). --save keeps each first request's profile (.cpuprofile).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Duplex } from 'node:stream';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { pagesOf } from './site-cold.ts';

const arg = (name: string, d: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : d;
};
const persist = arg('persist', '');
if (!persist) throw new Error('usage: bench/site-worker.ts --persist DIR [--pages /,/judges] [--rounds 1]');
const rounds = Number(arg('rounds', '1'));
const WRANGLER = createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');
/** the profiler's sampling interval (µs) */
const SAMPLE_US = 100;
/**
 * The most one sample counts (ms). V8 samples by a signal to the thread running JavaScript, so a sample follows
 * the previous one by its interval (0.2-0.25 ms in practice) while the thread runs; a longer gap is the thread
 * descheduled by the machine's load (up to 150 ms at load average 27), not JavaScript running.
 */
const SAMPLE_CAP_MS = 1;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/**
 * `script` bundled as `wrangler deploy` bundles it (the same esbuild settings, wrangler.toml's defines), into a
 * folder of its own: wrangler dev then runs this file as it is (--no-bundle), so a profile's line numbers are the
 * bundle's, whose `// path` comments name each module.
 */
function bundled(script: string): string {
  const out = mkdtempSync(join(tmpdir(), 'site-worker-'));
  const r = spawnSync(
    process.execPath,
    [WRANGLER, 'deploy', '--dry-run', '--outdir', out, fileURLToPath(new URL(script, import.meta.url))],
    {
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', CI: '1' },
    },
  );
  const js = readdirSync(out).find((f) => f.endsWith('.js'));
  if (r.status !== 0 || !js) throw new Error(`wrangler deploy --dry-run ${script} failed:\n${r.stderr}`);
  return join(out, js);
}
const CONFIG = fileURLToPath(new URL('../wrangler.toml', import.meta.url));
const TIMED = bundled('./worker-timed.ts');
const FLOOR = bundled('./worker-floor.ts');

/**
 * wrangler dev of `script` over `persist`, ready to take its first request (nothing asked of the Worker yet), and
 * workerd's CPU time (ms) until then: measured once the Worker is loaded and workerd has been idle for a while.
 */
async function startDev(script = TIMED) {
  const [port, inspector] = [await freePort(), await freePort()];
  const child = spawn(
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
      String(inspector),
      '--show-interactive-dev-session=false',
    ],
    {
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // gone already
    }
  };
  const deadline = Date.now() + 180_000;
  while (!/Ready on/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      stop();
      throw new Error(`wrangler dev did not start:\n${out.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  // the inspector lists the user Worker once it is loaded
  let ws = '';
  while (!ws) {
    try {
      const list = (await (await fetch(`http://127.0.0.1:${inspector}/json`)).json()) as {
        webSocketDebuggerUrl: string;
      }[];
      ws = list[0]?.webSocketDebuggerUrl ?? '';
    } catch {
      // not yet
    }
    if (!ws) await new Promise((r) => setTimeout(r, 200));
  }
  const cpuMs = () => groupCpuMs(child.pid!, 'workerd');
  // settled: no CPU used over the last half second (at most 10 s)
  let startup = cpuMs();
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = cpuMs();
    if (now === startup) break;
    startup = now;
  }
  return { url: `http://127.0.0.1:${port}`, ws, stop, cpuMs, startup };
}

/** CPU time (ms, user + system) so far of the processes named `comm` in process group `pgid` (Linux /proc). */
function groupCpuMs(pgid: number, comm: string): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // the fields after the name: state ppid pgrp ...; utime and stime are the 12th and 13th
    if (name === comm && Number(f[2]) === pgid) ticks += Number(f[11]) + Number(f[12]);
  }
  return (ticks * 1000) / CLOCK_TICKS;
}
/** Linux's USER_HZ (getconf CLK_TCK) */
const CLOCK_TICKS = 100;

/**
 * A Chrome DevTools Protocol session over a WebSocket: a minimal client on node:http (text frames, masked as a
 * client must; wrangler's inspector proxy refuses Node's own WebSocket client).
 */
async function cdp(url: string) {
  const { host, pathname } = new URL(url);
  const [hostname, port] = host.split(':');
  const socket = await new Promise<Duplex>((resolve, reject) =>
    request({
      hostname,
      port: Number(port),
      path: pathname,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
      },
    })
      .on('upgrade', (_res, sock) => resolve(sock))
      .on('response', (res) => reject(new Error(`inspector: HTTP ${res.statusCode}, not a WebSocket`)))
      .on('error', reject)
      .end(),
  );
  let id = 0;
  const waiting = new Map<number, (v: unknown) => void>();
  let buf = Buffer.alloc(0);
  let message: Buffer[] = [];
  socket.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      if (buf.length < 2) return;
      let len = buf[1]! & 0x7f;
      let at = 2;
      if (len === 126) [len, at] = [buf.length >= 4 ? buf.readUInt16BE(2) : -1, 4];
      else if (len === 127) [len, at] = [buf.length >= 10 ? Number(buf.readBigUInt64BE(2)) : -1, 10];
      if (len < 0 || buf.length < at + len) return;
      message.push(buf.subarray(at, at + len));
      const fin = (buf[0]! & 0x80) !== 0;
      buf = buf.subarray(at + len);
      if (!fin) continue;
      const msg = JSON.parse(Buffer.concat(message).toString('utf8')) as { id?: number; result?: unknown };
      message = [];
      if (msg.id !== undefined) waiting.get(msg.id)?.(msg.result);
    }
  });
  const frame = (text: string) => {
    const data = Buffer.from(text, 'utf8');
    const mask = randomBytes(4);
    const head =
      data.length < 126
        ? Buffer.from([0x81, 0x80 | data.length])
        : Buffer.from([0x81, 0x80 | 126, data.length >> 8, data.length & 0xff]);
    return Buffer.concat([head, mask, data.map((b, i) => b ^ mask[i % 4]!)]);
  };
  return {
    send: <T>(method: string, params: object = {}) =>
      new Promise<T>((resolve) => {
        waiting.set(++id, resolve as (v: unknown) => void);
        socket.write(frame(JSON.stringify({ id, method, params })));
      }),
    close: () => socket.destroy(),
  };
}

interface Profile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The modules of an esbuild bundle: each starts at a `// path` comment line (node_modules/hono/..., src/...). */
function bundleModules(url: string): (line: number) => string {
  let text = '';
  try {
    // the profile names the script by its file name
    text = readFileSync(
      url.startsWith('file:') ? fileURLToPath(url) : url.includes('/') ? url : join(dirname(TIMED), url),
      'utf8',
    );
  } catch {
    return () => 'bundle';
  }
  const starts: [number, string][] = [];
  text.split('\n').forEach((l, i) => {
    const m = /^\/\/ (\S+\.(?:[cm]?js|ts))$/.exec(l);
    if (m) starts.push([i, m[1]!]);
  });
  return (line) => {
    let lo = 0;
    let hi = starts.length - 1;
    let at = 'bundle';
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]![0] <= line) [at, lo] = [starts[mid]![1], mid + 1];
      else hi = mid - 1;
    }
    return at;
  };
}

/** A module's group in the tables: a package, or a folder of ours. */
function group(path: string): string {
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (nm) return nm[1]!;
  if (path.includes('views.gen')) return 'views';
  const src = /(?:^|\/)(src\/[^/]+|bench)\//.exec(path);
  return src ? src[1]! : path;
}

export interface Split {
  /** JavaScript + GC samples (ms), each counted at most SAMPLE_CAP_MS: the handler's compute */
  handler: number;
  /** the same samples at their full interval (what a loaded machine inflates) */
  uncapped: number;
  /** how many samples: taken only while the thread runs, so the load does not add to them */
  samples: number;
  gc: number;
  /** the rest of the request's wall time in this isolate: waiting (D1, workerd) or descheduled */
  other: number;
  wall: number;
  /** handler ms by group (package, our folder, "built-ins" for V8's own code and "(compile)" where V8 says so) */
  by: Map<string, number>;
}

/**
 * A profile's time by kind (ms): JavaScript by the module of the function running (self time), garbage collection,
 * and "(program)" / "(idle)" (the thread outside JavaScript: workerd's own work, or waiting for I/O).
 */
export function profileSplit(p: Profile): Split {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const modules = new Map<string, (line: number) => string>();
  const where = (n: Profile['nodes'][number]): string => {
    const { url, lineNumber, functionName } = n.callFrame;
    if (!url) return /compile|parse/i.test(functionName) ? '(compile)' : 'built-ins';
    if (!modules.has(url)) modules.set(url, bundleModules(url));
    return group(modules.get(url)!(lineNumber));
  };
  const t: number[] = [];
  let at = p.startTime;
  for (const d of p.timeDeltas) t.push((at += d));
  const out: Split = {
    handler: 0,
    uncapped: 0,
    samples: 0,
    gc: 0,
    other: 0,
    wall: (p.endTime - p.startTime) / 1000,
    by: new Map(),
  };
  p.samples.forEach((id, i) => {
    const full = ((i + 1 < t.length ? t[i + 1]! : p.endTime) - t[i]!) / 1000;
    const ms = Math.min(full, SAMPLE_CAP_MS);
    const n = byId.get(id)!;
    const name = n.callFrame.functionName;
    if (name === '(garbage collector)') out.gc += ms;
    else if (name === '(program)' || name === '(idle)' || name === '(root)') return void (out.other += full);
    else {
      const g = where(n);
      out.by.set(g, (out.by.get(g) ?? 0) + ms);
    }
    out.handler += ms;
    out.uncapped += full;
    out.samples++;
  });
  return out;
}

/** One page's first request to a new isolate: start-up CPU, status, bytes, the profile's split, D1's wait. */
async function coldRequest(path: string, save: string) {
  const dev = await startDev();
  try {
    const s = await cdp(dev.ws);
    try {
      await s.send('Profiler.enable');
      await s.send('Profiler.setSamplingInterval', { interval: SAMPLE_US });
      await s.send('Profiler.start');
      const c0 = dev.cpuMs();
      const r = await fetch(dev.url + path);
      const bytes = (await r.arrayBuffer()).byteLength;
      const workerd = dev.cpuMs() - c0;
      const stopped = await s.send<{ profile?: Profile } | undefined>('Profiler.stop');
      if (!stopped?.profile) throw new Error('the inspector answered Profiler.stop without a profile');
      const { profile } = stopped;
      if (save) {
        mkdirSync(save, { recursive: true });
        writeFileSync(`${save}/${path.replace(/[^\w.-]+/g, '_')}.cpuprofile`, JSON.stringify(profile));
      }
      const d1 = /d1;dur=(\d+);desc="(\d+) calls"/.exec(r.headers.get('server-timing') ?? '');
      // the same URL again, in the same isolate: what a cached page costs (a sanity floor for the method)
      await s.send('Profiler.start');
      await (await fetch(dev.url + path)).arrayBuffer();
      const again = (await s.send<{ profile: Profile }>('Profiler.stop')).profile;
      return {
        path,
        status: r.status,
        bytes,
        startup: dev.startup,
        workerd,
        d1Ms: d1 ? Number(d1[1]) : NaN,
        d1Calls: d1 ? Number(d1[2]) : NaN,
        first: profileSplit(profile),
        again: profileSplit(again),
      };
    } finally {
      s.close();
    }
  } finally {
    dev.stop();
  }
}

/**
 * `f` again (at most twice more) when it fails: on a loaded machine wrangler's inspector now and then answers
 * Profiler.stop without a profile, which says nothing about the Worker.
 */
async function retried<T>(f: () => Promise<T>, what: string): Promise<T> {
  for (let i = 0; ; i++)
    try {
      return await f();
    } catch (e) {
      if (i >= 2) throw e;
      console.error(`${what}: ${(e as Error).message}; again`);
    }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () => loadavg()[0]!.toFixed(1);

async function main() {
  const save = arg('save', '');
  const dev = await startDev();
  const pages =
    arg('pages', '') !== ''
      ? arg('pages', '').split(',')
      : ['/robots.txt', ...pagesOf(await (await fetch(`${dev.url}/`)).text(), 40)];
  dev.stop();
  if (pages[0] !== '/robots.txt') pages.unshift('/robots.txt');
  console.log(
    `bench/site-worker: the Worker's first request per page in a new wrangler dev (isolate), ${rounds} round(s) (median), CPU profile sampled every ${SAMPLE_US} µs; ${cpus().length} cores, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  // the start-up floor: workerd with a Worker of one fixed answer, as many times as the pages are measured
  const floorStart: number[] = [];
  for (let k = 0; k < rounds; k++) {
    const f = await startDev(FLOOR);
    floorStart.push(f.startup);
    f.stop();
  }
  type Cold = Awaited<ReturnType<typeof coldRequest>>;
  const rows: (Record<
    'startup' | 'handler' | 'uncapped' | 'samples' | 'gc' | 'again' | 'd1Ms' | 'd1Calls' | 'workerd',
    number
  > & {
    path: string;
    status: number;
    bytes: number;
    by: Map<string, number>;
    load: string;
  })[] = [];
  for (const path of pages) {
    const rs: Cold[] = [];
    for (let k = 0; k < rounds; k++) rs.push(await retried(() => coldRequest(path, save), path));
    const m = (f: (r: Cold) => number) => median(rs.map(f));
    const by = new Map<string, number>();
    for (const r of rs) for (const [g, ms] of r.first.by) by.set(g, (by.get(g) ?? 0) + ms / rs.length);
    rows.push({
      path,
      status: rs[0]!.status,
      bytes: rs[0]!.bytes,
      startup: m((r) => r.startup),
      handler: m((r) => r.first.handler),
      uncapped: m((r) => r.first.uncapped),
      samples: m((r) => r.first.samples),
      gc: m((r) => r.first.gc),
      again: m((r) => r.again.handler),
      d1Ms: m((r) => r.d1Ms),
      d1Calls: m((r) => r.d1Calls),
      workerd: m((r) => r.workerd),
      by,
      load: load(),
    });
  }
  const floor = rows[0]!;
  const fs = median(floorStart);
  const x = (v: number, f: number) => (f > 0 ? (v / f).toFixed(2) : '-');
  console.log(
    `\nstart-up floor (bench/worker-floor.ts, one fixed answer): workerd ${fs.toFixed(0)} ms of CPU; handler floor: ${floor.path}\n`,
  );
  console.log(
    '| page | status | bytes | start-up cpu ms | x floor | **handler ms** (GC) | x floor | samples | uncapped ms | again ms | D1 wait ms (calls) | x floor | workerd cpu ms | load |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows)
    console.log(
      `| \`${r.path}\` | ${r.status} | ${r.bytes} | ${r.startup.toFixed(0)} | ${x(r.startup, fs)} | ${r.handler.toFixed(1)} (${r.gc.toFixed(1)}) | ${x(r.handler, floor.handler)} | ${r.samples} | ${r.uncapped.toFixed(0)} | ${r.again.toFixed(1)} | ${r.d1Ms.toFixed(0)} (${r.d1Calls}) | ${x(r.d1Ms, floor.d1Ms)} | ${r.workerd.toFixed(0)} | ${r.load} |`,
    );
  // where the handler's time went, by module group (self time of the functions running)
  const groups = [...new Set(rows.flatMap((r) => [...r.by.keys()]))]
    .map((g) => [g, rows.reduce((s, r) => s + (r.by.get(g) ?? 0), 0)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 9)
    .map(([g]) => g);
  console.log(`\nhandler ms by module (self time; GC apart)\n`);
  console.log(`| page | ${groups.join(' | ')} | rest |`);
  console.log(`|---|${groups.map(() => '---:').join('|')}|---:|`);
  for (const r of rows) {
    const shown = groups.map((g) => r.by.get(g) ?? 0);
    const rest = r.handler - r.gc - shown.reduce((a, b) => a + b, 0);
    console.log(`| \`${r.path}\` | ${shown.map((v) => v.toFixed(1)).join(' | ')} | ${rest.toFixed(1)} |`);
  }
  console.log(`\nload average now: ${load()}`);
}

await main();
