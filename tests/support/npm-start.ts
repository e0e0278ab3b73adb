// The database `npm start` creates (`arena start` in a real process with MTBENCH_DIR, and JUDGE_LLAMA2_DIR and
// JUDGE_SETS_DIR when set), built once per `vitest run` (tests/support/run-shared.ts), with what that process printed
// and served kept beside it for the tests of `arena start` itself. Each caller gets its own copy.
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
