// Answers generated in-process by node-llama-cpp from a GGUF model (+ a LoRA adapter per checkpoint), loaded by
// the llama-cpp judge's loader (src/judges/llama-cpp/loader.ts: the same import, version guard and load errors).
import { ArenaError } from '../core/types.ts';
import { checkModelFiles, loadModel, type Fail } from '../judges/llama-cpp/loader.ts';
import type { AnswerGenerator } from './generator.ts';

export interface LlamaCppGeneratorOptions {
  gguf: string;
  lora?: string | undefined;
  maxTokens: number;
  /** CPU threads */
  threads: number;
  /** tokens of context (capped at the model's training context) */
  contextSize: number;
  /** sampling seed (used when temperature > 0) */
  seed: number;
}

/** One context sequence, CPU only, conversations one after another in the model's chat template. */
export async function llamaCppGenerator(o: LlamaCppGeneratorOptions): Promise<AnswerGenerator> {
  const fail: Fail = (m, cause, file) =>
    new ArenaError(`[generator:llama-cpp] ${m}`, file ? { file } : undefined, cause ? { cause } : undefined);
  const lora = o.lora ? [o.lora] : [];
  checkModelFiles(o.gguf, lora, fail);
  const {
    mod,
    model,
    context,
    wrapper: chatWrapper,
  } = await loadModel(
    {
      modelPath: o.gguf,
      lora,
      gpu: false,
      contextSize: o.contextSize,
      context: () => ({ threads: o.threads }),
    },
    fail,
  );
  const sequence = context.getSequence();
  // the model's chat format, resolved once with the model: a session resolves it again unless it is given one
  let chain = Promise.resolve('');
  return {
    concurrency: 1,
    generate: (turns, previous, temperature) =>
      (chain = chain.then(async () => {
        const session = new mod.LlamaChatSession({
          contextSequence: sequence,
          chatWrapper,
          autoDisposeSequence: false,
        });
        try {
          let last = '';
          for (let i = 0; i < turns.length; i++) {
            if (i < previous.length) {
              session.setChatHistory([
                ...session.getChatHistory(),
                { type: 'user', text: turns[i]! },
                { type: 'model', response: [previous[i]!] },
              ]);
              continue;
            }
            last = await session.prompt(turns[i]!, { temperature, maxTokens: o.maxTokens, seed: o.seed });
          }
          return last.trim();
        } finally {
          session.dispose({ disposeSequence: false });
          await sequence.clearHistory();
        }
      })),
    close: async () => {
      await context.dispose();
      await model.dispose();
    },
  };
}
