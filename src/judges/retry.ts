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
  /** first backoff delay; doubles each retry up to a minute, with jitter (default 1 s) */
  baseDelayMs?: number;
  /** per-attempt timeout (default 120 s) */
  timeoutMs?: number;
  /** the most time one call may spend retrying, waits included (default 10 minutes); a wait past it fails the call */
  maxRetryMs?: number;
  /** told of each retry before its wait; `retryAfterMs` when the server asked for the wait */
  onRetry?(info: { attempt: number; delayMs: number; error: JudgeCallError; retryAfterMs?: number }): void;
  random?: () => number;
  /**
   * admits each attempt before its timeout starts (judges/endpoints.ts); its ticket may name the provider to call.
   * A 429 is then not counted against `retries`: the gate holds every call until the server's Retry-After.
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

/** Timeouts and retries with exponential backoff (or the server's Retry-After); the last fault is thrown. */
export function withRetry(p: JudgeProvider, o: RetryOptions = {}): JudgeProvider {
  const retries = o.retries ?? 8;
  const base = o.baseDelayMs ?? 1000;
  const timeout = o.timeoutMs ?? 120_000;
  const random = o.random ?? Math.random;
  const budget = o.maxRetryMs ?? 10 * 60_000;
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
        const err =
          e instanceof JudgeCallError && !timedOut
            ? e
            : new JudgeCallError(
                `[judge:${p.id}] ${timedOut ? `timed out after ${timeout} ms` : ((e as Error)?.message ?? String(e))}`,
                timedOut,
                undefined,
                undefined,
                { cause: e },
              );
        outcome = { error: err };
        ticket?.settle(outcome);
        const gated429 = ticket !== undefined && err.status === 429;
        if (gated429) rateLimited++;
        if (!err.retryable || (!gated429 && attempt >= retries)) throw err;
        const backoff = Math.min(60_000, base * 2 ** attempt) * (0.5 + random() / 2);
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
