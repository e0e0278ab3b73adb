// Fixed-window request limits of the annotate pages, counted in the Store (Store.limits): every process on one
// SQLite file, and every isolate on one D1, counts against the same limit.
import type { RateLimitStore } from '../../storage/annotator-store.ts';

/** requests allowed per window */
type Limit = { max: number; windowMs: number };

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

/** A key is at most this long (an address comes from a header: bounded before it reaches the database). */
const MAX_KEY = 100;

export class RateLimiter {
  constructor(
    private readonly store: RateLimitStore,
    /** what it counts, the start of its keys in the store: `address`, `login`, `votes` */
    private readonly name: string,
    private readonly limit: Limit,
  ) {}

  /** Count one request of `key` at `now`; the seconds to wait when it is over the limit, else 0. */
  async hit(key: string, now: number): Promise<number> {
    const w = await this.store.hit(`${this.name}:${key.slice(0, MAX_KEY)}`, this.limit.windowMs, now);
    return w.count > this.limit.max ? Math.max(1, Math.ceil((w.resetAt - now) / 1000)) : 0;
  }
}

/**
 * The client behind `hops` trusted proxies: the X-Forwarded-For entry `hops` from the right (entries further left
 * are the client's to write); undefined when there are fewer (the request did not come through them all).
 */
export function forwardedClient(header: string | undefined, hops: number): string | undefined {
  const entries = (header ?? '').split(',').map((e) => e.trim());
  const client = entries.length >= hops ? entries[entries.length - hops] : undefined;
  return client || undefined;
}
