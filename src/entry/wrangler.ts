// How `arena publish` runs wrangler: the project's own wrangler (its bin script, with this node) when it is
// installed beside it, without the npm start that `npx` costs on every call; `npx wrangler` otherwise.
import { runInGroup } from '../cli/hook-command.ts';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** wrangler's bin script installed beside mt-arena (a development dependency), if it is */
function installedWrangler(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');
  } catch {
    return undefined;
  }
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

/** A local `wrangler d1 execute` has been seen never to end after its last row (workerd idle). */
export const D1_TIMEOUT_MS = 120_000;
/** What `wrangler d1 execute` printed (when captured) and how it ended; `error`: it could not start or printed too much. */
interface D1Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

/**
 * `wrangler d1 execute <database> ...args`, in a process group of its own (wrangler runs workerd), stopped with all
 * it started after `timeoutMs`. `capture`: read its output (at most `maxBuffer` characters); else it goes to
 * `stdout` (default stderr). A local run is one transaction, and miniflare's local D1 has been seen to fail one
 * under load ("false == true") or hang after its last row: it is tried twice. A remote run's failures are the
 * user's: once. `o.log` is told of a second try, and of the command first when `o.show`.
 */
export async function d1Execute(
  t: D1Database,
  args: string[],
  options: { capture?: boolean; maxBuffer?: number; stdout?: 'stdout' | 'stderr'; timeoutMs?: number } = {},
  o: { log?: (m: string) => void; show?: boolean } = {},
): Promise<D1Run> {
  const log = o.log ?? (() => {});
  const wargs = [
    ...['d1', 'execute', t.database, t.remote ? '--remote' : '--local', ...args],
    ...(t.persistTo ? ['--persist-to', t.persistTo] : []),
  ];
  const bin = t.wrangler ?? installedWrangler();
  // without one installed beside mt-arena, npx finds or fetches it
  const [file, cmdArgs] = bin ? [process.execPath, [bin, ...wargs]] : ['npx', ['wrangler', ...wargs]];
  if (o.show) log(`${bin ? '' : 'npx '}wrangler ${wargs.join(' ')}`);
  const env = { WRANGLER_SEND_METRICS: 'false', ...process.env };
  const timeoutMs = options.timeoutMs ?? D1_TIMEOUT_MS;
  const maxBuffer = options.maxBuffer ?? 1024 * 1024;
  for (let tries = t.remote ? 1 : 2; ;) {
    const { end, stdout, stderr, overflow } = await runInGroup(file, cmdArgs, {
      env,
      timeoutMs,
      output: options.capture ? 'capture' : options.stdout === 'stdout' ? 'inherit' : 'stderr',
      maxBuffer,
      killLeftovers: true,
    });
    const timedOut = 'stopped' in end;
    const why = overflow
      ? `wrangler printed more than ${maxBuffer} characters on ${overflow}`
      : timedOut
        ? `did not end within ${timeoutMs / 1000} s`
        : 'cannotStart' in end
          ? end.cannotStart
          : undefined;
    const r: D1Run = {
      status: 'exit' in end && !overflow ? end.exit : null,
      signal: 'signal' in end ? (end.signal as NodeJS.Signals) : null,
      ...(why ? { error: new Error(why) } : {}),
      timedOut,
      stdout,
      stderr,
    };
    if (r.status === 0 || (r.error && !r.timedOut) || --tries === 0) return r;
    log(
      `wrangler d1 execute ${r.timedOut ? `did not end within ${timeoutMs / 1000} s (stopped)` : `failed (exit ${r.status ?? r.signal})`}; a local run is one transaction: once more`,
    );
  }
}

/**
 * The [vars] of the wrangler.toml in `dir` (`KEY = "value"` lines), none without one. Vars set elsewhere (the
 * dashboard, `--var`) are not seen: a Worker given other values renders its pages live.
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
