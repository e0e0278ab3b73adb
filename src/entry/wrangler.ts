// How `arena publish` runs wrangler: the project's own wrangler (its bin script, with this node) when it is
// installed beside it, without the npm start that `npx` costs on every call; `npx wrangler` otherwise.
import { spawnSync, type SpawnSyncOptions, type SpawnSyncReturns } from 'node:child_process';
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

/**
 * `wrangler d1 execute <database> ...args`, run to its end. A local run is tried twice: wrangler runs a local file or
 * command as one D1 batch, which is one transaction, so a run that failed changed nothing, and miniflare's local D1
 * has been seen to fail one under load ("false == true", its own check that `SELECT total_changes()` gave a row) that
 * the same run then passed. A remote run is run once: its failures (a token, the network, a quota) are the user's.
 * `o.log` is told of a second try, and of the command first when `o.show`.
 */
export function d1Execute<T extends string | Buffer>(
  t: D1Database,
  args: string[],
  options: SpawnSyncOptions,
  o: { log?: (m: string) => void; show?: boolean } = {},
): SpawnSyncReturns<T> {
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
  for (let tries = t.remote ? 1 : 2; ;) {
    const r = spawnSync(cmd.file, cmd.args, { ...options, env }) as SpawnSyncReturns<T>;
    if (r.status === 0 || r.error || --tries === 0) return r;
    log(
      `wrangler d1 execute failed (exit ${r.status ?? r.signal}); a local run is one transaction: once more`,
    );
  }
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
