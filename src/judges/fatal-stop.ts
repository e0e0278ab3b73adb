import { ArenaError } from '../core/types.ts';
import { JudgeCallError, wrapProvider, type JudgeProvider } from './judge.ts';

/** A refusal that no retry and no other game can fix: a key, a retired model, a parameter the model refuses. */
function isFatal(e: unknown): e is JudgeCallError {
  return e instanceof JudgeCallError && (e.kind === 'auth' || e.kind === 'retired' || e.kind === 'contract');
}

/**
 * Stops a whole run at the first fatal refusal: `onFatal` is told once (the caller aborts the run), and no call
 * after it reaches the server; later calls wait one event-loop turn, so the abort lands first, then reject.
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

/** One message for a fatal refusal, instead of one failure per game; `check` is what to look at about a key. */
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
