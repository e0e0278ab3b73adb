import { availableParallelism } from 'node:os';
import type {
  BatchItem,
  ChatWrapper,
  Llama,
  LlamaContext,
  LlamaContextSequence,
  LlamaGrammar,
  LlamaModel,
  PrioritizedBatchItem,
  Token,
} from 'node-llama-cpp';
import { modelIdentity } from '../gguf-identity.ts';
import { JudgeCallError, type JudgeProvider, type JudgeReply, type JudgeRequest } from '../judge.ts';
import { checkModelFiles, loadModel } from './loader.ts';
import { alignFull, gatherSchedule, orderBatch, Scheduler } from './scheduler.ts';
import { assertInternals, batchItemSequence, copySequence, queuedDecodeCount } from './shim.ts';

/**
 * `llama-cpp/<path.gguf>[?key=value&...]`: a local judge in-process through node-llama-cpp.
 *
 * The prompt is rendered with the model's own chat template (resolved from the GGUF). The judge writes
 * its explanation freely (greedy by default); with `grammar` on (the default) the final verdict is then
 * constrained by a GBNF grammar to exactly one `[[A]]`, `[[B]]` or `[[C]]` (`[[n]]` with n in 1..10 for
 * single grading), and the probability the model gave each verdict letter is recorded (summed over
 * every token whose text is that letter, byte-fallback tokens included). A prompt that does not fit the
 * context is an error that names its size: nothing is ever truncated or shifted out of the context.
 *
 * Several games run at once on one model through the context's sequences (their decode steps share one
 * batch); games are placed on sequences so that each evaluates only the tokens after the longest prompt
 * prefix already cached, in its own sequence or copied from another one (scheduler.ts: Scheduler.acquire
 * and align). node-llama-cpp's internals are read only in shim.ts; the model is loaded by loader.ts.
 */
export interface LlamaCppOptions {
  modelPath: string;
  /** CPU threads per evaluation (default: cores - 1, at least 1; on 2 cores that is 1, see README) */
  threads?: number;
  /** tokens per sequence (default 4096, capped at the model's training context) */
  contextSize?: number;
  /** layers to offload to the GPU: a number, 'auto' or 'max' (default 'auto'; 0 on a CPU-only build) */
  gpuLayers?: number | 'auto' | 'max';
  /** parallel sequences, i.e. games judged at once (default 4) */
  sequences?: number;
  /** sampling seed, used when temperature > 0 (default 42) */
  seed?: number;
  /** constrain the final verdict with a grammar (default true); false measures the raw behaviour */
  grammar?: boolean;
  /** reuse the evaluated prompt prefix kept in a sequence (default true) */
  prefixReuse?: boolean;
  /** LoRA adapter files */
  lora?: string[];
  /** tokens evaluated per batch (default 512) */
  batchSize?: number;
  /** force 'cpu' (no GPU backend) */
  gpu?: 'auto' | false;
}

/** Reply fields only this provider fills. */
export interface LlamaReplyExtras {
  /** positional verdict probabilities {A, B, C}, summing to 1 */
  verdictProbs?: Record<string, number>;
}

/** Options spelled in a judge spec's query string, e.g. `llama-cpp/m.gguf?threads=1&grammar=off`. */
export function parseLlamaSpec(model: string): LlamaCppOptions {
  const q = model.indexOf('?');
  const modelPath = q < 0 ? model : model.slice(0, q);
  const o: LlamaCppOptions = { modelPath };
  if (!modelPath) throw new JudgeCallError('[judge:llama-cpp] expected llama-cpp/<path.gguf>', false);
  const params = new URLSearchParams(q < 0 ? '' : model.slice(q + 1));
  const int = (k: string, v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0)
      throw new JudgeCallError(
        `[judge:llama-cpp] option "${k}": expected a non-negative integer, got "${v}"`,
        false,
      );
    return n;
  };
  const bool = (k: string, v: string) => {
    if (['on', 'true', '1', 'yes'].includes(v)) return true;
    if (['off', 'false', '0', 'no'].includes(v)) return false;
    throw new JudgeCallError(`[judge:llama-cpp] option "${k}": expected on or off, got "${v}"`, false);
  };
  for (const [k, v] of params) {
    switch (k) {
      case 'threads':
        o.threads = Math.max(1, int(k, v));
        break;
      case 'ctx':
      case 'contextSize':
        o.contextSize = int(k, v);
        break;
      case 'gpuLayers':
      case 'gpu-layers':
        o.gpuLayers = v === 'auto' || v === 'max' ? v : int(k, v);
        break;
      case 'sequences':
        o.sequences = Math.max(1, int(k, v));
        break;
      case 'seed':
        o.seed = int(k, v);
        break;
      case 'grammar':
        o.grammar = bool(k, v);
        break;
      case 'prefixReuse':
      case 'reuse':
        o.prefixReuse = bool(k, v);
        break;
      case 'lora':
        o.lora = [...(o.lora ?? []), v];
        break;
      case 'batch':
      case 'batchSize':
        o.batchSize = int(k, v);
        break;
      case 'gpu':
        o.gpu = bool(k, v) ? 'auto' : false;
        break;
      default:
        throw new JudgeCallError(
          `[judge:llama-cpp] unknown option "${k}" (known: threads, ctx, gpuLayers, sequences, seed, grammar, reuse, lora, batch, gpu)`,
          false,
        );
    }
  }
  return o;
}

/**
 * The judge id: the model's name and a short hash of its content (src/judges/gguf-identity.ts), never its
 * path, plus the options that change replies (grammar, seed, LoRA adapters, named the same way). The same
 * file moved is the same judge. Threads, sequences, context size and GPU layers change speed, not verdicts,
 * so they are not part of it.
 */
export function llamaJudgeId(o: LlamaCppOptions): string {
  const p = new URLSearchParams();
  if (o.grammar === false) p.set('grammar', 'off');
  if (o.seed !== undefined && o.seed !== DEFAULT_SEED) p.set('seed', String(o.seed));
  for (const l of o.lora ?? []) {
    const a = modelIdentity(l);
    p.append('lora', `${a.name}@${a.hash}`);
  }
  const q = p.toString();
  const m = modelIdentity(o.modelPath);
  return `llama-cpp/${m.name}@${m.hash}${q ? `?${q}` : ''}`;
}

const DEFAULT_SEED = 42;
/** tokens kept free after the explanation for `\n[[X]]` */
const VERDICT_RESERVE = 8;
const PAIR_GRAMMAR = 'root ::= [ABC] "]]"';
const RATING_GRAMMAR = 'root ::= ("10" | [1-9]) "]]"';

/** The default thread count: one core left for Node and everything else (1 on a 2-core machine). */
export function defaultThreads(): number {
  return Math.max(1, Math.min(8, availableParallelism() - 1));
}

interface Loaded {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  wrapper: ChatWrapper;
  scheduler: Scheduler<LlamaContextSequence>;
  pairGrammar: LlamaGrammar;
  ratingGrammar: LlamaGrammar;
  letters: LetterTokens;
  /** constructor of the grammar state (kept so the module is imported once, lazily) */
  GrammarState: typeof import('node-llama-cpp').LlamaGrammarEvaluationState;
}

export interface LlamaCppJudge extends JudgeProvider {
  /** load the model now (otherwise on the first call); resolves to what was loaded */
  load(): Promise<{
    chatWrapper: string;
    contextSize: number;
    sequences: number;
    threads: number;
    gpuLayers: number;
  }>;
  complete(req: JudgeRequest): Promise<JudgeReply & LlamaReplyExtras>;
  /** the prompt as the model sees it (chat template applied) and its tokens */
  render(system: string, user: string): Promise<{ text: string; tokens: Token[] }>;
  close(): Promise<void>;
  /** tokens evaluated so far (prompt tokens actually run through the model, not reused) */
  readonly stats: {
    promptTokens: number;
    reusedTokens: number;
    copiedTokens: number;
    generatedTokens: number;
    games: number;
    batches: number;
    batchItems: number;
    ms: { render: number; explanation: number; verdict: number };
  };
}

export function llamaCppJudge(o: LlamaCppOptions): LlamaCppJudge {
  checkModelFiles(o.modelPath, o.lora, (m) => new JudgeCallError(`[judge:llama-cpp] ${m}`, false));
  const id = llamaJudgeId(o);
  const fail = (m: string, cause?: unknown) =>
    new JudgeCallError(`[judge:${id}] ${m}`, false, undefined, undefined, cause ? { cause } : undefined);
  const threads = o.threads ?? defaultThreads();
  const nSeq = o.sequences ?? 4;
  const grammarOn = o.grammar !== false;
  const reuse = o.prefixReuse !== false;
  const seed = o.seed ?? DEFAULT_SEED;
  const stats = {
    promptTokens: 0,
    reusedTokens: 0,
    copiedTokens: 0,
    generatedTokens: 0,
    games: 0,
    batches: 0,
    batchItems: 0,
    ms: { render: 0, explanation: 0, verdict: 0 },
  };
  let loading: Promise<Loaded> | undefined;
  /** set once the context and its sequences exist (the batching callbacks below run only after that) */
  let gathering: { context: LlamaContext; scheduler: Scheduler<LlamaContextSequence> } | undefined;

  const load = (): Promise<Loaded> =>
    (loading ??= (async () => {
      const { mod, llama, model, context } = await loadModel(
        {
          modelPath: o.modelPath,
          lora: o.lora,
          gpu: o.gpu,
          gpuLayers: o.gpuLayers,
          contextSize: o.contextSize ?? 4096,
          context: (contextSize) => ({
            sequences: nSeq,
            threads,
            batchSize: o.batchSize ?? Math.min(512, contextSize),
            batching: { dispatchSchedule: gather, itemPrioritizationStrategy: inSequenceOrder },
          }),
        },
        fail,
      );
      try {
        const wrapper = mod.resolveChatWrapper(model);
        const sequences = Array.from({ length: nSeq }, () => context.getSequence());
        assertInternals(context, sequences[0]!);
        const scheduler = new Scheduler({ sequences, reuse, copy: copySequence, counters: stats });
        gathering = { context, scheduler };
        const pairGrammar = await llama.createGrammar({ grammar: PAIR_GRAMMAR });
        const ratingGrammar = await llama.createGrammar({ grammar: RATING_GRAMMAR });
        return {
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
    })());

  /** node-llama-cpp's dispatch schedule: wait until every active sequence has queued its decode (see gatherSchedule) */
  const gather = gatherSchedule(
    () => queuedDecodeCount(gathering?.context),
    () => gathering?.scheduler.active() ?? 0,
  );

  /** node-llama-cpp's batch prioritization strategy: the items by sequence id (see orderBatch), counted. */
  function inSequenceOrder({
    items,
    size,
  }: {
    items: readonly BatchItem[];
    size: number;
  }): PrioritizedBatchItem[] {
    const batch = orderBatch(items, size, (item, i) => batchItemSequence(gathering?.context, item, i));
    stats.batches++;
    stats.batchItems += batch.length;
    return batch;
  }

  /** The prompt in the model's chat template: system, user, and the start of the model's turn. */
  function render(L: Loaded, system: string, user: string) {
    return L.wrapper.generateContextState({
      chatHistory: [
        ...(system ? [{ type: 'system' as const, text: system }] : []),
        { type: 'user', text: user },
        { type: 'model', response: [] },
      ],
    });
  }

  async function judge(L: Loaded, req: JudgeRequest): Promise<JudgeReply & LlamaReplyExtras> {
    if (req.signal?.aborted) throw req.signal.reason;
    const { model } = L;
    const rating = req.verdict ? req.verdict === 'rating' : /\[\[rating\]\]/.test(req.system + req.user);
    // a scheme with its own output format (JudgeLM's "8 7", Arena-Hard's [[A>>B]], ...) is generated unconstrained
    const constrain = grammarOn && req.verdict !== 'free';
    let t0 = performance.now();
    const state = render(L, req.system, req.user);
    const prompt = state.contextText.tokenize(model.tokenizer);
    const ctxSize = L.context.contextSize;
    if (prompt.length + VERDICT_RESERVE > ctxSize)
      throw fail(
        `the prompt is ${prompt.length} tokens and does not fit the context of ${ctxSize} tokens (${VERDICT_RESERVE} more are needed for the verdict); raise ?ctx= (the model was trained on ${model.trainContextSize})`,
      );
    const budget = Math.max(
      0,
      Math.min(req.maxTokens - (constrain ? VERDICT_RESERVE : 0), ctxSize - prompt.length - VERDICT_RESERVE),
    );
    const stops = stopStrings(state.stopGenerationTriggers);
    // temperature 0 is greedy in node-llama-cpp; the seed matters only above 0
    const sampling = { temperature: req.temperature, seed };

    stats.ms.render += performance.now() - t0;
    const slot = await L.scheduler.acquire(prompt, req.signal);
    const s = slot.seq;
    t0 = performance.now();
    try {
      // 1. the explanation, unconstrained
      const generated: Token[] = [];
      let cut: 'eog' | 'verdict' | 'stop' | 'budget' = 'budget';
      const pending = await L.scheduler.align(slot, prompt);
      if (budget > 0) {
        const it = s.evaluate(pending, sampling);
        try {
          for await (const t of it) {
            if (!generated.length) L.scheduler.evaluated(slot);
            if (req.signal?.aborted) throw req.signal.reason;
            generated.push(t);
            const tail = model.detokenize(generated.slice(-16));
            if (constrain && tail.includes('[[')) {
              cut = 'verdict';
              break;
            }
            if (stops.some((x) => tail.includes(x))) {
              cut = 'stop';
              break;
            }
            if (generated.length >= budget) break;
            await L.scheduler.step.arrive(slot);
          }
        } finally {
          L.scheduler.step.leave(slot);
        }
        if (cut === 'budget' && generated.length < budget) cut = 'eog';
      }
      stats.generatedTokens += generated.length;
      stats.ms.explanation += performance.now() - t0;
      t0 = performance.now();
      let text = model.detokenize(generated);
      if (cut === 'stop') {
        const at = Math.min(...stops.map((x) => text.indexOf(x)).filter((i) => i >= 0));
        text = text.slice(0, at);
      }
      if (!constrain) return { text, tokensIn: prompt.length, tokensOut: generated.length };

      // 2. the verdict, constrained by the grammar: keep the explanation's tokens before any "[[" or stop text
      let keep = generated.length;
      const limit =
        cut === 'verdict' || cut === 'stop'
          ? cut === 'verdict'
            ? text.indexOf('[[')
            : text.length
          : text.length;
      while (
        keep > 0 &&
        (model.detokenize(generated.slice(0, keep)).length > limit ||
          /\[$/.test(model.detokenize(generated.slice(0, keep))))
      )
        keep--;
      const explanation = model.detokenize(generated.slice(0, keep));
      const opener = model.tokenize(explanation.trim() ? '\n[[' : '[[', false, 'trimLeadingSpace');
      const target = [...prompt, ...generated.slice(0, keep), ...opener];
      const grammarState = new L.GrammarState({ model, grammar: rating ? L.ratingGrammar : L.pairGrammar });
      const verdictTokens: Token[] = [];
      let probs: Record<string, number> | undefined;
      let pending2 = await alignFull(s, target);
      if (!rating) {
        // the probabilities: raw logits of every token the grammar allows first (the letter alone, or with
        // "]" / "]]" attached, byte-fallback tokens included), read at the verdict position
        const last = pending2.at(-1)!;
        const out = await s.controlledEvaluate([
          ...pending2.slice(0, -1),
          [last, { generateNext: { logits: { filter: { tokens: L.letters.tokens } } } }],
        ]);
        const logits = out.at(-1)?.next.logits;
        probs = letterProbs(L.letters, logits);
        if (req.temperature > 0) {
          // evaluate the last token again, now sampling through the grammar
          await s.eraseContextTokenRanges([{ start: s.nextTokenIndex - 1, end: s.nextTokenIndex }]);
          pending2 = [last];
        } else {
          // greedy through the grammar is the allowed token with the highest logit: read it off, no second pass
          verdictTokens.push(argmax(logits!));
          pending2 = [];
        }
      }
      if (pending2.length)
        for await (const t of s.evaluate(pending2, { ...sampling, grammarEvaluationState: grammarState })) {
          verdictTokens.push(t);
          // the letter decides a pairwise verdict: its "]]" is written, not generated (the game ends here)
          if (
            !rating ||
            model.detokenize(verdictTokens).endsWith(']]') ||
            verdictTokens.length >= VERDICT_RESERVE
          )
            break;
        }
      stats.generatedTokens += verdictTokens.length;
      stats.ms.verdict += performance.now() - t0;
      let verdict = model.detokenize(verdictTokens);
      if (!rating && /^[ABC]\]{0,2}$/.test(verdict)) verdict = `${verdict.charAt(0)}]]`;
      if (!/^(?:[ABC]|10|[1-9])\]\]$/.test(verdict)) throw fail(`the verdict grammar produced "${verdict}"`);
      return {
        text: `${explanation.trimEnd()}${explanation.trim() ? '\n' : ''}[[${verdict}`,
        tokensIn: prompt.length,
        tokensOut: keep + opener.length + verdictTokens.length,
        ...(probs ? { verdictProbs: probs } : {}),
      };
    } finally {
      stats.games++;
      L.scheduler.release(slot);
    }
  }

  return {
    id,
    stats,
    async load() {
      const L = await load();
      return {
        chatWrapper: L.wrapper.wrapperName,
        contextSize: L.context.contextSize,
        sequences: nSeq,
        threads,
        gpuLayers: L.model.gpuLayers,
      };
    },
    async render(system, user) {
      const L = await load();
      const c = render(L, system, user).contextText;
      return { text: c.toString(), tokens: c.tokenize(L.model.tokenizer) };
    },
    async complete(req) {
      if (req.signal?.aborted) throw req.signal.reason;
      const L = await load();
      try {
        return await judge(L, req);
      } catch (e) {
        if (req.signal?.aborted || e instanceof JudgeCallError) throw e;
        throw fail((e as Error)?.message ?? String(e), e);
      }
    },
    async close() {
      if (!loading) return;
      const L = await loading.catch(() => undefined);
      loading = undefined;
      await L?.context.dispose();
      await L?.model.dispose();
      await L?.llama.dispose();
    },
  };
}

/** The plain-text stop triggers of a chat template (e.g. "### Human" for the general wrapper). */
function stopStrings(triggers: readonly unknown[]): string[] {
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

/** The tokens that can start a pairwise verdict after "[[": text "A", "A]" or "A]]" (and B, C), by token. */
interface LetterTokens {
  tokens: Token[];
  letter: Map<Token, string>;
}

function letterTokens(model: LlamaModel): LetterTokens {
  const n = (
    (model.fileInfo.metadata as unknown as { tokenizer?: { ggml?: { tokens?: unknown[] } } }).tokenizer?.ggml
      ?.tokens ?? []
  ).length;
  // detokenized after "[[" so that a leading-space token reads " A", not "A"
  const before = model.tokenize('[[', false, 'trimLeadingSpace');
  const letter = new Map<Token, string>();
  for (let t = 0; t < n; t++) {
    const text = model.detokenize([t as Token], false, before);
    if (/^[ABC]\]{0,2}$/.test(text)) letter.set(t as Token, text.charAt(0));
  }
  return { tokens: [...letter.keys()], letter };
}

/** The token with the highest logit (the first on a tie). */
function argmax(logits: Map<Token, number>): Token {
  let best: Token | undefined;
  let max = -Infinity;
  for (const [t, v] of logits) if (v > max) [best, max] = [t, v];
  return best!;
}

/**
 * The probability of each verdict letter: the softmax of the allowed tokens' logits (the grammar-constrained
 * distribution), summed by token text so that "A" and its byte-fallback token <0x41> add up; sums to 1.
 */
function letterProbs(L: LetterTokens, logits: Map<Token, number> | undefined): Record<string, number> {
  const sum: Record<string, number> = { A: 0, B: 0, C: 0 };
  if (!logits?.size) throw new Error('no logits for the verdict tokens');
  const max = Math.max(...logits.values());
  for (const [t, v] of logits) {
    const c = L.letter.get(t);
    if (c) sum[c]! += Math.exp(v - max);
  }
  const total = sum.A! + sum.B! + sum.C!;
  return { A: sum.A! / total, B: sum.B! / total, C: sum.C! / total };
}
