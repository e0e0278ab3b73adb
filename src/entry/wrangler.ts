// How `arena publish` runs wrangler: the project's own wrangler (its bin script, with this node) when it is
// installed beside it, without the npm start that `npx` costs on every call; `npx wrangler` otherwise.
import { runInGroup, type GroupEnd } from '../cli/hook-command.ts';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

interface WranglerCommand {
  /** the program to spawn */
  file: string;
  args: string[];
  /** the command as a user would type it, for the log */
  shown: string;
}

/** wrangler's bin script installed beside mt-arena (a development dependency), if it is */
function installedWrangler(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');
  } catch {
    return undefined;
  }
}

/** `wrangler ...args` as a child process's program and arguments; `bin` is the wrangler script to run with node. */
function wranglerCommand(args: string[], bin = installedWrangler()): WranglerCommand {
  const shown = `wrangler ${args.join(' ')}`;
  // without one installed beside mt-arena, npx finds or fetches it
  return bin
    ? { file: process.execPath, args: [bin, ...args], shown }
    : { file: 'npx', args: ['wrangler', ...args], shown: `npx ${shown}` };
}

/** Which D1 database `wrangler d1 execute` runs on. */
export interface D1Database {
  /** the D1 database's name (wrangler.toml) */
  database: string;
  /** the deployed D1 (default: the local one that `wrangler dev` uses) */
  remote?: boolean | undefined;
  /** wrangler --persist-to directory of the local D1 */
  persistTo?: string | undefined;
  /** the wrangler script to run (default: the one installed beside mt-arena) */
  wrangler?: string | undefined;
}

/** How long one `wrangler d1 execute` may take by default: a local one has been seen to write every row and then
 * never end (workerd idle), so none is waited on for ever. */
export const D1_TIMEOUT_MS = 120_000;
/** What `wrangler d1 execute` printed and how it ended; `timedOut` when it was stopped after `timeoutMs`. */
export interface D1Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  /** it could not start (or printed more than `maxBuffer`) */
  error?: Error;
  timedOut: boolean;
  /** what it printed, when `capture` */
  stdout: string;
  stderr: string;
}

/** `capture`: read its output (at most `maxBuffer` characters); else it goes to `stdout` (default stderr). */
export interface D1RunOptions {
  capture?: boolean;
  maxBuffer?: number;
  stdout?: 'stdout' | 'stderr';
  env?: NodeJS.ProcessEnv;
  /** how long one run may take (default D1_TIMEOUT_MS) */
  timeoutMs?: number;
}

/**
 * `wrangler d1 execute <database> ...args`, run to its end or for `timeoutMs`: wrangler runs workerd, so it runs in
 * a process group of its own and a run over time is stopped with everything it started (and so is a run still going
 * when this process exits). A local run is tried twice: wrangler runs a local file or command as one D1 batch, which
 * is one transaction, so a run that failed changed nothing, and miniflare's local D1 has been seen to fail one under
 * load ("false == true", its own check that `SELECT total_changes()` gave a row) that the same run then passed, and to
 * hang after its last row. A remote run is run once: its failures (a token, the network, a quota) are the user's.
 * `o.log` is told of a second try, and of the command first when `o.show`.
 */
export async function d1Execute(
  t: D1Database,
  args: string[],
  options: D1RunOptions = {},
  o: { log?: (m: string) => void; show?: boolean } = {},
): Promise<D1Run> {
  const log = o.log ?? (() => {});
  const cmd = wranglerCommand(
    [
      ...['d1', 'execute', t.database, t.remote ? '--remote' : '--local', ...args],
      ...(t.persistTo ? ['--persist-to', t.persistTo] : []),
    ],
    t.wrangler,
  );
  if (o.show) log(cmd.shown);
  const env = { WRANGLER_SEND_METRICS: 'false', ...process.env, ...options.env };
  const timeoutMs = options.timeoutMs ?? D1_TIMEOUT_MS;
  const maxBuffer = options.maxBuffer ?? 1024 * 1024;
  for (let tries = t.remote ? 1 : 2; ;) {
    const r = d1Run(
      await runInGroup(cmd.file, cmd.args, {
        env,
        timeoutMs,
        output: options.capture ? 'capture' : options.stdout === 'stdout' ? 'inherit' : 'stderr',
        maxBuffer,
        killLeftovers: true,
      }),
      timeoutMs,
      maxBuffer,
    );
    if (r.status === 0 || (r.error && !r.timedOut) || --tries === 0) return r;
    log(
      `wrangler d1 execute ${r.timedOut ? `did not end within ${timeoutMs / 1000} s (stopped)` : `failed (exit ${r.status ?? r.signal})`}; a local run is one transaction: once more`,
    );
  }
}

function d1Run({ end, stdout, stderr, overflow }: GroupEnd, timeoutMs: number, maxBuffer: number): D1Run {
  const timedOut = 'stopped' in end;
  const why = overflow
    ? `wrangler printed more than ${maxBuffer} characters on ${overflow}`
    : timedOut
      ? `did not end within ${timeoutMs / 1000} s`
      : 'cannotStart' in end
        ? end.cannotStart
        : undefined;
  return {
    status: 'exit' in end && !overflow ? end.exit : null,
    signal: 'signal' in end ? (end.signal as NodeJS.Signals) : null,
    ...(why ? { error: new Error(why) } : {}),
    timedOut,
    stdout,
    stderr,
  };
}

/**
 * The [vars] of the wrangler.toml in `dir` (what the Worker deployed or run from there is given): `KEY = "value"`
 * lines of that section, as strings; none when there is no such file. Vars set elsewhere (the dashboard, `--var`)
 * are not seen: a Worker given other values renders its pages live.
 */
export function wranglerVars(dir: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(join(dir, 'wrangler.toml'), 'utf8');
  } catch {
    return {};
  }
  const vars: Record<string, string> = {};
  let inVars = false;
  for (const line of text.split(/\r?\n/)) {
    const t = line.trim();
    if (t.startsWith('[')) inVars = t === '[vars]';
    else if (inVars) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')\s*(#.*)?$/.exec(t);
      if (m) vars[m[1]!] = m[2] !== undefined ? (JSON.parse(`"${m[2]}"`) as string) : m[3]!;
    }
  }
  return vars;
}
