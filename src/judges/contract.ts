// What a judge call sends to an OpenAI-compatible server, and what its refusals mean. Chat models get FastChat's
// settings (temperature 0, max_tokens), unchanged; reasoning models take max_completion_tokens, refuse a temperature
// other than their default and take reasoning_effort. The settings sent are the game's settings (its identity).
import type { JudgeSettings } from '../core/types.ts';
import type { AskedSettings } from './judge.ts';
import { modelEntry } from '../core/openai-models.ts';

export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/**
 * How to ask a server for a reply that is a verdict: vLLM's structured outputs (>= 0.12, or the older
 * guided_choice), llama.cpp's GBNF grammar.
 */
export const STRUCTURED_OUTPUTS = ['vllm', 'vllm-guided', 'llama-cpp'] as const;
export type StructuredOutput = (typeof STRUCTURED_OUTPUTS)[number];

/** A judge's API options (`api` in judge configs; `--reasoning-effort` etc. on the command line). */
export interface ApiOptions {
  /** overrides the guess from the model's name */
  family?: 'chat' | 'reasoning' | undefined;
  /** overrides the family's */
  maxTokensParam?: 'max_tokens' | 'max_completion_tokens' | undefined;
  /** null: send none (the model's default); overrides the run's settings */
  temperature?: number | null | undefined;
  reasoningEffort?: ReasoningEffort | undefined;
  structuredOutput?: StructuredOutput | undefined;
  /** ask for this many top log-probabilities per token, and keep the verdict letter's (chat models) */
  logprobs?: number | undefined;
}

/** Whether a base URL is OpenAI's own API (none given: it is), where model names are OpenAI's. */
export function isOpenAI(baseURL: string | undefined): boolean {
  return !baseURL || /^https:\/\/api\.openai\.com(\/|$)/.test(baseURL);
}

/** The family of a model: as told, else the table's (openai-models.ts), else a guess from its name (any server). */
export function familyOf(model: string, o: ApiOptions = {}): 'chat' | 'reasoning' {
  if (o.family) return o.family;
  const known = modelEntry(model)?.family;
  if (known) return known;
  return /^(o\d|gpt-[5-9])/.test(model) && !/-chat/.test(model) ? 'reasoning' : 'chat';
}

/**
 * The settings a call sends, from those asked: chat models temperature 0 by default (FastChat's identity),
 * reasoning models none unless asked, and max_completion_tokens. Idempotent.
 */
export function sentSettings(model: string, asked: AskedSettings, o: ApiOptions = {}): JudgeSettings {
  const family = familyOf(model, o);
  const reasoning = family === 'reasoning';
  const t = o.temperature !== undefined ? o.temperature : asked.temperature;
  const param = o.maxTokensParam ?? (asked.maxTokensParam as string | undefined);
  const s: JudgeSettings = { ...asked, temperature: t === undefined ? (reasoning ? null : 0) : t };
  const mct = o.maxTokensParam
    ? o.maxTokensParam === 'max_completion_tokens'
    : reasoning || param === 'max_completion_tokens';
  if (mct) s.maxTokensParam = 'max_completion_tokens';
  else delete s.maxTokensParam;
  if (o.reasoningEffort) s.reasoningEffort = o.reasoningEffort;
  if (o.structuredOutput) s.structuredOutput = o.structuredOutput;
  if (o.logprobs) s.logprobs = o.logprobs;
  return s;
}

/**
 * The replies a constrained call may give: the verdict alone. A free explanation before it cannot be bounded cheaply
 * (a GBNF repetition bound slows decoding many times over: bench/README.md), and a model that never writes the
 * verdict by itself (SmolLM2-135M) would ramble to the allowance: so the constrained judge gives no explanation.
 */
const CHOICES = {
  pair: ['[[A]]', '[[B]]', '[[C]]'],
  rating: Array.from({ length: 10 }, (_, i) => `[[${i + 1}]]`),
} as const;

/** A GBNF grammar for one of `choices`. */
const gbnf = (choices: readonly string[]) => `root ::= ${choices.map((c) => JSON.stringify(c)).join(' | ')}`;

/** The request body's fields for these settings (the model and messages aside). */
export function bodyOf(s: JudgeSettings, verdict?: 'pair' | 'rating' | 'free'): Record<string, unknown> {
  const body: Record<string, unknown> = { n: 1 };
  if (s.temperature !== null && s.temperature !== undefined) body.temperature = s.temperature;
  body[s.maxTokensParam === 'max_completion_tokens' ? 'max_completion_tokens' : 'max_tokens'] = s.maxTokens;
  if (typeof s.reasoningEffort === 'string') body.reasoning_effort = s.reasoningEffort;
  if (typeof s.logprobs === 'number') Object.assign(body, { logprobs: true, top_logprobs: s.logprobs });
  const choices = verdict === 'pair' || verdict === 'rating' ? CHOICES[verdict] : undefined;
  if (choices && s.structuredOutput === 'vllm') body.structured_outputs = { choice: choices };
  if (choices && s.structuredOutput === 'vllm-guided') body.guided_choice = choices;
  if (choices && s.structuredOutput === 'llama-cpp') body.grammar = gbnf(choices);
  return body;
}

/** Why a call can never succeed, whatever the retries: the run stops at the first one (judges/fatal-stop.ts). */
export type FatalKind = 'auth' | 'retired' | 'contract';

/** The kind of a refusal no retry can fix, from its status and OpenAI's error body: a key, a model, a parameter. */
export function fatalKind(
  status: number | undefined,
  err: { code?: unknown; param?: unknown; message?: unknown } | undefined,
): FatalKind | undefined {
  if (status === 401 || status === 403) return 'auth';
  const code = typeof err?.code === 'string' ? err.code : '';
  const msg = typeof err?.message === 'string' ? err.message : '';
  if (
    status === 404 &&
    (code === 'model_not_found' ||
      /\bmodel\s+[`'"][^`'"]+[`'"]\s+(has been deprecated|does not exist|not found)/i.test(msg))
  )
    return 'retired';
  if (
    status === 400 &&
    (code === 'unsupported_parameter' ||
      code === 'unsupported_value' ||
      /^Unsupported (parameter|value)/.test(msg))
  )
    return 'contract';
  return undefined;
}

/** One line for a request this model refuses: what it refused, why, and what to change. */
export function contractHint(model: string, param: string | undefined, s: JudgeSettings | undefined): string {
  const reasoning = s?.maxTokensParam === 'max_completion_tokens';
  if (param === 'temperature')
    return reasoning
      ? `${model} refuses temperature ${s?.temperature ?? '?'}: it is a reasoning model; drop --temperature (settings.temperature) or set "api": { "temperature": null }, and set --reasoning-effort (reasoningEffort) instead`
      : `${model} refuses temperature ${s?.temperature ?? '?'}: if it is a reasoning model, say so ("api": { "family": "reasoning" }); else drop --temperature (settings.temperature) or set "api": { "temperature": null }`;
  if (param === 'max_tokens')
    return `${model} refuses max_tokens: it is a reasoning model; set "api": { "family": "reasoning" } (or "maxTokensParam": "max_completion_tokens") for this judge`;
  if (param === 'reasoning_effort' && !reasoning)
    return `${model} refuses reasoning_effort: it is not a reasoning model; drop --reasoning-effort (reasoningEffort)`;
  if (param === 'logprobs' || param === 'top_logprobs')
    return `${model} refuses logprobs: drop "api": { "logprobs" } for this judge`;
  return `${model} refuses ${param ?? 'a parameter'}: change or drop it in this judge's settings or "api" options`;
}

/**
 * The verdict's probabilities from a reply's token log-probabilities: the top alternatives A, B and C at the last
 * `[[X]]`'s letter, normalised over the three; undefined when that letter is not a token of its own.
 */
export function verdictProbsOf(text: string, content: unknown): Record<string, number> | undefined {
  if (!Array.isArray(content)) return undefined;
  const at = text.lastIndexOf('[[');
  if (at < 0 || !/^\[\[[ABC]\]\]/.test(text.slice(at))) return undefined;
  const letterAt = at + 2;
  let offset = 0;
  // nothing a server sends is trusted
  for (const t of content as { token?: unknown; top_logprobs?: unknown }[]) {
    if (typeof t?.token !== 'string') return undefined;
    const end = offset + t.token.length;
    if (end > letterAt) {
      if (t.token.trim() !== text[letterAt] || !Array.isArray(t.top_logprobs)) return undefined;
      const p: Record<string, number> = { A: 0, B: 0, C: 0 };
      for (const alt of t.top_logprobs as { token?: unknown; logprob?: unknown }[]) {
        const k = typeof alt?.token === 'string' ? alt.token.trim() : '';
        if (k in p && typeof alt.logprob === 'number' && Number.isFinite(alt.logprob) && alt.logprob <= 0)
          p[k] = Math.max(p[k]!, Math.exp(alt.logprob));
      }
      const sum = p.A! + p.B! + p.C!;
      if (!(sum > 0)) return undefined;
      return { A: p.A! / sum, B: p.B! / sum, C: p.C! / sum };
    }
    offset = end;
  }
  return undefined;
}
