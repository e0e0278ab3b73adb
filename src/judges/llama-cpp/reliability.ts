// SoftEnt-Cali ("On the Limitations of Fine-tuned Judge Models", its reliability section): the judge's mean softmax
// entropy over the tokens of its reply, minus the entropy its foundation model (a GGUF with the same vocabulary)
// gives the same tokens after the same prompt. Lower: the sample lies within what the fine-tuning taught the judge.
import type { Llama, LlamaContext, LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';

/** The entropy in nats of the softmax of `logits` (all of the vocabulary's). */
function entropyNats(logits: Iterable<number>): number {
  const z = [...logits];
  const max = Math.max(...z);
  let sum = 0;
  let dot = 0;
  for (const v of z) {
    const e = Math.exp(v - max);
    sum += e;
    dot += e * (v - max);
  }
  // H = log Σ e^z - Σ p z  (shifted by max, which cancels)
  return Math.log(sum) - dot / sum;
}

/**
 * The mean entropy (nats) of `seq`'s model's next-token distribution at each position that predicts a token of
 * `reply`, after `prompt`: prompt and reply (but its last token) evaluated in one pass from an empty sequence.
 */
async function meanReplyEntropy(
  seq: LlamaContextSequence,
  prompt: readonly Token[],
  reply: readonly Token[],
): Promise<number> {
  if (!reply.length || !prompt.length)
    throw new Error('SoftEnt needs a prompt and a reply of at least one token');
  await seq.clearHistory();
  const asked = { generateNext: { logits: true as const } };
  const input = [...prompt, ...reply.slice(0, -1)];
  const first = prompt.length - 1;
  const out = await seq.controlledEvaluate(input.map((t, i) => (i >= first ? [t, asked] : t)));
  let total = 0;
  for (let i = first; i < input.length; i++) {
    const logits = out[i]?.next.logits;
    if (!logits?.size) throw new Error(`no logits at position ${i}`);
    total += entropyNats(logits.values());
  }
  return total / reply.length;
}

/** The tokenizer's vocabulary as the GGUF lists it (tokenizer.ggml.tokens). */
export function vocabulary(model: LlamaModel): unknown[] {
  const md = model.fileInfo.metadata as unknown as { tokenizer?: { ggml?: { tokens?: unknown[] } } };
  return md.tokenizer?.ggml?.tokens ?? [];
}

/** Why `base` cannot calibrate `judge` (a different vocabulary), or undefined. */
function vocabularyMismatch(judge: LlamaModel, base: LlamaModel): string | undefined {
  const a = vocabulary(judge);
  const b = vocabulary(base);
  if (!a.length) return 'the judge GGUF lists no vocabulary (tokenizer.ggml.tokens)';
  if (a.length !== b.length) return `the vocabularies differ: ${a.length} tokens against ${b.length}`;
  const i = a.findIndex((t, k) => t !== b[k]);
  return i < 0
    ? undefined
    : `the vocabularies differ at token ${i}: ${JSON.stringify(a[i])} against ${JSON.stringify(b[i])}`;
}

/**
 * The foundation model `basePath` loaded beside the judge's `model`, and a context of one sequence on each (no
 * flash attention: options.ts); throws when the vocabularies differ.
 */
export async function openSoftEntCali(
  llama: Llama,
  model: LlamaModel,
  basePath: string,
  o: { contextSize: number; threads: number },
): Promise<SoftEntCali> {
  const base = await llama.loadModel({ modelPath: basePath, gpuLayers: model.gpuLayers });
  const contexts: LlamaContext[] = [];
  try {
    const why = vocabularyMismatch(model, base);
    if (why) throw new Error(`${basePath} cannot calibrate this judge: ${why}`);
    const settings = {
      contextSize: o.contextSize,
      sequences: 1,
      threads: o.threads,
      batchSize: Math.min(512, o.contextSize),
      flashAttention: false,
    };
    contexts.push(await model.createContext(settings), await base.createContext(settings));
    return new SoftEntCali(contexts[0]!.getSequence(), contexts[1]!.getSequence(), async () => {
      for (const c of contexts) await c.dispose();
      await base.dispose();
    });
  } catch (e) {
    for (const c of contexts) await c.dispose();
    await base.dispose();
    throw e;
  }
}

/** A sequence of each model (of contexts of their own), taking games in turn: a score is two passes. */
export class SoftEntCali {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly judge: LlamaContextSequence,
    private readonly base: LlamaContextSequence,
    readonly dispose: () => Promise<void>,
  ) {}

  /** SoftEnt(judge) − SoftEnt(base) over `reply` after `prompt`, in nats. */
  score(prompt: readonly Token[], reply: readonly Token[]): Promise<number> {
    const run = this.queue.then(async () => {
      const j = await meanReplyEntropy(this.judge, prompt, reply);
      const b = await meanReplyEntropy(this.base, prompt, reply);
      return j - b;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
