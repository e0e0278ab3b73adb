// Retries told in few lines: the first of each kind of fault at once, the rest counted, one line per window.
import type { JudgeCallError } from './judge.ts';

/** The kind of fault a retry answers: its HTTP status, a timeout, or a connection that failed. */
export function faultKind(e: JudgeCallError): string {
  if (e.status !== undefined) return `HTTP ${e.status}`;
  return /timed out/.test(e.message) ? 'timeout' : 'connection error';
}

export interface RetryLogOptions {
  /** one summary line per kind per window (default 60 s) */
  windowMs?: number;
  /** timers (default: real ones, unref'd so that they never keep a process alive) */
  setTimer?(fn: () => void, ms: number): () => void;
}

const realTimer = (fn: () => void, ms: number) => {
  const t = setTimeout(fn, ms);
  t.unref?.();
  return () => clearTimeout(t);
};

/** A retry logger over `log`; `flush()` tells what is counted (at the end of a run). */
export function retryLog(prefix: string, log: (line: string) => void, o: RetryLogOptions = {}) {
  const windowMs = o.windowMs ?? 60_000;
  const setTimer = o.setTimer ?? realTimer;
  type KindState = { count: number; last: string; cancel(): void };
  const kinds = new Map<string, KindState>();
  const tell = (kind: string, s: KindState) => {
    if (!s.count) return false;
    log(
      `${prefix} ${s.count} more ${s.count === 1 ? 'retry' : 'retries'} after ${kind} in the last ${Math.round(windowMs / 1000)} s; the last: ${s.last}`,
    );
    s.count = 0;
    return true;
  };
  const open = (kind: string): KindState => {
    const s: KindState = { count: 0, last: '', cancel: () => {} };
    const tick = () => {
      // a window with retries told opens the next one; a quiet window closes, and the next retry is told at once
      if (tell(kind, s)) s.cancel = setTimer(tick, windowMs);
      else kinds.delete(kind);
    };
    s.cancel = setTimer(tick, windowMs);
    kinds.set(kind, s);
    return s;
  };
  return {
    retry(kind: string, line: string): void {
      const s = kinds.get(kind);
      if (!s) {
        open(kind);
        log(`${prefix} ${line}`);
        return;
      }
      s.count++;
      s.last = line;
    },
    flush(): void {
      for (const [kind, s] of kinds) {
        s.cancel();
        tell(kind, s);
      }
      kinds.clear();
    },
  };
}
