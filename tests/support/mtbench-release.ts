// The MT-Bench release (MTBENCH_DIR) as `arena import mtbench --dir` stores it, imported once per `vitest run`
// (tests/support/run-shared.ts: the first file that asks imports it into a scratch folder, renamed into place once
// the database is closed) and copied for each test file that starts from it. Tests of the import itself import.
// The same for the release with the "Judge Llama 2" study's judgments imported beside it.
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

/** The Judge Llama 2 study's judge, as the files that import its judgments name it. */
const STUDY_JUDGE = 'llama-2-70b-instruct-v2';

/**
 * A copy at `to` of the release with the study's judgments (JUDGE_LLAMA2_DIR's L40 file) imported by `arena import
 * judgments --judge llama-2-70b-instruct-v2`, built once per run; `to`.
 */
export async function judgeLlama2StudyDb(to: string): Promise<string> {
  copySqlite(join(await studyImported(), 'study.db'), to);
  return to;
}

/** What that `arena import judgments` printed on stdout. */
export async function judgeLlama2StudySummary(): Promise<string> {
  return readFileSync(join(await studyImported(), 'summary.txt'), 'utf8');
}

async function studyImported(): Promise<string> {
  const dir = process.env.JUDGE_LLAMA2_DIR;
  if (!dir) throw new Error('judgeLlama2StudyDb: JUDGE_LLAMA2_DIR is not set');
  return runShared('judge-llama2-study', async (scratch) => {
    const db = await mtbenchReleaseDb(join(scratch, 'study.db'));
    const file = join(dir, 'model_judgment', 'L40-Llama-2-70b-instruct-v2.jsonl.gz');
    writeFileSync(
      join(scratch, 'summary.txt'),
      await arenaOk(['import', 'judgments', file, '--judge', STUDY_JUDGE, '--db', db]),
    );
  });
}
