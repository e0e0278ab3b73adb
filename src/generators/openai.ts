// Answers from an OpenAI-compatible server serving a checkpoint (vLLM, llama.cpp server, ...), on the judges'
// client setup (src/judges/openai.ts: keep-alive fetch, reply bodies capped).
import OpenAI from 'openai';
import { ArenaError } from '../core/types.ts';
import { bodyOf, familyOf, sentSettings } from '../judges/contract.ts';
import { openaiClient } from '../judges/openai.ts';
import { redactSecrets } from '../judges/redact.ts';
import type { AnswerGenerator } from './generator.ts';

export interface OpenAIGeneratorOptions {
  baseURL: string;
  model: string;
  apiKey?: string | undefined;
  maxTokens: number;
}

/**
 * A chat completion per turn, n = 1. With no retry wrapper here, the SDK retries transport faults itself, and a
 * call may take up to 10 minutes.
 */
export function openaiGenerator(o: OpenAIGeneratorOptions): AnswerGenerator {
  const client = openaiClient({
    apiKey: o.apiKey || 'sk-none',
    baseURL: o.baseURL,
    maxRetries: 6,
    timeoutMs: 600_000,
  });
  const where = `[generator:openai] ${o.baseURL} ${o.model}`;
  return {
    async generate(turns, previous, temperature) {
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
      turns.forEach((u, i) => {
        messages.push({ role: 'user', content: u });
        if (i < previous.length) messages.push({ role: 'assistant', content: previous[i]! });
      });
      let text: unknown;
      let cut = false;
      try {
        // a reasoning model takes max_completion_tokens and refuses FastChat's per-category temperatures
        const reasoning = familyOf(o.model) === 'reasoning';
        const settings = sentSettings(o.model, {
          maxTokens: o.maxTokens,
          ...(reasoning ? {} : { temperature }),
        });
        const r = (await client.chat.completions.create({
          model: o.model,
          messages,
          ...bodyOf(settings),
        } as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming)) as OpenAI.Chat.ChatCompletion;
        text = r.choices?.[0]?.message?.content;
        cut = r.choices?.[0]?.finish_reason === 'length';
      } catch (e) {
        // no `cause`: the SDK's error holds the request headers (the key)
        const why: string[] = [];
        for (let c: unknown = e; c instanceof Error; c = c.cause) why.push(c.message);
        throw new ArenaError(redactSecrets(`${where}: ${why.join(': ') || String(e)}`, [o.apiKey]));
      }
      if (typeof text !== 'string') throw new ArenaError(`${where}: the response has no message content`);
      // an empty answer would be judged as the model's: reasoning that used the whole allowance gives none
      if (!text.trim() && cut)
        throw new ArenaError(
          `${where}: an empty answer at the token allowance (${o.maxTokens}; a reasoning model's reasoning counts against it): raise generation.maxTokens`,
        );
      return text.trim();
    },
    close: async () => {},
  };
}
