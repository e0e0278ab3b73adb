// Fixed-window request counters for the annotate pages, in memory (per process on Node, per isolate on Workers:
// a bound on what one client can do to one instance, not a global quota). Bounded: at most `maxKeys` keys are
// remembered; past that, the oldest window's keys are forgotten first.

export interface Limit {
  /** requests allowed per window */
  max: number;
  windowMs: number;
}

export interface Limits {
  /** every /annotate request, per client address */
  address: Limit;
  /** login attempts, per client address */
  login: Limit;
  /** votes and skips, per annotator */
  votes: Limit;
}

export const DEFAULT_LIMITS: Limits = {
  address: { max: 300, windowMs: 60_000 },
  login: { max: 10, windowMs: 60_000 },
  votes: { max: 30, windowMs: 60_000 },
};

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(
    private readonly limit: Limit,
    private readonly maxKeys = 10_000,
  ) {}

  /** Count one request of `key` at `now`; the seconds to wait when it is over the limit, else 0. */
  hit(key: string, now: number): number {
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.limit.windowMs) {
      this.windows.delete(key);
      if (this.windows.size >= this.maxKeys) this.windows.delete(this.windows.keys().next().value!);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    return w.count > this.limit.max
      ? Math.max(1, Math.ceil((w.start + this.limit.windowMs - now) / 1000))
      : 0;
  }
}
