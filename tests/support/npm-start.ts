// The database `npm start` creates, built once per `vitest run` (tests/support/run-shared.ts) for every test file
// that needs it: `arena start` in a real process on an empty database, with the MT-Bench release (MTBENCH_DIR),
// the Judge Llama 2 study's judgments when JUDGE_LLAMA2_DIR is set, and LLMBar's labelled pair sets when
// JUDGE_SETS_DIR is (the environment `npm test` runs with, so tests/cli/start.test.ts and start-judges.test.ts read
// one start instead of each paying for its own). What that first process printed and served while it ran is kept
// beside the database, so the tests of `arena start` itself still read the importing process's own output and
// pages. Each caller gets its own copy of the file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveArena, tmpDir } from './cli.ts';
import { MTBENCH_DIR } from './materials.ts';
import { copySqlite, runShared } from './run-shared.ts';

/** The paths the first `arena start` is asked for while it serves, kept in `StartedDatabase.served`. */
export const START_PAGES = [
  '/',
  '/leaderboard',
  '/api/standings?judge=gpt-4',
  '/healthz',
  '/judges',
] as const;

export interface ServedPage {
  status: number;
  contentType: string | null;
  body: string;
}

export interface StartedDatabase {
  /** this caller's own copy of the database */
  db: string;
  /** what the importing `arena start` printed on stdout until it was stopped */
  stdout: string;
  /** the address it printed */
  url: string;
  /** its exit code after SIGTERM */
  exitCode: number | null;
  /** each of START_PAGES as it served them */
  served: Record<(typeof START_PAGES)[number], ServedPage>;
}

/** The environment of that `arena start`: the release, the study and the pair sets where the environment names them. */
export const startEnv = (): Record<string, string> => ({
  MTBENCH_DIR: MTBENCH_DIR!,
  JUDGE_LLAMA2_DIR: process.env.JUDGE_LLAMA2_DIR ?? 'none',
  JUDGE_SETS_DIR: process.env.JUDGE_SETS_DIR ?? 'none',
});

/** A copy of the database `npm start` creates, and what that first `arena start` printed and served. */
export async function npmStartDatabase(): Promise<StartedDatabase> {
  if (!MTBENCH_DIR) throw new Error('npmStartDatabase needs MTBENCH_DIR (skip the test without it)');
  const dir = await runShared('npm-start', async (scratch) => {
    const s = await serveArena(['start', '--db', join(scratch, 'arena.db'), '--port', '0'], {
      env: startEnv(),
      timeoutMs: 300_000,
    });
    const served: Record<string, ServedPage> = {};
    try {
      for (const p of START_PAGES) {
        const r = await fetch(s.url + p);
        served[p] = { status: r.status, contentType: r.headers.get('content-type'), body: await r.text() };
      }
    } finally {
      const exitCode = await s.stop();
      writeFileSync(
        join(scratch, 'start.json'),
        JSON.stringify({ stdout: s.stdout(), url: s.url, exitCode, served }),
      );
    }
  });
  const db = join(tmpDir('arena-npm-start-'), 'arena.db');
  copySqlite(join(dir, 'arena.db'), db);
  return {
    db,
    ...(JSON.parse(readFileSync(join(dir, 'start.json'), 'utf8')) as Omit<StartedDatabase, 'db'>),
  };
}
