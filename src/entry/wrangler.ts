// How `arena publish` runs wrangler: the project's own wrangler (its bin script, with this node) when it is
// installed beside it, without the npm start that `npx` costs on every call; `npx wrangler` otherwise.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export interface WranglerCommand {
  /** the program to spawn */
  file: string;
  args: string[];
  /** the command as a user would type it, for the log */
  shown: string;
}

/** `wrangler ...args` as a child process's program and arguments. */
export function wranglerCommand(args: string[]): WranglerCommand {
  const shown = `wrangler ${args.join(' ')}`;
  let bin: string | undefined;
  try {
    bin = createRequire(import.meta.url).resolve('wrangler/bin/wrangler.js');
  } catch {
    // not installed beside mt-arena (it is a development dependency): npx finds or fetches it
  }
  return bin
    ? { file: process.execPath, args: [bin, ...args], shown }
    : { file: 'npx', args: ['wrangler', ...args], shown: `npx ${shown}` };
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
