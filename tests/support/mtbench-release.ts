// The MT-Bench release as `arena import mtbench --dir` stores it (alone, or with a judgments file), imported once
// per `vitest run` (tests/support/run-shared.ts) and copied for each test file that starts from it.
import { createHash } from 'node:crypto';
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

/**
 * A copy at `to` of the release with a judgments file imported beside it (`arena import judgments FILE [--judge
 * JUDGE]`), imported once per run and arguments; `to`.
 */
export async function releaseJudgmentsDb(to: string, file: string, judge?: string): Promise<string> {
  copySqlite(join(await judgmentsImported(file, judge), 'release.db'), to);
  return to;
}

/** What that `arena import judgments` printed on stdout. */
export async function releaseJudgmentsSummary(file: string, judge?: string): Promise<string> {
  return readFileSync(join(await judgmentsImported(file, judge), 'summary.txt'), 'utf8');
}

async function judgmentsImported(file: string, judge: string | undefined): Promise<string> {
  const key = createHash('sha256')
    .update(`${file}\0${judge ?? ''}`)
    .digest('hex')
    .slice(0, 16);
  return runShared(`release-judgments-${key}`, async (scratch) => {
    const db = await mtbenchReleaseDb(join(scratch, 'release.db'));
    const args = ['import', 'judgments', file, ...(judge ? ['--judge', judge] : []), '--db', db];
    writeFileSync(join(scratch, 'summary.txt'), await arenaOk(args));
  });
}
