import OpenAI from 'openai';
import { cappedFetch, httpFetch, ReplyTooLargeError } from './http-fetch.ts';
import { readRateLimit } from './rate-limit.ts';
import { redactReply, redactSecrets } from './redact.ts';
import {
  JudgeCallError,
  parseRetryAfter,
  type JudgeProvider,
  type JudgeReply,
  type JudgeRequest,
} from './judge.ts';

export interface OpenAIJudgeOptions {
  model: string;
  /** any OpenAI-compatible server: vLLM, llama.cpp server, Ollama, ... */
  baseURL?: string;
  apiKey?: string;
}

/**
 * The SDK client for an OpenAI-compatible server, on httpFetch (keep-alive, reply bodies capped). By default
 * its own retries are off and its timeout is a day (the judges' retry wrapper decides both); the answer
 * generators, which have no such wrapper, pass their own.
 */
export function openaiClient(o: {
  apiKey?: string | undefined;
  baseURL?: string | undefined;
  maxRetries?: number;
  timeoutMs?: number;
  /** the cap on a reply body (default MAX_REPLY_BYTES) */
  maxReplyBytes?: number;
}): OpenAI {
  // a local server may need no key; the SDK needs some string (never shown: see toCallError)
  return new OpenAI({
    apiKey: o.apiKey ?? 'none',
    ...(o.baseURL ? { baseURL: o.baseURL } : {}),
    maxRetries: o.maxRetries ?? 0,
    timeout: o.timeoutMs ?? 24 * 3600_000,
    fetch: o.maxReplyBytes ? (input, init) => cappedFetch(input, init, o.maxReplyBytes) : httpFetch,
  });
}

/**
 * `openai/<model>`: a chat completion with the system and user messages, n = 1, as FastChat's
 * judge call. The SDK's own retries are off: the shared retry wrapper decides.
 */
export function openaiJudge(o: OpenAIJudgeOptions): JudgeProvider {
  const client = openaiClient(o);
  return {
    id: `openai/${o.model}`,
    async complete(req: JudgeRequest): Promise<JudgeReply> {
      try {
        const { data: r, response } = await client.chat.completions
          .create(
            {
              model: o.model,
              messages: [
                { role: 'system', content: req.system },
                { role: 'user', content: req.user },
              ],
              n: 1,
              temperature: req.temperature,
              max_tokens: req.maxTokens,
            },
            req.signal ? { signal: req.signal } : {},
          )
          .withResponse();
        const rateLimit = readRateLimit(response.headers);
        const text = r.choices?.[0]?.message?.content;
        if (typeof text !== 'string')
          throw new JudgeCallError('[judge:openai] the response has no message content', true);
        const tokensIn = tokenCount(r.usage?.prompt_tokens);
        const tokensOut = tokenCount(r.usage?.completion_tokens);
        const clean = redactReply(text, [o.apiKey]);
        return {
          text: clean.text,
          ...(clean.redactions ? { redactions: clean.redactions } : {}),
          ...(tokensIn !== undefined ? { tokensIn } : {}),
          ...(tokensOut !== undefined ? { tokensOut } : {}),
          ...(rateLimit.tokens || rateLimit.requests ? { rateLimit } : {}),
        };
      } catch (e) {
        throw toCallError(e, o.apiKey);
      }
    },
  };
}

/** A server's token count, trusted only as a non-negative safe integer; anything else is unknown (undefined). */
function tokenCount(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/** The SDK's error as a JudgeCallError whose message never carries the key (a server may echo it back). */
function toCallError(e: unknown, apiKey: string | undefined): Error {
  if (e instanceof JudgeCallError) return e;
  for (let c: unknown = e; c instanceof Error; c = c.cause)
    if (c instanceof ReplyTooLargeError) return new JudgeCallError(`[judge:openai] ${c.message}`, false);
  if (e instanceof OpenAI.APIUserAbortError) return e;
  const clean = (m: string) => redactSecrets(m, [apiKey]);
  if (e instanceof OpenAI.APIConnectionError)
    return new JudgeCallError(
      clean(
        `[judge:openai] ${e instanceof OpenAI.APIConnectionTimeoutError ? 'timeout' : 'connection failed'}: ${e.message}`,
      ),
      true,
    );
  if (e instanceof OpenAI.APIError) {
    const status = e.status;
    const retryable =
      status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
    const hint =
      status === 401 || status === 403
        ? apiKey
          ? ' (the server refused the API key in OPENAI_API_KEY)'
          : ' (no API key was sent: set OPENAI_API_KEY)'
        : '';
    // no `cause`: the SDK's error holds the raw body and the request headers
    const err = new JudgeCallError(
      clean(`[judge:openai] HTTP ${status ?? '?'}: ${e.message}${hint}`),
      retryable,
      status,
      parseRetryAfter(e.headers as Headers | undefined),
    );
    const rateLimit = readRateLimit(e.headers as Headers | undefined);
    if (rateLimit.tokens || rateLimit.requests) err.rateLimit = rateLimit;
    return err;
  }
  return new JudgeCallError(clean(`[judge:openai] ${(e as Error)?.message ?? String(e)}`), false);
}
