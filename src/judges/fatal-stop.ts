import { ArenaError } from '../core/types.ts';
import { JudgeCallError, wrapProvider, type JudgeProvider } from './judge.ts';

/** A refusal that no retry and no other game can fix: a key, a retired model, a parameter the model refuses. */
function isFatal(e: unknown): e is JudgeCallError {
  return e instanceof JudgeCallError && (e.kind === 'auth' || e.kind === 'retired' || e.kind === 'contract');
}

/**
 * Stops a whole run at the first fatal refusal (401/403, a retired model's 404, a refused parameter's 400):
 * `onFatal` is told once (the caller aborts the run), and no call after it reaches the server. A call that starts
 * after the refusal waits one turn of the event loop, so the run's abort lands first, and rejects with the same
 * error (the run drops it as interrupted, not as a failure).
 */
export function stopOnFatal(p: JudgeProvider, onFatal: (e: JudgeCallError) => void): JudgeProvider {
  let fatal: JudgeCallError | undefined;
  return wrapProvider(p, async (req) => {
    if (fatal) {
      await new Promise((resolve) => setImmediate(resolve));
      throw fatal;
    }
    try {
      return await p.complete(req);
    } catch (e) {
      if (isFatal(e)) {
        if (!fatal) {
          fatal = e;
          onFatal(e);
        } else await new Promise((resolve) => setImmediate(resolve));
      }
      throw e;
    }
  });
}

/**
 * One message for a fatal refusal, instead of one failure per game. `check` says what the user should look at
 * about a key; a retired model's or a refused parameter's message already says what to change.
 */
export function fatalStopError(e: JudgeCallError, check = 'OPENAI_API_KEY and --base-url'): ArenaError {
  const what =
    e.kind === 'retired'
      ? 'choose another judge'
      : e.kind === 'contract'
        ? "change the judge's settings as said"
        : `check ${check}`;
  return new ArenaError(
    `${e.message}; the run stopped at this first refusal (no retries, no further calls): ${what}, then rerun to play the rest`,
  );
}
