import type { JudgeSettings } from '../core/types.ts';
import type { FatalKind } from './contract.ts';
import type { RateLimitInfo } from './rate-limit.ts';

/** What a judge is asked: the two chat messages and the sampling settings. */
export interface JudgeRequest {
  system: string;
  user: string;
  temperature: number;
  maxTokens: number;
  /** the game's settings as stored (its identity), extra keys included: what an API judge sends (judges/contract.ts) */
  settings?: JudgeSettings;
  signal?: AbortSignal;
  /** told of every failed attempt that `withRetry` retries (the caller records it; it never becomes a verdict) */
  onRetry?(info: { attempt: number; delayMs: number; error: JudgeCallError }): void;
  /** what the reply must end with (`[[A]]`.., `[[n]]`), for providers that constrain it; `free`: never constrained */
  verdict?: 'pair' | 'rating' | 'free';
}

export interface JudgeReply {
  text: string;
  tokensIn?: number;
  tokensOut?: number;
  /** of tokensIn, those the server read from its prompt cache (billed at the cached rate) */
  tokensCached?: number;
  /** of tokensOut, the hidden reasoning tokens (billed as output) */
  tokensReasoning?: number;
  /** positional verdict probabilities, e.g. {A: 0.7, B: 0.2, C: 0.1}, from providers that see token probabilities */
  verdictProbs?: Record<string, number>;
  /** SoftEnt-Cali in nats (a local judge asked for it: src/judges/llama-cpp/reliability.ts) */
  reliability?: number;
  /** what the answer's x-ratelimit-* headers said (providers that see headers; the rate governor reads it) */
  rateLimit?: RateLimitInfo;
  /** the endpoint that answered, when a judge is served by several (judges/endpoints.ts) */
  endpoint?: string;
  /** how many occurrences of a configured secret (the API key) were taken out of `text` */
  redactions?: number;
}

/** The one interface every provider implements; `withRetry` adds retries and rate control for all of them. */
export interface JudgeProvider {
  /** "provider/model", e.g. "openai/gpt-4" */
  readonly id: string;
  complete(req: JudgeRequest): Promise<JudgeReply>;
  /** the settings this judge sends for those asked (each game's identity); without it, as asked, temperature 0 */
  settingsFor?(asked: AskedSettings): JudgeSettings;
  close?(): Promise<void>;
}

/** `p` making its calls through `complete` (a wrapper: retries, a fatal stop, a pool), with its id and settings. */
export function wrapProvider(
  p: JudgeProvider,
  complete: JudgeProvider['complete'],
  close = p.close?.bind(p),
): JudgeProvider {
  return {
    id: p.id,
    complete,
    ...(close ? { close } : {}),
    ...(p.settingsFor ? { settingsFor: p.settingsFor.bind(p) } : {}),
  };
}

/** The settings a run asks for; a judge's settingsFor makes them the settings it sends. */
export interface AskedSettings {
  temperature?: number | null | undefined;
  maxTokens: number;
  [key: string]: unknown;
}

/** What a reply that was paid for but holds no verdict used: reasoning that took the whole allowance. */
export interface SpentUsage {
  tokensIn: number | null;
  tokensOut: number | null;
  tokensCached?: number;
  tokensReasoning?: number;
}

/** A failed call, never a verdict: `retryable` faults (429, 5xx, timeouts, dropped connections) are retried. */
export class JudgeCallError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** the server's Retry-After, in milliseconds */
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'JudgeCallError';
  }
  /** what the failed answer's x-ratelimit-* headers said, when it had any */
  rateLimit?: RateLimitInfo;
  /** a refusal no retry can fix (the run stops at the first), or `allowance`: a paid empty reply, never resent */
  kind?: FatalKind | 'allowance';
  /** the parameter a 400 named */
  param?: string;
  /** what an `allowance` reply used (it was billed) */
  spent?: SpentUsage;
}

/** A prompt longer than the judge's context: never retried, never truncated, both sizes said. */
export class PromptTooLongError extends JudgeCallError {
  constructor(
    who: string,
    readonly promptTokens: number,
    readonly contextTokens: number,
    hint: string,
  ) {
    super(`${who} prompt is ${promptTokens} tokens, context is ${contextTokens}: ${hint}`, false);
    this.name = 'PromptTooLongError';
  }
}

/** Parse Retry-After (seconds or an HTTP date) or retry-after-ms into milliseconds. */
export function parseRetryAfter(
  headers: { get(name: string): string | null } | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  // only non-negative (milli)seconds or a future HTTP date (it names a month); anything else is no instruction
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms);
  const v = headers.get('retry-after')?.trim();
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  if (!/[A-Za-z]{3}/.test(v)) return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) || t <= now ? undefined : t - now;
}
