// The Worker's handler time on the first visit of each page after a (re)start: `wrangler dev` over a local D1
// that `arena publish` filled, one new wrangler dev (a new isolate, nothing cached) per page, and the request's
// CPU time read from a V8 CPU profile taken through wrangler's inspector (workerd's clocks stand still while
// JavaScript runs, so the Worker cannot time itself). Prints measured figures; asserts nothing.
//   node --import tsx bench/site-worker.ts --persist DIR [--pages /,/judges] [--rounds 1]
// DIR: a --persist-to folder with the published D1 (`wrangler d1 migrations apply mt-arena --local --persist-to DIR`,
// then `arena publish --db arena.db --persist-to DIR`). Without --pages: the floor (/robots.txt) and every page
// that `/` links to (as bench/site.ts --cold picks them).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Duplex } from 'node:stream';
import { cpus, loadavg } from 'node:os';
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

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** wrangler dev over `persist`, ready to take its first request (nothing asked of the Worker yet). */
async function startDev() {
  const [port, inspector] = [await freePort(), await freePort()];
  const child = spawn(
    process.execPath,
    [
      WRANGLER,
      'dev',
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
  return { url: `http://127.0.0.1:${port}`, ws, stop, cpuMs: () => groupCpuMs(child.pid!, 'workerd') };
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
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * A profile's time by kind (ms): JavaScript (our code, libraries, built-ins), garbage collection, and "(program)" /
 * "(idle)" (the thread outside JavaScript: workerd's own work, or waiting for I/O; not the handler's compute).
 */
export function profileTime(p: Profile): { js: number; gc: number; other: number; wall: number } {
  const kind = new Map(p.nodes.map((n) => [n.id, n.callFrame.functionName]));
  const t: number[] = [];
  let at = p.startTime;
  for (const d of p.timeDeltas) t.push((at += d));
  const out = { js: 0, gc: 0, other: 0, wall: (p.endTime - p.startTime) / 1000 };
  p.samples.forEach((id, i) => {
    const ms = ((i + 1 < t.length ? t[i + 1]! : p.endTime) - t[i]!) / 1000;
    const name = kind.get(id) ?? '';
    if (name === '(garbage collector)') out.gc += ms;
    else if (name === '(program)' || name === '(idle)' || name === '(root)') out.other += ms;
    else out.js += ms;
  });
  return out;
}

/** One page's first request to a new isolate: status, bytes, and the profile's time by kind. */
async function coldRequest(path: string) {
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
      const { profile } = await s.send<{ profile: Profile }>('Profiler.stop');
      // the same URL again, in the same isolate: what a cached page costs (a sanity floor for the method)
      await s.send('Profiler.start');
      await (await fetch(dev.url + path)).arrayBuffer();
      const again = (await s.send<{ profile: Profile }>('Profiler.stop')).profile;
      return {
        path,
        status: r.status,
        bytes,
        workerd,
        first: profileTime(profile),
        again: profileTime(again),
      };
    } finally {
      s.close();
    }
  } finally {
    dev.stop();
  }
}

const dev = await startDev();
const pages =
  arg('pages', '') !== ''
    ? arg('pages', '').split(',')
    : ['/robots.txt', ...pagesOf(await (await fetch(`${dev.url}/`)).text(), 40)];
dev.stop();
console.log(
  `bench/site-worker: the Worker's first request per page in a new wrangler dev (isolate), ${rounds} round(s), CPU profile sampled every ${SAMPLE_US} µs; ${cpus().length} cores, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
console.log(
  `page${' '.repeat(44)} status    bytes   js ms   gc ms  other ms  handler ms  again ms  workerd cpu ms`,
);
for (const path of pages) {
  const rs = [];
  for (let k = 0; k < rounds; k++) rs.push(await coldRequest(path));
  const best = rs.sort((a, b) => a.first.js + a.first.gc - (b.first.js + b.first.gc))[0]!;
  const f = best.first;
  console.log(
    `${path.slice(0, 47).padEnd(48)} ${String(best.status).padStart(6)} ${String(best.bytes).padStart(8)} ${f.js.toFixed(1).padStart(7)} ${f.gc.toFixed(1).padStart(7)} ${f.other.toFixed(1).padStart(9)} ${(f.js + f.gc).toFixed(1).padStart(11)} ${(best.again.js + best.again.gc).toFixed(1).padStart(9)} ${best.workerd.toFixed(0).padStart(15)}`,
  );
}
console.log(`load average now: ${loadavg()[0]!.toFixed(1)}`);
