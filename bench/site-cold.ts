// Cold first visits of the leaderboard site: every page linked from the home page, each asked once of a server
// that has just started (a new process per page: nothing computed, nothing cached), and the time until its whole
// response has arrived. Run by bench/site.ts --cold; prints measured figures, asserts nothing.
//
// What is timed: the server is `arena serve` as a user runs it (bin/arena.mjs: the bundled dist/ when it is fresh,
// else the sources through tsx), started and listening; once it has been idle for IDLE_MS (a restart's first
// visitor arrives some time after it), one request is sent and timed from sending to the last byte of the body.
// Starting the process is not the page's time: it is printed apart (start-up CPU). CPU times are the server
// process's own, all threads (/proc/<pid>/task/*/schedstat, nanoseconds), read from outside, so that measuring
// runs no code in the server.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const ARENA = fileURLToPath(new URL('../bin/arena.mjs', import.meta.url));
/** how long the server must have used (almost) no CPU before the request is sent */
const IDLE_MS = 200;

/** The CPU time (ms) `pid` has used so far, all its threads; NaN where /proc is not there. */
export function cpuMsOf(pid: number): number {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // the thread ended meanwhile
      }
    }
    return ns / 1e6;
  } catch {
    return NaN;
  }
}

interface Server {
  app: string;
  /** the process's CPU time (ms) from its start until it was listening */
  startCpu: number;
  cpuMs(): number;
  stop(): void;
}

/** Resolves once `p` is idle: less than 1 ms of CPU in IDLE_MS (at most 5 s). */
async function idle(p: ChildProcess): Promise<void> {
  let last = cpuMsOf(p.pid!);
  for (let waited = 0; waited < 5000; waited += IDLE_MS) {
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const now = cpuMsOf(p.pid!);
    if (!(now - last >= 1)) return;
    last = now;
  }
}

/** `arena serve` over `db` on a free port, once listening and idle, until `stop()`. */
async function startServer(db: string): Promise<Server> {
  const server = spawn(process.execPath, [ARENA, 'serve', '--db', db, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const app = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /leaderboard on (http:\/\/\S+?)\/?\s/.exec(out);
      if (m) resolve(m[1]!);
    });
    server.once('exit', (code) => reject(new Error(`arena serve exited (${code}) before listening: ${out}`)));
  });
  const startCpu = cpuMsOf(server.pid!);
  await idle(server);
  return { app, startCpu, cpuMs: () => cpuMsOf(server.pid!), stop: () => server.kill() };
}

/** The site's own pages that `/` links to (navigation, model pages, win matrices): paths with their query. */
export async function linkedPages(db: string, max = 40): Promise<string[]> {
  const s = await startServer(db);
  try {
    return pagesOf(await (await fetch(`${s.app}/`)).text(), max);
  } finally {
    s.stop();
  }
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
  /** the server process's CPU time (ms) over the same request, per round */
  cpu: number[];
  /** the server process's CPU time (ms) from its start until listening, per round */
  startCpu: number[];
  /** the 1-minute load average when the request was sent, per round */
  load: number[];
}

/** Each page's first visit after a restart, `rounds` times (a new server process every time). */
export async function coldVisits(db: string, paths: string[], rounds: number): Promise<Cold[]> {
  const out: Cold[] = paths.map((path) => ({
    path,
    status: 0,
    bytes: 0,
    ms: [],
    cpu: [],
    startCpu: [],
    load: [],
  }));
  for (let k = 0; k < rounds; k++)
    for (const c of out) {
      const s = await startServer(db);
      try {
        c.load.push(loadavg()[0]!);
        const c0 = s.cpuMs();
        const t0 = performance.now();
        const r = await fetch(s.app + c.path);
        const body = await r.arrayBuffer();
        c.ms.push(performance.now() - t0);
        c.cpu.push(s.cpuMs() - c0);
        c.startCpu.push(s.startCpu);
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
 * The table bench/site.ts prints: per page, status, bytes, median and worst first visit, the server's median CPU
 * time over the request, the median as a ratio to the floor's (the first row: a fixed answer through the same app),
 * the median CPU as a ratio to the floor's, the server's start-up CPU and the load average when sent.
 */
export function coldTable(rows: Cold[], goalMs: number): string {
  const floor = rows[0]!;
  const f = (x: number, w: number, d = 1) => x.toFixed(d).padStart(w);
  const lines = [
    `page${' '.repeat(52)} status    bytes  median ms   worst ms  cpu ms  x floor  cpu x floor  start cpu ms  load   (floor: ${floor.path})`,
  ];
  for (const c of rows)
    lines.push(
      `${c.path.slice(0, 55).padEnd(56)} ${String(c.status).padStart(6)} ${String(c.bytes).padStart(8)} ${f(median(c.ms), 10)} ${f(
        Math.max(...c.ms),
        10,
      )} ${f(median(c.cpu), 7)} ${f(median(c.ms) / median(floor.ms), 8, 2)} ${f(median(c.cpu) / median(floor.cpu), 12, 2)} ${f(
        median(c.startCpu),
        13,
        0,
      )} ${f(median(c.load), 5)}`,
    );
  const over = rows.filter((c) => median(c.ms) > goalMs);
  lines.push(
    `goal: every first visit <= ${goalMs} ms: ${over.length ? `not met (${over.map((c) => c.path).join(', ')})` : 'met'}`,
  );
  return lines.join('\n');
}
