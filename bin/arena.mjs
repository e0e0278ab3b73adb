#!/usr/bin/env node
// The `arena` command. The sources are TypeScript: `npm install`, `npm start` and `npm test` bundle them into
// dist/ (scripts/build-cli.mjs), which starts without a loader. dist/ is used only while it is newer than every
// file under src/ and than the last `npm install` (it bundles the pure-JS packages); otherwise (a source edited since, or no build) they run through tsx's loader as before, so
// an edit never runs stale code.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function fresh(built) {
  let t;
  try {
    t = statSync(built).mtimeMs;
  } catch {
    return false;
  }
  // files and folders: a folder's time changes when a file in it is added, removed or renamed
  if (statSync(join(root, 'src')).mtimeMs >= t) return false;
  // npm rewrites this file on every install that changes node_modules
  try {
    if (statSync(join(root, 'node_modules/.package-lock.json')).mtimeMs >= t) return false;
  } catch {
    // not installed by npm: nothing to compare
  }
  for (const e of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
    if (statSync(join(e.parentPath ?? e.path, e.name)).mtimeMs >= t) return false;
  }
  return true;
}

const built = join(root, 'dist/arena.mjs');
if (process.env.ARENA_NO_DIST !== '1' && fresh(built)) {
  await import(new URL('../dist/arena.mjs', import.meta.url).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
