// What an ops job (refresh, checkpoints) is given instead of opening things itself, so that it never touches the
// process: the Store, a way to open judges, its parsed config, the environment, a command runner. The CLI wires
// them (src/cli/ops-context.ts); a library caller passes its own.
import type { JudgeCallError, JudgeProvider } from '../judges/judge.ts';
import type { BatchClient } from '../judges/openai-batch.ts';
import type { PlayOptions } from '../engine/play/types.ts';
import type { JudgeConfig } from './config.ts';

/** Where paid replies that the database refused go, for the next run to store (the engine's PlayOptions.spill). */
export type Spill = NonNullable<PlayOptions['spill']>;

/** Environment variables, as a job reads them (the CLI passes its process's own). */
export type Env = Record<string, string | undefined>;

/**
 * Open the judge a config entry names (judges/registry.ts openJudge); the job closes what it opens. `onFatal`:
 * the job's reaction to the first fatal refusal; `planOnly`: a missing key is no error.
 */
export type OpenJudge = (
  j: JudgeConfig,
  o?: { onFatal?: (e: JudgeCallError) => void; planOnly?: boolean },
) => Promise<JudgeProvider>;

/** The Batch API client for a config entry with `batch: true`, with the API key the job read for it. */
export type OpenBatchClient = (j: JudgeConfig, apiKey: string | undefined) => BatchClient;

/** Publishing targets that work on the database file itself rather than through the Store. */
export interface Publisher {
  /** copy the database to `file` atomically (for `arena serve --db`) */
  sqliteCopy(file: string): Promise<void>;
  /** make the site's D1 database hold exactly the rows of this one */
  d1(target: { database: string; remote: boolean; persistTo?: string | undefined }): Promise<void>;
}

/**
 * Run a command in `cwd` with exactly the environment `env`, until its end, `timeoutMs` or `signal`, when it is
 * stopped with its process group. Resolves how it ended; never rejects.
 */
export type RunHook = (
  cmd: string,
  args: string[],
  o: { cwd: string; env: Env; timeoutMs: number; signal?: AbortSignal | undefined },
) => Promise<HookEnd>;

/** How a command ended: its exit code, the signal that ended it, stopped (timeout or abort), or never started. */
export type HookEnd =
  { exit: number } | { signal: string } | { stopped: 'timeout' | 'aborted' } | { cannotStart: string };
