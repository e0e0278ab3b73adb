// The judge's loaded model: the runtime, the model, one context with its sequences (and the scheduler that
// places games on them, wired to node-llama-cpp's batching callbacks), the chat wrapper and the verdict grammars.
import type {
  BatchItem,
  ChatWrapper,
  Llama,
  LlamaContext,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaModel,
  PrioritizedBatchItem,
} from 'node-llama-cpp';
import { loadModel, type Fail } from './loader.ts';
import type { LlamaCppOptions } from './options.ts';
import { openSoftEntCali, type SoftEntCali } from './reliability.ts';
import { gatherSchedule, orderBatch, Scheduler, type PromptCounters } from './scheduler.ts';
import { assertInternals, batchItemSequence, copySequence, queuedDecodeCount } from './shim.ts';
import { letterTokens, PAIR_GRAMMAR, RATING_GRAMMAR, type LetterTokens } from './verdict.ts';

export interface Session {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  wrapper: ChatWrapper;
  scheduler: Scheduler<LlamaContextSequence>;
  pairGrammar: LlamaGrammar;
  ratingGrammar: LlamaGrammar;
  letters: LetterTokens;
  /** SoftEnt-Cali's models, when the judge computes it (reliability.ts) */
  softEnt?: SoftEntCali;
  /** constructor of the grammar state (kept so the module is imported once, lazily) */
  GrammarState: typeof import('node-llama-cpp').LlamaGrammarEvaluationState;
}

/** Loads the model and builds everything a game needs on it (a failure is `cannot load <path>: <why>`). */
export async function openSession(
  o: LlamaCppOptions,
  settings: { threads: number; sequences: number; reuse: boolean },
  stats: PromptCounters & { batches: number; batchItems: number },
  fail: Fail,
): Promise<Session> {
  /** set once the context and its sequences exist (the batching callbacks below run only after that) */
  let gathering: { context: LlamaContext; scheduler: Scheduler<LlamaContextSequence> } | undefined;

  /** node-llama-cpp's dispatch schedule: wait until every active sequence has queued its decode (see gatherSchedule) */
  const gather = gatherSchedule(
    () => queuedDecodeCount(gathering?.context),
    () => gathering?.scheduler.active() ?? 0,
  );

  /** node-llama-cpp's batch prioritization strategy: the items by sequence id (see orderBatch), counted. */
  function inSequenceOrder(b: { items: readonly BatchItem[]; size: number }): PrioritizedBatchItem[] {
    const { items, size } = b;
    const batch = orderBatch(items, size, (item, i) => batchItemSequence(gathering?.context, item, i));
    stats.batches++;
    stats.batchItems += batch.length;
    return batch;
  }

  const { mod, llama, model, context, wrapper } = await loadModel(
    {
      modelPath: o.modelPath,
      lora: o.lora,
      gpu: o.gpu,
      gpuLayers: o.gpuLayers,
      contextSize: o.contextSize ?? 4096,
      context: (contextSize) => ({
        sequences: settings.sequences,
        threads: settings.threads,
        batchSize: o.batchSize ?? Math.min(512, contextSize),
        // node-llama-cpp's default is 'auto' (on where llama.cpp supports it): off unless asked (options.ts)
        flashAttention: o.flashAttention ?? false,
        batching: { dispatchSchedule: gather, itemPrioritizationStrategy: inSequenceOrder },
      }),
    },
    fail,
  );
  try {
    const sequences = Array.from({ length: settings.sequences }, () => context.getSequence());
    assertInternals(context, sequences[0]!);
    const scheduler = new Scheduler({
      sequences,
      reuse: settings.reuse,
      copy: copySequence,
      counters: stats,
    });
    gathering = { context, scheduler };
    const pairGrammar = await llama.createGrammar({ grammar: PAIR_GRAMMAR });
    const ratingGrammar = await llama.createGrammar({ grammar: RATING_GRAMMAR });
    const softEnt = o.reliabilityBase
      ? await openSoftEntCali(llama, model, o.reliabilityBase, {
          contextSize: context.contextSize,
          threads: settings.threads,
        })
      : undefined;
    return {
      ...(softEnt ? { softEnt } : {}),
      llama,
      model,
      context,
      wrapper,
      scheduler,
      pairGrammar,
      ratingGrammar,
      GrammarState: mod.LlamaGrammarEvaluationState,
      letters: letterTokens(model),
    };
  } catch (e) {
    throw fail(`cannot load ${o.modelPath}: ${(e as Error)?.message ?? e}`, e);
  }
}
