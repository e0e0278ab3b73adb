// A rate governor for one endpoint: admits calls so neither the token nor the request bucket is overdrawn, learns
// the limits from each answer's x-ratelimit-* headers (or takes declared ones), waits out 429s for everyone at
// once, and narrows its window of calls in flight when 429s come anyway (AIMD). Other processes may spend from the
// same limit: the governor keeps to its share of the bucket (share.ts).
import type { JudgeCallError, JudgeReply, JudgeRequest } from './judge.ts';
import {
  Bucket,
  CHARS_PER_TOKEN,
  requestCost,
  type AnnouncedLimit,
  type RateLimitInfo,
} from './rate-limit.ts';
import { HEADROOM, ShareEstimate } from './share.ts';

/** Time as the governor sees it: real by default, a fake one in tests. */
export interface Clock {
  now(): number;
  /** call `fn` after `ms`; returns a cancel */
  setTimer(fn: () => void, ms: number): () => void;
}

const realClock: Clock = {
  now: () => performance.now(),
  setTimer(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    return () => clearTimeout(t);
  },
};

export interface GovernorOptions {
  /** declared tokens per minute, for a server that announces none (the smaller wins when both are known) */
  tpm?: number;
  /** declared requests per minute */
  rpm?: number;
  clock?: Clock;
  /** the most calls in flight the window may grow back to after a 429 (default: no bound but the caller's) */
  maxWindow?: number;
}

/** One admitted call: settle it with its outcome (a reply, or the error it failed with). */
export interface Admission {
  readonly cost: number;
  settle(outcome: { reply: JudgeReply } | { error: JudgeCallError | Error }): void;
}

/** How long to wait on a 429 that says nothing about when to come back. */
const DEFAULT_429_WAIT_MS = 1000;
/**
 * The least a 429 holds every call, whatever wait the server asks for ("retry after 0" would have it flooded;
 * bench/README.md has the figures): doubled for each refusal of a call sent after the previous one, up to
 * MAX_429_FLOOR_MS, so a server that keeps refusing gets ever fewer requests a second; a success resets it.
 */
const MIN_429_WAIT_MS = 1000;
const MAX_429_FLOOR_MS = 60_000;

type Kind = 'tokens' | 'requests';
/** When a call was admitted, what this governor had charged then (that call included), and its own cost. */
type Sent = { at: number; tokens: number; requests: number; cost: number };

interface Waiter {
  cost: number;
  resolve(a: Admission): void;
  reject(e: unknown): void;
  signal?: AbortSignal | undefined;
  onAbort?: () => void;
}

/**
 * A bucket's refill rate as one answer tells it: the part missing from the limit over the time until it is full.
 * Undefined when the answer does not say, or too little is missing to measure (under 5%), or the window it implies
 * is shorter than 1 s or longer than a day (contradictory headers).
 */
export function refillPerMs(l: AnnouncedLimit | undefined): number | undefined {
  if (!l?.limit || l.remaining === undefined || !l.resetMs) return undefined;
  const missing = l.limit - l.remaining;
  if (missing < 0.05 * l.limit) return undefined;
  const perMs = missing / l.resetMs;
  const windowMs = l.limit / perMs;
  return windowMs >= 1000 && windowMs <= 24 * 3600_000 ? perMs : undefined;
}

export class RateGovernor {
  readonly clock: Clock;
  #tokens?: Bucket;
  #requests?: Bucket;
  readonly #declared: { tpm?: number | undefined; rpm?: number | undefined };
  #window: number;
  readonly #maxWindow: number;
  /** the calls in flight: each one's cost, by the number of calls admitted up to it (its `Sent.requests`) */
  readonly #flying = new Map<number, number>();
  #pausedUntil = 0;
  /** 429s in a row, each of a call sent after the one before was heard (the floor of the next wait) */
  #refusals = 0;
  #lastRefusalAt = -Infinity;
  #queue: Waiter[] = [];
  #cancelTimer?: (() => void) | undefined;
  #timerAt = Infinity;
  #charsPerToken = CHARS_PER_TOKEN;
  /** this governor's share of each bucket's spending */
  readonly #shared: Record<Kind, ShareEstimate> = {
    tokens: new ShareEstimate(),
    requests: new ShareEstimate(),
  };
  /** what calls answered 429 would have cost (the server charged nothing for them), by each one's `Sent.requests` */
  readonly #refused: { seq: number; tokens: number }[] = [];
  /** the refusals folded out of that list (the oldest, once it is long) */
  readonly #refusedBefore: Record<Kind, number> = { tokens: 0, requests: 0 };
  /** counters for reports and benches */
  readonly stats = { admitted: 0, rateLimited: 0, tokensCharged: 0 };

  constructor(o: GovernorOptions = {}) {
    this.clock = o.clock ?? realClock;
    this.#declared = { tpm: o.tpm, rpm: o.rpm };
    this.#maxWindow = o.maxWindow ?? Infinity;
    this.#window = this.#maxWindow;
    const now = this.clock.now();
    if (o.tpm) this.#tokens = new Bucket(o.tpm, o.tpm / 60_000, now);
    if (o.rpm) this.#requests = new Bucket(o.rpm, o.rpm / 60_000, now);
  }

  /** the cost this governor charges a request (prompt tokens estimated at the learned ratio, plus max_tokens) */
  cost(req: Pick<JudgeRequest, 'system' | 'user' | 'maxTokens'>): number {
    return requestCost(req, this.#charsPerToken);
  }

  /** this governor's share of the token bucket's spending, as the server's answers tell it (1: it spends alone) */
  get share(): number {
    return this.#shared.tokens.share;
  }

  /** the calls in flight the governor allows now */
  get window(): number {
    return Math.floor(this.#window);
  }

  /** the known limits per minute (declared or announced) */
  limits(): { tpm?: number; rpm?: number } {
    return {
      ...(this.#tokens ? { tpm: Math.round(this.#tokens.perMs * 60_000) } : {}),
      ...(this.#requests ? { rpm: Math.round(this.#requests.perMs * 60_000) } : {}),
    };
  }

  /** ms until a call of `cost` could be admitted, were it first in line (for choosing an endpoint) */
  estimateWaitMs(cost: number): number {
    const now = this.clock.now();
    let wait = Math.max(0, this.#pausedUntil - now);
    const queued = this.#queue.reduce((s, w) => s + w.cost, 0) + cost;
    if (this.#tokens) wait = Math.max(wait, this.#tokens.waitMs(queued, now));
    if (this.#requests) wait = Math.max(wait, this.#requests.waitMs(this.#queue.length + 1, now));
    if (this.#flying.size >= this.window) wait += 1; // a slot must free first: after anything that can go now
    return wait;
  }

  /** wait for the right to make one call of `cost` tokens; rejects when `signal` aborts */
  admit(cost: number, signal?: AbortSignal): Promise<Admission> {
    signal?.throwIfAborted();
    return new Promise<Admission>((resolve, reject) => {
      const w: Waiter = { cost, resolve, reject, signal };
      if (signal) {
        w.onAbort = () => {
          const i = this.#queue.indexOf(w);
          if (i >= 0) this.#queue.splice(i, 1);
          reject(signal.reason);
          this.#pump();
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      this.#queue.push(w);
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#queue.length) {
      const now = this.clock.now();
      if (this.#flying.size >= this.window) return; // a settle pumps again
      const w = this.#queue[0]!;
      const wait = Math.max(
        this.#pausedUntil - now,
        this.#tokens?.waitMs(w.cost, now) ?? 0,
        this.#requests?.waitMs(1, now) ?? 0,
      );
      if (wait > 0) return this.#wake(now + wait);
      this.#queue.shift();
      if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
      this.#tokens?.take(w.cost, now);
      this.#requests?.take(1, now);
      this.stats.admitted++;
      this.stats.tokensCharged += w.cost;
      const sent: Sent = {
        at: now,
        tokens: this.stats.tokensCharged,
        requests: this.stats.admitted,
        cost: w.cost,
      };
      this.#flying.set(sent.requests, w.cost);
      let settled = false;
      w.resolve({
        cost: w.cost,
        settle: (outcome) => {
          if (settled) return;
          settled = true;
          this.#flying.delete(sent.requests);
          this.#settle(outcome, sent);
          this.#pump();
        },
      });
    }
  }

  #wake(at: number): void {
    if (this.#cancelTimer && this.#timerAt <= at) return;
    this.#cancelTimer?.();
    this.#timerAt = at;
    // a timer may fire a hair early; wait at least 1 ms so the pump is not spun
    this.#cancelTimer = this.clock.setTimer(
      () => {
        this.#cancelTimer = undefined;
        this.#timerAt = Infinity;
        this.#pump();
      },
      Math.max(1, Math.ceil(at - this.clock.now())),
    );
  }

  #settle(outcome: { reply: JudgeReply } | { error: JudgeCallError | Error }, sent: Sent): void {
    const now = this.clock.now();
    // a reply cut at the allowance was answered like any other: the server was heard, and its headers count
    const answered =
      'reply' in outcome
        ? outcome.reply
        : (outcome.error as JudgeCallError).kind === 'allowance'
          ? { rateLimit: (outcome.error as JudgeCallError).rateLimit }
          : undefined;
    if (answered) {
      this.#refusals = 0;
      this.#learn(answered.rateLimit, now, sent);
      // additive increase after a 429: one more call in flight per window's worth of successes
      if (this.#window < this.#maxWindow)
        this.#window = Math.min(this.#maxWindow, this.#window + 1 / this.#window);
      return;
    }
    const e = (outcome as { error: JudgeCallError }).error;
    if (e.status !== 429) return;
    this.stats.rateLimited++;
    this.#refuse(sent);
    // what it was charged comes back (a header, if any, then sets the level anew)
    this.#tokens?.set(this.#tokens.level(now) + sent.cost, now);
    this.#requests?.set(this.#requests.level(now) + 1, now);
    const info = e.rateLimit;
    for (const [kind, b] of [
      ['tokens', this.#tokens],
      ['requests', this.#requests],
    ] as const)
      if (b) b.share = this.#shared[kind].cut(sent.at, now);
    this.#learn(info, now, sent);
    // multiplicative decrease, and everyone waits what the server asked
    this.#window = Math.max(1, Math.min(this.#window, this.#flying.size + 1) / 2);
    const resetMs = info?.tokens?.remaining === 0 ? info.tokens.resetMs : undefined;
    // a call sent before the last refusal was heard is of the same burst: it does not raise the floor
    if (sent.at >= this.#lastRefusalAt) this.#refusals++;
    this.#lastRefusalAt = now;
    const floor = Math.min(MAX_429_FLOOR_MS, MIN_429_WAIT_MS * 2 ** Math.max(0, this.#refusals - 1));
    const waitMs = Math.max(floor, e.retryAfterMs ?? resetMs ?? DEFAULT_429_WAIT_MS);
    this.#pausedUntil = Math.max(this.#pausedUntil, now + waitMs);
    if (this.#tokens && info?.tokens?.remaining === undefined) this.#tokens.observe(0, now);
  }

  #learn(info: RateLimitInfo | undefined, now: number, sent: Sent): void {
    if (!info) return;
    const fit = (b: Bucket | undefined, declared: number | undefined, l: AnnouncedLimit | undefined) => {
      const size = Math.min(declared ?? Infinity, l?.limit ?? Infinity);
      if (!Number.isFinite(size)) return b;
      // the refill rate: what the reset says (the bucket's missing part over the time to fill it), else per minute
      const perMs = Math.min((declared ?? Infinity) / 60_000, refillPerMs(l) ?? size / 60_000);
      if (!b) return new Bucket(size, perMs, now, size);
      b.resize(size, perMs, now);
      return b;
    };
    this.#tokens = fit(this.#tokens, this.#declared.tpm, info.tokens);
    this.#requests = fit(this.#requests, this.#declared.rpm, info.requests);
    this.#observe('tokens', this.#tokens, info.tokens?.remaining, now, sent);
    this.#observe('requests', this.#requests, info.requests?.remaining, now, sent);
  }

  /**
   * What is left for this governor, from what the server said was left after the call `sent`: its share of that,
   * less every call of its own the server may not have counted in it (admitted since, but those already refused,
   * and older ones still unanswered). No refill is credited since: the transit would count twice.
   */
  #observe(kind: Kind, b: Bucket | undefined, remaining: number | undefined, now: number, sent: Sent): void {
    if (!b || remaining === undefined) return;
    const own = sent[kind] - this.#refusedUpTo(kind, sent.requests);
    b.share = this.#shared[kind].observe({ at: sent.at, remaining, own }, b);
    // calls refused since will never be counted (a burst sent before the first answer: most of it)
    const refusedSince = this.#refusedUpTo(kind, Infinity) - this.#refusedUpTo(kind, sent.requests);
    const ownSince =
      (kind === 'tokens' ? this.stats.tokensCharged : this.stats.admitted) - sent[kind] - refusedSince;
    let olderUnanswered = 0;
    for (const [seq, cost] of this.#flying) {
      if (seq >= sent.requests) break; // admitted in order
      olderUnanswered += kind === 'tokens' ? cost : 1;
    }
    b.set((1 - HEADROOM) * b.share * Math.min(b.capacity, remaining) - ownSince - olderUnanswered, now);
  }

  /** a call answered 429: the server charged nothing for it */
  #refuse(sent: Sent): void {
    this.#refused.push({ seq: sent.requests, tokens: sent.cost });
    if (this.#refused.length <= 256) return;
    for (const r of this.#refused.splice(0, 128)) {
      this.#refusedBefore.tokens += r.tokens;
      this.#refusedBefore.requests += 1;
    }
  }

  /** What this governor's calls admitted up to the `seq`th, and answered 429 so far, would have cost. */
  #refusedUpTo(kind: Kind, seq: number): number {
    let n = this.#refusedBefore[kind];
    for (const r of this.#refused) if (r.seq <= seq) n += kind === 'tokens' ? r.tokens : 1;
    return n;
  }

  /** learn the prompt's characters per token from a reply's counted prompt tokens (a moving average) */
  calibrate(req: Pick<JudgeRequest, 'system' | 'user'>, tokensIn: number | undefined): void {
    if (!tokensIn || tokensIn <= 0) return;
    const ratio = (req.system.length + req.user.length) / tokensIn;
    if (!Number.isFinite(ratio) || ratio < 0.5 || ratio > 20) return;
    this.#charsPerToken = 0.8 * this.#charsPerToken + 0.2 * ratio;
  }
}
