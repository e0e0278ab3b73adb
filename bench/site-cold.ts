// Cold first visits of the leaderboard site: every page linked from the home page, each asked once of a server
// that has just started (a new process per page: nothing computed, nothing cached), and the time until its whole
// response has arrived. Run by bench/site.ts --cold; prints measured figures, asserts nothing.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** A server process of bench/site-server.ts over `db`, until `stop()`. */
async function startServer(db: string): Promise<{ app: string; cpuMs(): Promise<number>; stop(): void }> {
  const server = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./site-server.ts', import.meta.url)), db],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: server.stdout! })[Symbol.asyncIterator]();
  const next = async () =>
    JSON.parse((await lines.next()).value as string) as Record<string, number | string>;
  const { app } = (await next()) as { app: string };
  const cpuMs = async () => {
    server.stdin!.write('cpu\n');
    return Number((await next()).cpuUs) / 1000;
  };
  return { app, cpuMs, stop: () => server.kill() };
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
  /** the server process' CPU time (ms) over the same request, per round */
  cpu: number[];
}

/** Each page's first visit after a restart, `rounds` times (a new server process every time). */
export async function coldVisits(db: string, paths: string[], rounds: number): Promise<Cold[]> {
  const out: Cold[] = paths.map((path) => ({ path, status: 0, bytes: 0, ms: [], cpu: [] }));
  for (let k = 0; k < rounds; k++)
    for (const c of out) {
      const s = await startServer(db);
      try {
        const c0 = await s.cpuMs();
        const t0 = performance.now();
        const r = await fetch(s.app + c.path);
        const body = await r.arrayBuffer();
        c.ms.push(performance.now() - t0);
        c.cpu.push((await s.cpuMs()) - c0);
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
 * time, and the median as a ratio to the floor's (the first row: a fixed answer through the same app).
 */
export function coldTable(rows: Cold[], goalMs: number): string {
  const floor = rows[0]!;
  const lines = [
    `page${' '.repeat(52)} status    bytes  median ms   worst ms  cpu ms  x floor (${floor.path})`,
  ];
  for (const c of rows)
    lines.push(
      `${c.path.slice(0, 55).padEnd(56)} ${String(c.status).padStart(6)} ${String(c.bytes).padStart(8)} ${median(c.ms).toFixed(1).padStart(10)} ${Math.max(
        ...c.ms,
      )
        .toFixed(1)
        .padStart(
          10,
        )} ${median(c.cpu).toFixed(1).padStart(7)} ${(median(c.ms) / median(floor.ms)).toFixed(2).padStart(9)}`,
    );
  const over = rows.filter((c) => median(c.ms) > goalMs);
  lines.push(
    `goal: every first visit <= ${goalMs} ms: ${over.length ? `not met (${over.map((c) => c.path).join(', ')})` : 'met'}`,
  );
  return lines.join('\n');
}
