// How `arena publish` runs wrangler: the project's own wrangler (its bin script, with this node) when it is
// installed beside it, without the npm start that `npx` costs on every call; `npx wrangler` otherwise.
import { createRequire } from 'node:module';

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
