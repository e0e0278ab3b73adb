import OpenAI from 'openai';
import { cappedFetch, httpFetch, ReplyTooLargeError } from './http-fetch.ts';
import { readRateLimit } from './rate-limit.ts';
import { redactReply, redactSecrets, serverName } from './redact.ts';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
} from 'openai/resources/chat/completions';
import type { JudgeSettings } from '../core/types.ts';
import {
  bodyOf,
  contractHint,
  fatalKind,
  sentSettings,
  verdictProbsOf,
  type ApiOptions,
} from './contract.ts';
import {
  JudgeCallError,
  parseRetryAfter,
  type AskedSettings,
  type JudgeProvider,
  type JudgeReply,
  type JudgeRequest,
} from './judge.ts';
import { modelEntry } from '../core/openai-models.ts';
import { listedModels, type ListedModel } from '../core/retirement.ts';
import { ALLOWANCE_TAG } from '../core/constants.ts';

export interface OpenAIJudgeOptions {
  model: string;
  /** any OpenAI-compatible server: vLLM, llama.cpp server, Ollama, ... */
  baseURL?: string;
  apiKey?: string;
  /** what the model takes (judges/contract.ts): its family, token parameter, temperature, reasoning effort, ... */
  api?: ApiOptions;
  /** the configured variable the key came from, named in a refusal's message (default OPENAI_API_KEY) */
  apiKeyEnv?: string;
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
 * `openai/<model>`: a chat completion with the system and user messages, n = 1, as FastChat's judge call, with
 * the parameters the model takes (judges/contract.ts). The SDK's own retries are off: the shared retry wrapper decides.
 */
export function openaiJudge(
  o: OpenAIJudgeOptions,
): JudgeProvider & { listModels(signal?: AbortSignal): Promise<ListedModel[]> } {
  const client = openaiClient(o);
  const api = o.api ?? {};
  const settingsFor = (asked: AskedSettings) => sentSettings(o.model, asked, api);
  const where = serverName(o.baseURL ?? 'https://api.openai.com/v1');
  return {
    id: `openai/${o.model}`,
    settingsFor,
    // GET /v1/models: what the server offers, each with its shutdown_date where it gives one
    async listModels(signal?: AbortSignal): Promise<ListedModel[]> {
      try {
        const page = await client.models.list(signal ? { signal } : {});
        return listedModels({ data: page.data as unknown });
      } catch (e) {
        throw toCallError(e, o, settingsFor({ maxTokens: 0 }), where);
      }
    },
    async complete(req: JudgeRequest): Promise<JudgeReply> {
      const settings =
        req.settings ?? settingsFor({ temperature: req.temperature, maxTokens: req.maxTokens });
      try {
        const body = {
          model: o.model,
          messages: [
            { role: 'system', content: req.system },
            { role: 'user', content: req.user },
          ],
          ...bodyOf(settings, req.verdict),
        } as unknown as ChatCompletionCreateParamsNonStreaming;
        const { data: r, response } = await client.chat.completions
          .create(body, req.signal ? { signal: req.signal } : {})
          .withResponse();
        return replyOf(r, readRateLimit(response.headers), settings, o);
      } catch (e) {
        throw toCallError(e, o, settings, where);
      }
    },
  };
}

/** A completion's text, usage and verdict probabilities; an empty reply cut at the allowance is its own error. */
function replyOf(
  r: ChatCompletion,
  rateLimit: ReturnType<typeof readRateLimit>,
  settings: JudgeSettings,
  o: OpenAIJudgeOptions,
): JudgeReply {
  const limits = rateLimit.tokens || rateLimit.requests ? { rateLimit } : {};
  try {
    return { ...completionReply(r, settings, (t) => redactReply(t, [o.apiKey])), ...limits };
  } catch (e) {
    if (e instanceof JudgeCallError && limits.rateLimit) e.rateLimit = limits.rateLimit;
    throw e;
  }
}

/**
 * A chat completion (a call's, or a Batch API result line's) as a reply: its text redacted, its usage and verdict
 * probabilities; an empty reply cut at the allowance is its own error, carrying what it used (it was billed).
 */
export function completionReply(
  r: ChatCompletion,
  settings: JudgeSettings,
  redact: (text: string) => { text: string; redactions: number },
): JudgeReply {
  const choice = r.choices?.[0];
  const text = choice?.message?.content;
  const usage = usageOf(r.usage);
  if ((text === '' || text == null) && choice?.finish_reason === 'length') {
    const err = new JudgeCallError(
      `${ALLOWANCE_TAG}: an empty reply at max_completion_tokens ${settings.maxTokens}${usage.details.tokensReasoning !== undefined ? ` (${usage.details.tokensReasoning} reasoning tokens)` : ''}; raise --max-tokens (settings.maxTokens) or lower --reasoning-effort (reasoningEffort)`,
      false,
    );
    err.kind = 'allowance';
    err.spent = { tokensIn: usage.tokensIn ?? null, tokensOut: usage.tokensOut ?? null, ...usage.details };
    throw err;
  }
  if (typeof text !== 'string')
    throw new JudgeCallError('[judge:openai] the response has no message content', true);
  const probs = settings.logprobs ? verdictProbsOf(text, choice?.logprobs?.content) : undefined;
  const clean = redact(text);
  return {
    text: clean.text,
    ...(clean.redactions ? { redactions: clean.redactions } : {}),
    ...(usage.tokensIn !== undefined ? { tokensIn: usage.tokensIn } : {}),
    ...(usage.tokensOut !== undefined ? { tokensOut: usage.tokensOut } : {}),
    ...usage.details,
    ...(probs ? { verdictProbs: probs } : {}),
  };
}

/** The usage a server reports, each count trusted only as a non-negative safe integer no larger than its total. */
function usageOf(u: ChatCompletion['usage'] | undefined) {
  const tokensIn = tokenCount(u?.prompt_tokens);
  const tokensOut = tokenCount(u?.completion_tokens);
  const cached = tokenCount(u?.prompt_tokens_details?.cached_tokens);
  const reasoning = tokenCount(u?.completion_tokens_details?.reasoning_tokens);
  const details: { tokensCached?: number; tokensReasoning?: number } = {};
  if (cached !== undefined && tokensIn !== undefined && cached <= tokensIn) details.tokensCached = cached;
  if (reasoning !== undefined && tokensOut !== undefined && reasoning <= tokensOut)
    details.tokensReasoning = reasoning;
  return { tokensIn, tokensOut, details };
}

/** A server's token count, trusted only as a non-negative safe integer; anything else is unknown (undefined). */
function tokenCount(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/** The SDK's error as a JudgeCallError whose message never carries the key (a server may echo it back). */
function toCallError(e: unknown, o: OpenAIJudgeOptions, settings: JudgeSettings, where: string): Error {
  if (e instanceof JudgeCallError) return e;
  for (let c: unknown = e; c instanceof Error; c = c.cause)
    if (c instanceof ReplyTooLargeError) return new JudgeCallError(`[judge:openai] ${c.message}`, false);
  if (e instanceof OpenAI.APIUserAbortError) return e;
  const clean = (m: string) => redactSecrets(m, [o.apiKey]);
  if (e instanceof OpenAI.APIConnectionError)
    return new JudgeCallError(
      clean(
        `[judge:openai] ${e instanceof OpenAI.APIConnectionTimeoutError ? 'timeout' : 'connection failed'} (${where}): ${e.message}`,
      ),
      true,
    );
  if (e instanceof OpenAI.APIError) {
    const status = e.status;
    // an error body may be a bare string (Ollama): then the SDK's message is all there is
    const body = (typeof e.error === 'object' && e.error ? e.error : { message: e.message }) as {
      code?: unknown;
      param?: unknown;
      message?: unknown;
    };
    const kind = fatalKind(status, body);
    const retryable =
      !kind && (status === undefined || status === 408 || status === 409 || status === 429 || status >= 500);
    const keyEnv = o.apiKeyEnv ?? 'OPENAI_API_KEY';
    const param = typeof body?.param === 'string' ? body.param : undefined;
    const hint =
      kind === 'auth'
        ? o.apiKey
          ? ` (${where} refused the API key in ${keyEnv})`
          : ` (no API key was sent to ${where}: set ${keyEnv})`
        : kind === 'contract'
          ? ` (${contractHint(o.model, param, settings)})`
          : kind === 'retired'
            ? ` (${retiredHint(o.model, where)})`
            : '';
    // no `cause`: the SDK's error holds the raw body and the request headers
    const err = new JudgeCallError(
      clean(`[judge:openai] HTTP ${status ?? '?'}: ${e.message}${hint}`),
      retryable,
      status,
      parseRetryAfter(e.headers as Headers | undefined),
    );
    if (kind) err.kind = kind;
    if (param) err.param = param;
    const rateLimit = readRateLimit(e.headers as Headers | undefined);
    if (rateLimit.tokens || rateLimit.requests) err.rateLimit = rateLimit;
    return err;
  }
  return new JudgeCallError(clean(`[judge:openai] ${(e as Error)?.message ?? String(e)}`), false);
}

/** What to look at when a server no longer serves the model: the table's successor, and the models it offers. */
function retiredHint(model: string, where: string): string {
  const next = modelEntry(model)?.successor;
  return `${where} does not serve ${model}${next ? `; its successor is ${next}` : ''}: \`arena judges check openai/${model}${where.startsWith('https://api.openai.com') ? '' : ` --base-url ${where}`}\` lists the models it offers`;
}
