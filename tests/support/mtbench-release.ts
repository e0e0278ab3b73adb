// The MT-Bench release (MTBENCH_DIR) as `arena import mtbench --dir` stores it, imported once per `vitest run`
// (tests/support/run-shared.ts: the first file that asks imports it into a scratch folder, renamed into place once
// the database is closed) and copied for each test file that starts from it. Tests of the import itself import.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { arenaOk } from './cli.ts';
import { copySqlite, runShared } from './run-shared.ts';

/**
 * A copy at `to` of the release in `dir` (default MTBENCH_DIR) imported by `arena import mtbench --dir`; `to`.
 * Throws when another file of this run imported the release from another folder.
 */
export async function mtbenchReleaseDb(to: string, dir = process.env.MTBENCH_DIR): Promise<string> {
  copySqlite(join(await imported(dir), 'release.db'), to);
  return to;
}

/** What that `arena import mtbench --dir` printed on stdout (its first line names the scratch database). */
export async function mtbenchReleaseSummary(dir = process.env.MTBENCH_DIR): Promise<string> {
  return readFileSync(join(await imported(dir), 'summary.txt'), 'utf8');
}

/** The run's folder holding the release imported from `dir`. */
async function imported(dir: string | undefined): Promise<string> {
  if (!dir) throw new Error('mtbenchReleaseDb: MTBENCH_DIR is not set');
  const shared = await runShared('mtbench-release', async (scratch) => {
    const summary = await arenaOk(['import', 'mtbench', '--dir', dir, '--db', join(scratch, 'release.db')]);
    writeFileSync(join(scratch, 'summary.txt'), summary);
    writeFileSync(join(scratch, 'source'), dir);
  });
  const source = readFileSync(join(shared, 'source'), 'utf8');
  if (source !== dir)
    throw new Error(`mtbenchReleaseDb: this run imported the release from ${source}, not ${dir}`);
  return shared;
}
