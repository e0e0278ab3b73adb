import { ArenaError } from '../core/types.ts';
import { JudgeCallError, type JudgeProvider, type JudgeReply, type JudgeRequest } from './judge.ts';

/** HTTP statuses that no retry and no other game can fix: the key is missing, wrong or not allowed. */
const AUTH_STATUSES: readonly number[] = [401, 403];

function isAuthFailure(e: unknown): e is JudgeCallError {
  return e instanceof JudgeCallError && e.status !== undefined && AUTH_STATUSES.includes(e.status);
}

/**
 * Stops a whole run at the first 401/403: `onFatal` is told once (the caller aborts the run), and no call
 * after it reaches the server. A call that starts after the refusal waits one turn of the event loop, so the
 * run's abort lands first, and rejects with the same error (the run drops it as interrupted, not as a failure).
 */
export function stopOnAuthFailure(p: JudgeProvider, onFatal: (e: JudgeCallError) => void): JudgeProvider {
  let fatal: JudgeCallError | undefined;
  return {
    id: p.id,
    ...(p.close ? { close: () => p.close!() } : {}),
    async complete(req: JudgeRequest): Promise<JudgeReply> {
      if (fatal) {
        await new Promise((resolve) => setImmediate(resolve));
        throw fatal;
      }
      try {
        return await p.complete(req);
      } catch (e) {
        if (isAuthFailure(e)) {
          if (!fatal) {
            fatal = e;
            onFatal(e);
          } else await new Promise((resolve) => setImmediate(resolve));
        }
        throw e;
      }
    },
  };
}

/** One message for a refused key, instead of one failure per game; `check` says what the user should look at. */
export function authStopError(e: JudgeCallError, check = 'OPENAI_API_KEY and --base-url'): ArenaError {
  return new ArenaError(
    `${e.message}; the run stopped at this first refusal (no retries, no further calls): check ${check}, then rerun to play the rest`,
  );
}
