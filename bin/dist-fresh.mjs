// Whether the bundled command (dist/arena.mjs) may run: it is newer than every file and folder under src/ and
// than the last `npm install` (it bundles the pure-JS packages). bin/arena.mjs decides by it, and
// tests/cli-dist.test.ts skips by it, so the two cannot drift apart.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** @param {string} root the package's folder */
export function distFresh(root) {
  let t;
  try {
    t = statSync(join(root, 'dist/arena.mjs')).mtimeMs;
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
