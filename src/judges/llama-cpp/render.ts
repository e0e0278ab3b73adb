// The prompt as the model sees it: the judge's system and user text in the model's own chat template (resolved
// from the GGUF), and the template's plain-text stop triggers.
import type { ChatWrapper, LlamaModel, LlamaText, Token } from 'node-llama-cpp';

/** The prompt in the model's chat template: system, user, and the start of the model's turn. */
export function renderPrompt(wrapper: ChatWrapper, system: string, user: string) {
  return wrapper.generateContextState({
    chatHistory: [
      ...(system ? [{ type: 'system' as const, text: system }] : []),
      { type: 'user', text: user },
      { type: 'model', response: [] },
    ],
  });
}

/**
 * The prompt's tokens: node-llama-cpp's built-in chat wrappers start with a BOS token whether or not the model
 * takes one; a GGUF whose tokenizer adds none is given none, as llama.cpp gives it (bench/README.md).
 */
export function promptTokens(model: LlamaModel, text: LlamaText): Token[] {
  const tokens = text.tokenize(model.tokenizer);
  const first = text.values[0] as { value?: unknown } | undefined;
  const wrapperBos = typeof first === 'object' && first?.value === 'BOS';
  return wrapperBos && !model.tokens.shouldPrependBosToken && tokens[0] === model.tokens.bos
    ? tokens.slice(1)
    : tokens;
}

/** The plain-text stop triggers of a chat template (e.g. "### Human" for the general wrapper). */
export function stopStrings(triggers: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const t of triggers) {
    const values = (t as { values?: unknown[] })?.values ?? [];
    if (values.length && values.every((v) => typeof v === 'string')) {
      const s = (values as string[]).join('');
      if (s.trim()) out.push(s);
    }
  }
  return out;
}
