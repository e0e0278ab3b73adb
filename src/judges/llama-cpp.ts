import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { ChatWrapper, Llama, LlamaContext, LlamaContextSequence, LlamaGrammar, LlamaModel, Token } from 'node-llama-cpp';
import { JudgeCallError, type JudgeProvider, type JudgeReply, type JudgeRequest } from './judge.ts';

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
 * Several games run at once on one model through the context's sequences; each game takes the free
 * sequence whose cached tokens share the longest prefix with its prompt (system prompt and question are
 * shared by every game of a question) and evaluates only the tokens after that prefix.
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
    if (!Number.isInteger(n) || n < 0) throw new JudgeCallError(`[judge:llama-cpp] option "${k}": expected a non-negative integer, got "${v}"`, false);
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
        throw new JudgeCallError(`[judge:llama-cpp] unknown option "${k}" (known: threads, ctx, gpuLayers, sequences, seed, grammar, reuse, lora, batch, gpu)`, false);
    }
  }
  return o;
}

/**
 * The judge id: the path as given plus the options that change replies (grammar, seed, LoRA). Threads,
 * sequences, context size and GPU layers change speed, not verdicts, so they are not part of it.
 */
export function llamaJudgeId(o: LlamaCppOptions): string {
  const p = new URLSearchParams();
  if (o.grammar === false) p.set('grammar', 'off');
  if (o.seed !== undefined && o.seed !== DEFAULT_SEED) p.set('seed', String(o.seed));
  for (const l of o.lora ?? []) p.append('lora', l);
  const q = p.toString();
  return `llama-cpp/${o.modelPath}${q ? `?${q}` : ''}`;
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

interface Waiter {
  tokens: Token[];
  skipped: number;
  resolve(s: LlamaContextSequence): void;
  reject(e: unknown): void;
}

interface Loaded {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  wrapper: ChatWrapper;
  free: LlamaContextSequence[];
  waiters: Waiter[];
  pairGrammar: LlamaGrammar;
  ratingGrammar: LlamaGrammar;
  letters: LetterTokens;
  /** constructor of the grammar state (kept so the module is imported once, lazily) */
  GrammarState: typeof import('node-llama-cpp').LlamaGrammarEvaluationState;
}

export interface LlamaCppJudge extends JudgeProvider {
  /** load the model now (otherwise on the first call); resolves to what was loaded */
  load(): Promise<{ chatWrapper: string; contextSize: number; sequences: number; threads: number; gpuLayers: number }>;
  complete(req: JudgeRequest): Promise<JudgeReply & LlamaReplyExtras>;
  /** the prompt as the model sees it (chat template applied) and its tokens */
  render(system: string, user: string): Promise<{ text: string; tokens: Token[] }>;
  close(): Promise<void>;
  /** tokens evaluated so far (prompt tokens actually run through the model, not reused) */
  readonly stats: { promptTokens: number; reusedTokens: number; generatedTokens: number; games: number; ms: { render: number; explanation: number; verdict: number } };
}

export function llamaCppJudge(o: LlamaCppOptions): LlamaCppJudge {
  const id = llamaJudgeId(o);
  if (!existsSync(o.modelPath)) throw new JudgeCallError(`[judge:${id}] no such GGUF file: ${o.modelPath}`, false);
  const fail = (m: string, cause?: unknown) => new JudgeCallError(`[judge:${id}] ${m}`, false, undefined, undefined, cause ? { cause } : undefined);
  const threads = o.threads ?? defaultThreads();
  const nSeq = o.sequences ?? 4;
  const grammarOn = o.grammar !== false;
  const reuse = o.prefixReuse !== false;
  const seed = o.seed ?? DEFAULT_SEED;
  const stats = { promptTokens: 0, reusedTokens: 0, generatedTokens: 0, games: 0, ms: { render: 0, explanation: 0, verdict: 0 } };
  let loading: Promise<Loaded> | undefined;

  const load = (): Promise<Loaded> =>
    (loading ??= (async () => {
      let mod: typeof import('node-llama-cpp');
      try {
        mod = await import('node-llama-cpp');
      } catch (e) {
        throw fail('node-llama-cpp is not installed (it is an optional dependency): npm install node-llama-cpp', e);
      }
      try {
        const llama = await mod.getLlama({ gpu: o.gpu === false ? false : 'auto', build: 'never', logLevel: mod.LlamaLogLevel.error, progressLogs: false });
        const model = await llama.loadModel({ modelPath: o.modelPath, gpuLayers: llama.gpu === false ? 0 : (o.gpuLayers ?? 'auto') });
        const contextSize = Math.min(o.contextSize ?? 4096, model.trainContextSize);
        const context = await model.createContext({
          contextSize,
          sequences: nSeq,
          threads,
          batchSize: o.batchSize ?? Math.min(512, contextSize),
          ...(o.lora?.length ? { lora: { adapters: o.lora.map((filePath) => ({ filePath })) } } : {}),
        });
        const wrapper = mod.resolveChatWrapper(model);
        const free = Array.from({ length: nSeq }, () => context.getSequence());
        const pairGrammar = await llama.createGrammar({ grammar: PAIR_GRAMMAR });
        const ratingGrammar = await llama.createGrammar({ grammar: RATING_GRAMMAR });
        return { llama, model, context, wrapper, free, waiters: [], pairGrammar, ratingGrammar, GrammarState: mod.LlamaGrammarEvaluationState, letters: letterTokens(model) };
      } catch (e) {
        throw fail(`cannot load ${o.modelPath}: ${(e as Error)?.message ?? e}`, e);
      }
    })());

  /** The prompt in the model's chat template: system, user, and the start of the model's turn. */
  function render(L: Loaded, system: string, user: string) {
    return L.wrapper.generateContextState({
      chatHistory: [...(system ? [{ type: 'system' as const, text: system }] : []), { type: 'user', text: user }, { type: 'model', response: [] }],
    });
  }

  /**
   * A sequence for this prompt. A free one with the longest common prefix, else wait: a released sequence
   * goes to the waiting game whose prompt shares the longest prefix with what the sequence holds (so with
   * more games in flight than sequences, games of one question gather on one sequence); a game passed
   * over 2 x sequences times is served next, so none starves.
   */
  async function acquire(L: Loaded, tokens: Token[], signal?: AbortSignal): Promise<LlamaContextSequence> {
    if (!L.free.length) {
      const s = await new Promise<LlamaContextSequence>((resolve, reject) => {
        const w: Waiter = { tokens, skipped: 0, resolve, reject };
        L.waiters.push(w);
        signal?.addEventListener('abort', () => {
          const i = L.waiters.indexOf(w);
          if (i >= 0) L.waiters.splice(i, 1), reject(signal.reason);
        }, { once: true });
      });
      return s;
    }
    let best = 0;
    if (reuse) {
      let bestLen = -1;
      L.free.forEach((s, i) => {
        const n = s.compareContextTokens(tokens).firstDifferentIndex;
        if (n > bestLen) [bestLen, best] = [n, i];
      });
    }
    return L.free.splice(best, 1)[0]!;
  }

  function release(L: Loaded, s: LlamaContextSequence) {
    if (!L.waiters.length) return void L.free.push(s);
    let pick = 0;
    if (reuse && L.waiters[0]!.skipped < 2 * nSeq) {
      let bestLen = -1;
      L.waiters.forEach((w, i) => {
        const n = s.compareContextTokens(w.tokens).firstDifferentIndex;
        if (n > bestLen) [bestLen, pick] = [n, i];
      });
    }
    for (let i = 0; i < pick; i++) L.waiters[i]!.skipped++;
    L.waiters.splice(pick, 1)[0]!.resolve(s);
  }

  /** Make the sequence hold `tokens` minus its last one (reusing the common prefix), and return what is left to evaluate. */
  async function align(s: LlamaContextSequence, tokens: Token[]): Promise<Token[]> {
    if (!reuse) {
      await s.clearHistory();
      stats.promptTokens += tokens.length;
      return tokens;
    }
    const keep = Math.min(s.compareContextTokens(tokens).firstDifferentIndex, tokens.length - 1);
    if (keep < s.nextTokenIndex) await s.eraseContextTokenRanges([{ start: keep, end: s.nextTokenIndex }]);
    stats.reusedTokens += keep;
    stats.promptTokens += tokens.length - keep;
    return tokens.slice(keep);
  }

  async function judge(L: Loaded, req: JudgeRequest): Promise<JudgeReply & LlamaReplyExtras> {
    if (req.signal?.aborted) throw req.signal.reason;
    const { model } = L;
    const rating = req.verdict ? req.verdict === 'rating' : /\[\[rating\]\]/.test(req.system + req.user);
    let t0 = performance.now();
    const state = render(L, req.system, req.user);
    const prompt = state.contextText.tokenize(model.tokenizer);
    const ctxSize = L.context.contextSize;
    if (prompt.length + VERDICT_RESERVE > ctxSize)
      throw fail(`the prompt is ${prompt.length} tokens and does not fit the context of ${ctxSize} tokens (${VERDICT_RESERVE} more are needed for the verdict); raise ?ctx= (the model was trained on ${model.trainContextSize})`);
    const budget = Math.max(0, Math.min(req.maxTokens - (grammarOn ? VERDICT_RESERVE : 0), ctxSize - prompt.length - VERDICT_RESERVE));
    const stops = stopStrings(state.stopGenerationTriggers);
    // temperature 0 is greedy in node-llama-cpp; the seed matters only above 0
    const sampling = { temperature: req.temperature, seed };

    stats.ms.render += performance.now() - t0;
    const s = await acquire(L, prompt, req.signal);
    t0 = performance.now();
    try {
      // 1. the explanation, unconstrained
      const generated: Token[] = [];
      let cut: 'eog' | 'verdict' | 'stop' | 'budget' = 'budget';
      const pending = await align(s, prompt);
      if (budget > 0) {
        const it = s.evaluate(pending, sampling);
        for await (const t of it) {
          if (req.signal?.aborted) throw req.signal.reason;
          generated.push(t);
          const tail = model.detokenize(generated.slice(-16));
          if (grammarOn && tail.includes('[[')) {
            cut = 'verdict';
            break;
          }
          if (stops.some((x) => tail.includes(x))) {
            cut = 'stop';
            break;
          }
          if (generated.length >= budget) break;
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
      if (!grammarOn) return { text, tokensIn: prompt.length, tokensOut: generated.length };

      // 2. the verdict, constrained by the grammar: keep the explanation's tokens before any "[[" or stop text
      let keep = generated.length;
      const limit = cut === 'verdict' || cut === 'stop' ? (cut === 'verdict' ? text.indexOf('[[') : text.length) : text.length;
      while (keep > 0 && (model.detokenize(generated.slice(0, keep)).length > limit || /\[$/.test(model.detokenize(generated.slice(0, keep))))) keep--;
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
        const out = await s.controlledEvaluate([...pending2.slice(0, -1), [last, { generateNext: { logits: { filter: { tokens: L.letters.tokens } } } }]]);
        probs = letterProbs(L.letters, out.at(-1)?.next.logits);
        // evaluate the last token again, now sampling through the grammar (greedy: the most probable allowed token)
        await s.eraseContextTokenRanges([{ start: s.nextTokenIndex - 1, end: s.nextTokenIndex }]);
        pending2 = [last];
      }
      for await (const t of s.evaluate(pending2, { ...sampling, grammarEvaluationState: grammarState })) {
        verdictTokens.push(t);
        // the letter decides a pairwise verdict: its "]]" is written, not generated (the game ends here)
        if (!rating || model.detokenize(verdictTokens).endsWith(']]') || verdictTokens.length >= VERDICT_RESERVE) break;
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
      release(L, s);
    }
  }

  /** Like align, but for a target that extends what was already evaluated in this game (always reuses). */
  async function alignFull(s: LlamaContextSequence, tokens: Token[]): Promise<Token[]> {
    const keep = Math.min(s.compareContextTokens(tokens).firstDifferentIndex, tokens.length - 1);
    if (keep < s.nextTokenIndex) await s.eraseContextTokenRanges([{ start: keep, end: s.nextTokenIndex }]);
    return tokens.slice(keep);
  }

  return {
    id,
    stats,
    async load() {
      const L = await load();
      return { chatWrapper: L.wrapper.wrapperName, contextSize: L.context.contextSize, sequences: nSeq, threads, gpuLayers: L.model.gpuLayers };
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
  const n = ((model.fileInfo.metadata as unknown as { tokenizer?: { ggml?: { tokens?: unknown[] } } }).tokenizer?.ggml?.tokens ?? []).length;
  // detokenized after "[[" so that a leading-space token reads " A", not "A"
  const before = model.tokenize('[[', false, 'trimLeadingSpace');
  const letter = new Map<Token, string>();
  for (let t = 0; t < n; t++) {
    const text = model.detokenize([t as Token], false, before);
    if (/^[ABC]\]{0,2}$/.test(text)) letter.set(t as Token, text.charAt(0));
  }
  return { tokens: [...letter.keys()], letter };
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
