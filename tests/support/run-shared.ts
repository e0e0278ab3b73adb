// Something expensive every test file of a run may use unchanged, built once per `vitest run` by the first file
// that asks: it takes a lock (an exclusive mkdir), builds in a scratch folder and renames it; the others wait.
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

/**
 * The folder `build` filled for `name` in this run: built here if no other test file has started it,
 * otherwise waited for (up to `timeoutMs`). A failed build fails every file that asks, with its error.
 */
export async function runShared(
  name: string,
  build: (dir: string) => Promise<void>,
  timeoutMs = 400_000,
): Promise<string> {
  const root = inject('runDir');
  const done = join(root, name);
  const failed = join(root, `${name}.failed`);
  let mine = false;
  try {
    mkdirSync(join(root, `${name}.lock`));
    mine = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  if (mine) {
    const scratch = join(root, `${name}.building`);
    mkdirSync(scratch);
    try {
      await build(scratch);
    } catch (e) {
      writeFileSync(failed, String((e as Error).stack ?? e));
      throw e;
    }
    renameSync(scratch, done);
    return done;
  }
  for (const deadline = Date.now() + timeoutMs; !existsSync(done);) {
    if (existsSync(failed))
      throw new Error(`another test file failed to build ${name}:\n${readFileSync(failed, 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`${name} was not built within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return done;
}

/** Copy the SQLite database file `from` (closed) to `to`, with its WAL file if one was left beside it. */
export function copySqlite(from: string, to: string): void {
  copyFileSync(from, to);
  if (existsSync(`${from}-wal`)) copyFileSync(`${from}-wal`, `${to}-wal`);
}
