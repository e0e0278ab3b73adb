// The pure pieces of rate-limit-aware judging: the x-ratelimit-* headers, a request's cost as a provider counts it,
// and a continuously refilled bucket. No timers and no clock of their own: the governor (governor.ts) passes `now`.
import type { JudgeRequest } from './judge.ts';

/** One limit as a server announced it: the bucket's size, what is left, and how long until it is full again. */
export interface AnnouncedLimit {
  limit?: number;
  remaining?: number;
  /** ms until the bucket is full again */
  resetMs?: number;
}

/** What one answer's headers said about the request and token limits (absent: not announced, or unreadable). */
export interface RateLimitInfo {
  requests?: AnnouncedLimit;
  tokens?: AnnouncedLimit;
}

/** The most a header value is believed: a larger limit, remaining or reset is treated as not sent. */
const MAX_COUNT = 1e12;
const MAX_RESET_MS = 24 * 3600_000;

const UNIT_MS: Record<string, number> = {
  h: 3600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
  us: 1e-3,
  µs: 1e-3,
  ns: 1e-6,
};

/**
 * A reset duration in ms: Go-style (`6m0s`, `1.5s`, `20ms`, `1h2m3.5s`) or plain seconds (`12`, `0.5`);
 * anything else (negative, empty, unknown units, absurdly long) is undefined.
 */
export function parseResetMs(v: string | null | undefined): number | undefined {
  if (v === null || v === undefined) return undefined;
  const s = v.trim();
  if (s === '') return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(s)) ms = Number(s) * 1000;
  else {
    const re = /(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/gy;
    ms = 0;
    let end = 0;
    for (let m = re.exec(s); m; m = re.exec(s)) {
      ms += Number(m[1]) * UNIT_MS[m[2]!]!;
      end = re.lastIndex;
    }
    if (end !== s.length || end === 0) return undefined;
  }
  return Number.isFinite(ms) && ms <= MAX_RESET_MS ? ms : undefined;
}

function count(v: string | null): number | undefined {
  if (v === null || !/^\s*\d+(\.\d+)?\s*$/.test(v)) return undefined;
  const n = Number(v);
  return n <= MAX_COUNT ? n : undefined;
}

/**
 * The `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` headers (OpenAI, vLLM gateways, Groq, ...), and the
 * `ratelimit-*-{requests,tokens}` spelling some proxies use. A remaining above its limit is cut to the limit; a
 * family with no readable value is left out.
 */
export function readRateLimit(headers: { get(name: string): string | null } | undefined): RateLimitInfo {
  const out: RateLimitInfo = {};
  if (!headers) return out;
  for (const kind of ['requests', 'tokens'] as const) {
    const get = (what: string) =>
      headers.get(`x-ratelimit-${what}-${kind}`) ?? headers.get(`ratelimit-${what}-${kind}`);
    const limit = count(get('limit'));
    let remaining = count(get('remaining'));
    const resetMs = parseResetMs(get('reset'));
    if (limit !== undefined && remaining !== undefined && remaining > limit) remaining = limit;
    const l: AnnouncedLimit = {
      ...(limit !== undefined && limit > 0 ? { limit } : {}),
      ...(remaining !== undefined ? { remaining } : {}),
      ...(resetMs !== undefined ? { resetMs } : {}),
    };
    if (Object.keys(l).length) out[kind] = l;
  }
  return out;
}

/** Characters per token assumed before the server has reported any token counts (OpenAI's rule of thumb). */
export const CHARS_PER_TOKEN = 4;

/**
 * A request's cost as OpenAI's limiter counts it: the prompt's tokens (estimated from its characters, at
 * `charsPerToken`) plus max_tokens, whatever the reply turns out to be.
 */
export function requestCost(
  req: Pick<JudgeRequest, 'system' | 'user' | 'maxTokens'>,
  charsPerToken = CHARS_PER_TOKEN,
) {
  return Math.ceil((req.system.length + req.user.length) / charsPerToken) + Math.max(0, req.maxTokens);
}

/**
 * A token bucket refilled continuously: `capacity` at most, `perMs` added each ms. The level may go below zero
 * (a request larger than the whole bucket is let through when the bucket is full, and leaves a debt).
 */
export class Bucket {
  #level: number;
  #at: number;
  constructor(
    public capacity: number,
    public perMs: number,
    now: number,
    level = capacity,
  ) {
    this.#level = level;
    this.#at = now;
  }
  /**
   * The part of the bucket this holder may spend, when others spend from it too (1: all of it): it is refilled at
   * that part of the rate and holds at most that part of the capacity.
   */
  share = 1;
  level(now: number): number {
    if (now > this.#at) {
      this.#level = Math.min(this.#top(), this.#level + (now - this.#at) * this.perMs * this.share);
      this.#at = now;
    }
    return this.#level;
  }
  #top(): number {
    return this.capacity * this.share;
  }
  /** ms until `n` can be taken (a request larger than this holder's part of the bucket waits for it full) */
  waitMs(n: number, now: number): number {
    const need = Math.min(n, this.#top()) - this.level(now);
    return need <= 0 ? 0 : need / (this.perMs * this.share);
  }
  take(n: number, now: number): void {
    this.level(now);
    this.#level -= n;
  }
  /** what the server says is left: the level is never above it (another process may have spent the rest) */
  observe(remaining: number, now: number): void {
    this.#level = Math.min(this.level(now), remaining);
  }
  /** set the level from what the server said (never above the capacity) */
  set(level: number, now: number): void {
    this.level(now);
    this.#level = Math.min(this.#top(), level);
  }
  /** a new size (and refill rate), from a header or a declaration; the level keeps its share of the old size */
  resize(capacity: number, perMs: number, now: number): void {
    if (capacity === this.capacity && perMs === this.perMs) return;
    const level = this.level(now);
    this.#level = Math.min(capacity, level);
    this.capacity = capacity;
    this.perMs = perMs;
  }
}

/**
 * The least time `tokens` and `requests` can take under limits per minute, each bucket full at the start (as
 * `arena run --dry-run` prints it): undefined when no limit is known.
 */
export function expectedWallS(o: {
  tokens: number;
  requests: number;
  tpm?: number;
  rpm?: number;
}): number | undefined {
  if (!o.tpm && !o.rpm) return undefined;
  const under = (n: number, perMin: number | undefined) =>
    perMin ? (Math.max(0, n - perMin) * 60) / perMin : 0;
  return Math.max(under(o.tokens, o.tpm), under(o.requests, o.rpm));
}
