import {
  JudgeCallError,
  wrapProvider,
  type JudgeProvider,
  type JudgeReply,
  type JudgeRequest,
} from './judge.ts';

export interface RetryOptions {
  /** attempts after the first (default 8) */
  retries?: number;
  /** first backoff delay; doubles each retry, with jitter (default 1 s) */
  baseDelayMs?: number;
  /** longest backoff delay (default 60 s); a server's Retry-After is honoured within `maxRetryMs` */
  maxDelayMs?: number;
  /** per-attempt timeout (default 120 s) */
  timeoutMs?: number;
  /**
   * the most time one call may spend retrying, from its first attempt, waits included (default 10 minutes,
   * DEFAULT_RETRY_BUDGET_MS): a retry whose wait (backoff or the server's Retry-After) would end past it is
   * not made, and the call fails with its last error
   */
  maxRetryMs?: number;
  /** told of each retry before its wait; `retryAfterMs` when the server asked for the wait */
  onRetry?(info: { attempt: number; delayMs: number; error: JudgeCallError; retryAfterMs?: number }): void;
  random?: () => number;
  /**
   * admits each attempt (a rate governor, or several endpoints' governors): its wait comes before the attempt's
   * timeout starts, and its ticket may name the provider to call. With a gate a 429 is not counted against
   * `retries`: the gate holds every call until the server's Retry-After has passed, within `maxRetryMs`.
   */
  gate?: CallGate;
}

/** The right to make one attempt, and where: settle it with the attempt's outcome. */
export interface GateTicket {
  provider?: JudgeProvider;
  settle(outcome: { reply: JudgeReply } | { error: JudgeCallError | Error }): void;
}

export interface CallGate {
  admit(req: JudgeRequest): Promise<GateTicket>;
}

const DEFAULT_RETRY_BUDGET_MS = 10 * 60_000;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Adds timeouts and retries with exponential backoff to any provider. Retryable faults (429, 5xx,
 * timeouts, dropped connections) are retried, waiting the server's Retry-After when it sends one;
 * the last fault is thrown, never turned into a reply.
 */
export function withRetry(p: JudgeProvider, o: RetryOptions = {}): JudgeProvider {
  const retries = o.retries ?? 8;
  const base = o.baseDelayMs ?? 1000;
  const max = o.maxDelayMs ?? 60_000;
  const timeout = o.timeoutMs ?? 120_000;
  const random = o.random ?? Math.random;
  const budget = o.maxRetryMs ?? DEFAULT_RETRY_BUDGET_MS;
  return wrapProvider(p, async (req) => {
    const started = Date.now();
    let rateLimited = 0;
    for (let n = 0; ; n++) {
      // 429s waited out at a gate are not faults of the server: they keep their own count
      const attempt = n - rateLimited;
      // an 'abort' listener added to an already aborted signal never fires
      req.signal?.throwIfAborted();
      const ticket = o.gate ? await o.gate.admit(req) : undefined;
      const target = ticket?.provider ?? p;
      let outcome: Parameters<GateTicket['settle']>[0] | undefined;
      const ctl = new AbortController();
      const onOuter = () => ctl.abort(req.signal!.reason);
      req.signal?.addEventListener('abort', onOuter, { once: true });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        ctl.abort(new Error('timeout'));
      }, timeout);
      try {
        const reply = await target.complete({ ...req, signal: ctl.signal });
        outcome = { reply };
        return reply;
      } catch (e) {
        if (req.signal?.aborted) throw req.signal.reason ?? e;
        const err = timedOut
          ? new JudgeCallError(`[judge:${p.id}] timed out after ${timeout} ms`, true, undefined, undefined, {
              cause: e,
            })
          : e instanceof JudgeCallError
            ? e
            : new JudgeCallError(
                `[judge:${p.id}] ${(e as Error)?.message ?? String(e)}`,
                false,
                undefined,
                undefined,
                { cause: e },
              );
        outcome = { error: err };
        ticket?.settle(outcome);
        const gated429 = ticket !== undefined && err.status === 429;
        if (gated429) rateLimited++;
        if (!err.retryable || (!gated429 && attempt >= retries)) throw err;
        const backoff = Math.min(max, base * 2 ** attempt) * (0.5 + random() / 2);
        // the server's wait, but never less than the backoff: "retry after 0" is no licence to flood it
        const delayMs = err.retryAfterMs !== undefined ? Math.max(err.retryAfterMs, backoff) : backoff;
        const spent = Date.now() - started;
        if (spent + delayMs > budget) {
          const why =
            err.retryAfterMs !== undefined && err.retryAfterMs >= delayMs
              ? `the server asked to wait ${(delayMs / 1000).toFixed(1)} s (Retry-After)`
              : `the next wait is ${(delayMs / 1000).toFixed(1)} s${err.retryAfterMs !== undefined ? ` (the server asked for ${(err.retryAfterMs / 1000).toFixed(1)} s; backoff waits longer)` : ''}`;
          throw new JudgeCallError(
            `${err.message} (not retried: ${why}, past this call's retry budget of ${(budget / 1000).toFixed(0)} s, ${(spent / 1000).toFixed(1)} s spent)`,
            false,
            err.status,
            err.retryAfterMs,
            { cause: err },
          );
        }
        o.onRetry?.({
          attempt: attempt + 1,
          delayMs,
          error: err,
          ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
        });
        req.onRetry?.({ attempt: attempt + 1, delayMs, error: err });
        // the gate holds this call (and every other) until the server's wait is over
        if (!gated429) await sleep(delayMs, req.signal);
      } finally {
        ticket?.settle(outcome ?? { error: new Error('aborted') });
        clearTimeout(timer);
        req.signal?.removeEventListener('abort', onOuter);
      }
    }
  });
}
