/**
 * The chat-completions contract of late 2026 as OpenAI documents it, for openai-server.ts: chat and reasoning
 * models with shutdown dates, what each family refuses, retired and unknown models (404), hidden reasoning tokens
 * counted against `max_completion_tokens`, cached tokens, logprobs, and vLLM's choice-constrained outputs.
 */
import { createHash } from 'node:crypto';

export interface ContractModel {
  id: string;
  family: 'chat' | 'reasoning';
  /** YYYY-MM-DD: from this day on the model answers 404 */
  shutdownDate?: string;
}

export interface ProviderContract {
  models: ContractModel[];
  /** the server's today (YYYY-MM-DD; default: the real one) */
  today?: string;
  /** hidden reasoning tokens a reasoning model spends per call, by effort (default low 64, medium 256, high 1024) */
  reasoningTokens?: Partial<Record<string, number>>;
  /** prompt caching: a prefix seen before, of at least `minTokens`, is read from cache in `blockTokens` steps */
  cache?: { minTokens: number; blockTokens: number };
  /** accept vLLM's structured outputs (`structured_outputs.choice`, or the older `guided_choice`) */
  structuredOutputs?: boolean;
}

const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];
const DEFAULT_REASONING: Record<string, number> = {
  none: 0,
  minimal: 16,
  low: 64,
  medium: 256,
  high: 1024,
  xhigh: 2048,
};

type ErrorBody = { message: string; type: string; param: string | null; code: string | null };
export type Verdict =
  | { status: number; error: ErrorBody }
  | {
      status: 200;
      family: 'chat' | 'reasoning';
      maxTokens: number | undefined;
      reasoning: number;
      logprobs: number | undefined;
      choices: string[] | undefined;
    };

const invalid = (message: string, param: string | null, code: string | null): Verdict => ({
  status: 400,
  error: { message, type: 'invalid_request_error', param, code },
});

/** What the contract says of one request body: an error to answer, or how to answer it. */
export function checkRequest(c: ProviderContract, body: Record<string, unknown>): Verdict {
  const model = String(body.model);
  const m = c.models.find((x) => x.id === model);
  const today = c.today ?? new Date().toISOString().slice(0, 10);
  if (!m)
    return {
      status: 404,
      error: {
        message: `The model \`${model}\` does not exist or you do not have access to it.`,
        type: 'invalid_request_error',
        param: null,
        code: 'model_not_found',
      },
    };
  if (m.shutdownDate && m.shutdownDate <= today)
    return {
      status: 404,
      error: {
        message: `The model \`${model}\` has been deprecated, learn more here: https://platform.openai.com/docs/deprecations`,
        type: 'invalid_request_error',
        param: null,
        code: 'model_not_found',
      },
    };
  if (body.max_tokens !== undefined && body.max_completion_tokens !== undefined)
    return invalid(
      "Only one of 'max_tokens' and 'max_completion_tokens' may be given.",
      'max_tokens',
      'invalid_value',
    );
  const effort = body.reasoning_effort;
  if (m.family === 'reasoning') {
    if (body.max_tokens !== undefined)
      return invalid(
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        'max_tokens',
        'unsupported_parameter',
      );
    if (body.temperature !== undefined && body.temperature !== 1)
      return invalid(
        `Unsupported value: 'temperature' does not support ${JSON.stringify(body.temperature)} with this model. Only the default (1) value is supported.`,
        'temperature',
        'unsupported_value',
      );
    if (body.logprobs !== undefined || body.top_logprobs !== undefined)
      return invalid(
        "Unsupported parameter: 'logprobs' is not supported with this model.",
        'logprobs',
        'unsupported_parameter',
      );
    if (effort !== undefined && !EFFORTS.includes(effort as string))
      return invalid(
        `Invalid value: '${String(effort)}'. Supported values are: ${EFFORTS.map((e) => `'${e}'`).join(', ')}.`,
        'reasoning_effort',
        'invalid_value',
      );
  } else if (effort !== undefined)
    return invalid(
      "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
      'reasoning_effort',
      'unsupported_parameter',
    );
  const top = body.top_logprobs;
  if (top !== undefined && (!Number.isInteger(top) || (top as number) < 0 || (top as number) > 20))
    return invalid('top_logprobs must be an integer from 0 to 20.', 'top_logprobs', 'invalid_value');
  const so = body.structured_outputs as Record<string, unknown> | undefined;
  const source = so !== undefined ? so?.choice : body.guided_choice;
  let choices: string[] | undefined;
  if (so !== undefined || body.guided_choice !== undefined) {
    const field = so !== undefined ? 'structured_outputs' : 'guided_choice';
    if (!c.structuredOutputs) return invalid(`Unrecognized request argument supplied: ${field}`, null, null);
    // vLLM's StructuredOutputsParams: its known kinds of constraint only, and `choice` a non-empty list of strings
    if (so !== undefined && Object.keys(so).some((k) => !['choice', 'regex', 'json', 'grammar'].includes(k)))
      return invalid(`Extra inputs are not permitted: ${field}`, field, 'invalid_value');
    if (!Array.isArray(source) || !source.length || source.some((x) => typeof x !== 'string'))
      return invalid(`${field}: choice must be a non-empty list of strings`, field, 'invalid_value');
    choices = source as string[];
  }
  const cap = (body.max_completion_tokens ?? body.max_tokens) as number | undefined;
  return {
    status: 200,
    family: m.family,
    maxTokens: cap,
    reasoning:
      m.family === 'reasoning'
        ? ({ ...DEFAULT_REASONING, ...c.reasoningTokens }[(effort as string | undefined) ?? 'medium'] ?? 0)
        : 0,
    logprobs: body.logprobs === true ? ((top as number | undefined) ?? 0) : undefined,
    choices,
  };
}

/** The tokens of a reply as this server counts them: `[[`, `]]`, words, runs of spaces, single characters. */
export function tokensOf(text: string): string[] {
  return text.match(/\[\[|\]\]|[A-Za-z]+|\s+|[^A-Za-z\s]/g) ?? [];
}

/** The cached prompt tokens of a prompt, given the prefixes seen before (updated). */
export function cachedTokens(c: ProviderContract, prompt: string, seen: Set<string>): number {
  if (!c.cache) return 0;
  const total = Math.ceil(prompt.length / 4);
  const step = c.cache.blockTokens * 4;
  let cached = 0;
  for (let k = step; k <= prompt.length; k += step) {
    const key = createHash('sha256').update(prompt.slice(0, k)).digest('hex');
    if (seen.has(key)) cached = k / 4;
    seen.add(key);
  }
  return total >= c.cache.minTokens ? cached : 0;
}

/**
 * The reply's log-probabilities: every token likely, and at the verdict letter the three letters with probabilities
 * from the prompt's hash (the letter written the most likely), `top` alternatives at most.
 */
export function logprobsOf(text: string, top: number, seed: string) {
  const h = createHash('sha256').update(seed).digest();
  const letterAt = text.lastIndexOf('[[') + 2;
  let offset = 0;
  return tokensOf(text).map((token) => {
    const here = offset;
    offset += token.length;
    if (here === letterAt && /^[ABC]$/.test(token)) {
      const others = ['A', 'B', 'C'].filter((x) => x !== token);
      const p1 = 0.5 + (h[0]! / 255) * 0.45;
      const p2 = (1 - p1) * (0.2 + (h[1]! / 255) * 0.6);
      const alts = [
        { token, logprob: Math.log(p1) },
        { token: others[0]!, logprob: Math.log(p2) },
        { token: others[1]!, logprob: Math.log(1 - p1 - p2) },
      ].slice(0, top);
      return {
        token,
        logprob: Math.log(p1),
        bytes: null,
        top_logprobs: alts.map((a) => ({ ...a, bytes: null })),
      };
    }
    return {
      token,
      logprob: -0.01,
      bytes: null,
      top_logprobs: top ? [{ token, logprob: -0.01, bytes: null }] : [],
    };
  });
}
