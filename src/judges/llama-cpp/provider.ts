import type { LlamaContextSequence, Token } from 'node-llama-cpp';
import {
  JudgeCallError,
  PromptTooLongError,
  type JudgeProvider,
  type JudgeReply,
  type JudgeRequest,
} from '../judge.ts';
import { checkModelFiles } from './loader.ts';
import { DEFAULT_SEED, defaultThreads, llamaJudgeId, type LlamaCppOptions } from './options.ts';
import { promptTokens, renderPrompt, stopStrings } from './render.ts';
import type { Slot } from './scheduler.ts';
import { openSession, type Session } from './session.ts';
import { generateVerdict, VERDICT_RESERVE, verdictText, type ExplanationCut } from './verdict.ts';

export { defaultThreads, llamaJudgeId, parseLlamaSpec, type LlamaCppOptions } from './options.ts';

/**
 * `llama-cpp/<path.gguf>[?key=value&...]`: a local judge in-process through node-llama-cpp. The prompt is in the
 * model's own chat template (render.ts); the explanation is free, the verdict constrained by a grammar with its
 * letters' probabilities recorded (verdict.ts); a prompt that does not fit the context is never truncated.
 * Several games run at once on the context's sequences, each reusing the longest cached prefix (scheduler.ts).
 */
export interface LlamaCppJudge extends JudgeProvider {
  /** load the model now (otherwise on the first call); resolves to what was loaded */
  load(): Promise<{
    chatWrapper: string;
    contextSize: number;
    sequences: number;
    threads: number;
    gpuLayers: number;
  }>;
  complete(req: JudgeRequest): Promise<JudgeReply>;
  /** the prompt as the model sees it (chat template applied) and its tokens */
  render(system: string, user: string): Promise<{ text: string; tokens: Token[] }>;
  close(): Promise<void>;
  /** tokens evaluated so far (prompt tokens actually run through the model, not reused) */
  readonly stats: LlamaStats;
}

interface LlamaStats {
  promptTokens: number;
  reusedTokens: number;
  copiedTokens: number;
  generatedTokens: number;
  games: number;
  batches: number;
  batchItems: number;
  ms: { render: number; explanation: number; verdict: number };
}

type Fail = (m: string, cause?: unknown) => JudgeCallError;

export function llamaCppJudge(o: LlamaCppOptions): LlamaCppJudge {
  checkModelFiles(o.modelPath, o.lora, (m) => new JudgeCallError(`[judge:llama-cpp] ${m}`, false));
  if (o.reliabilityBase)
    checkModelFiles(o.reliabilityBase, [], (m) => new JudgeCallError(`[judge:llama-cpp] base: ${m}`, false));
  const id = llamaJudgeId(o);
  const fail: Fail = (m, cause) =>
    new JudgeCallError(`[judge:${id}] ${m}`, false, undefined, undefined, cause ? { cause } : undefined);
  const threads = o.threads ?? defaultThreads();
  const nSeq = o.sequences ?? 4;
  const game: GameSettings = { id, grammarOn: o.grammar !== false, seed: o.seed ?? DEFAULT_SEED };
  const stats: LlamaStats = {
    promptTokens: 0,
    reusedTokens: 0,
    copiedTokens: 0,
    generatedTokens: 0,
    games: 0,
    batches: 0,
    batchItems: 0,
    ms: { render: 0, explanation: 0, verdict: 0 },
  };
  let loading: Promise<Session> | undefined;
  const load = (): Promise<Session> =>
    (loading ??= openSession(o, { threads, sequences: nSeq, reuse: o.prefixReuse !== false }, stats, fail));

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
      const c = renderPrompt(L.wrapper, system, user).contextText;
      const tokens = promptTokens(L.model, c);
      return { text: L.model.detokenize(tokens, true), tokens };
    },
    async complete(req) {
      if (req.signal?.aborted) throw req.signal.reason;
      const L = await load();
      try {
        return await judge(L, req, game, stats, fail);
      } catch (e) {
        if (req.signal?.aborted || e instanceof JudgeCallError) throw e;
        throw fail((e as Error)?.message ?? String(e), e);
      }
    },
    async close() {
      if (!loading) return;
      const L = await loading.catch(() => undefined);
      loading = undefined;
      await L?.softEnt?.dispose();
      await L?.context.dispose();
      // the runtime (L.llama) is the process's, shared with every other model loaded (loader.ts)
      await L?.model.dispose();
    },
  };
}

/** The judge's id (for its errors), whether the verdict is constrained by a grammar, and the seed. */
type GameSettings = { id: string; grammarOn: boolean; seed: number };

/** One game: the prompt rendered, a sequence acquired, the explanation, then the verdict. */
async function judge(
  L: Session,
  req: JudgeRequest,
  game: GameSettings,
  stats: LlamaStats,
  fail: Fail,
): Promise<JudgeReply> {
  if (req.signal?.aborted) throw req.signal.reason;
  const { model } = L;
  const rating = req.verdict ? req.verdict === 'rating' : /\[\[rating\]\]/.test(req.system + req.user);
  // a scheme with its own output format (JudgeLM's "8 7", Arena-Hard's [[A>>B]], ...) is generated unconstrained
  const constrain = game.grammarOn && req.verdict !== 'free';
  let t0 = performance.now();
  const state = renderPrompt(L.wrapper, req.system, req.user);
  const prompt = promptTokens(model, state.contextText);
  const ctxSize = L.context.contextSize;
  if (prompt.length + VERDICT_RESERVE > ctxSize)
    throw new PromptTooLongError(
      `[judge:${game.id}]`,
      prompt.length,
      ctxSize,
      `${VERDICT_RESERVE} more tokens are needed for the verdict; raise ?ctx= (the model was trained on ${model.trainContextSize})`,
    );
  const budget = Math.max(
    0,
    Math.min(req.maxTokens - (constrain ? VERDICT_RESERVE : 0), ctxSize - prompt.length - VERDICT_RESERVE),
  );
  const stops = stopStrings(state.stopGenerationTriggers);
  // temperature 0 is greedy in node-llama-cpp; the seed matters only above 0
  const sampling = { temperature: req.temperature, seed: game.seed };

  stats.ms.render += performance.now() - t0;
  const played = await play(L, req, { prompt, budget, constrain, stops, sampling, rating }, stats, fail);
  // scored once the game's sequence is free for the next game (SoftEnt-Cali has contexts of its own)
  if (!L.softEnt || !played.replyTokens || rating) return played.reply;
  return { ...played.reply, reliability: await L.softEnt.score(prompt, played.replyTokens) };
}

/** The game on a sequence: the explanation, then the verdict; with the reply's tokens after the prompt. */
async function play(
  L: Session,
  req: JudgeRequest,
  g: {
    prompt: Token[];
    budget: number;
    constrain: boolean;
    stops: string[];
    sampling: { temperature: number; seed: number };
    rating: boolean;
  },
  stats: LlamaStats,
  fail: Fail,
): Promise<{ reply: JudgeReply; replyTokens?: Token[] }> {
  const { model } = L;
  const { prompt, budget, constrain, stops, sampling, rating } = g;
  const slot = await L.scheduler.acquire(prompt, req.signal);
  let t0 = performance.now();
  try {
    // 1. the explanation, unconstrained
    const { generated, cut } = await explain(
      L,
      slot,
      prompt,
      { budget, constrain, stops, sampling },
      req.signal,
    );
    stats.generatedTokens += generated.length;
    stats.ms.explanation += performance.now() - t0;
    t0 = performance.now();
    let text = model.detokenize(generated);
    if (cut === 'stop') {
      const at = Math.min(...stops.map((x) => text.indexOf(x)).filter((i) => i >= 0));
      text = text.slice(0, at);
    }
    if (!constrain) return { reply: { text, tokensIn: prompt.length, tokensOut: generated.length } };

    // 2. the verdict, constrained by the grammar
    const v = await generateVerdict(L, slot.seq, { prompt, generated, text, cut, rating, sampling });
    stats.generatedTokens += v.verdictTokens.length;
    stats.ms.verdict += performance.now() - t0;
    return {
      reply: {
        text: verdictText(model, v, rating, fail),
        tokensIn: prompt.length,
        tokensOut: v.tokensOut,
        ...(v.probs ? { verdictProbs: v.probs } : {}),
      },
      replyTokens: v.replyTokens,
    };
  } finally {
    stats.games++;
    L.scheduler.release(slot);
  }
}

/**
 * The explanation, generated freely in lockstep with the other games until the end of generation, the
 * verdict opener "[[" (when the verdict is constrained), a stop string, or the token budget.
 */
async function explain(
  L: Session,
  slot: Slot<LlamaContextSequence>,
  prompt: Token[],
  o: { budget: number; constrain: boolean; stops: string[]; sampling: { temperature: number; seed: number } },
  signal: AbortSignal | undefined,
): Promise<{ generated: Token[]; cut: ExplanationCut }> {
  const generated: Token[] = [];
  let cut: ExplanationCut = 'budget';
  const pending = await L.scheduler.align(slot, prompt);
  if (o.budget <= 0) return { generated, cut };
  const it = slot.seq.evaluate(pending, o.sampling);
  try {
    for await (const t of it) {
      if (!generated.length) L.scheduler.evaluated(slot);
      if (signal?.aborted) throw signal.reason;
      generated.push(t);
      const tail = L.model.detokenize(generated.slice(-16));
      if (o.constrain && tail.includes('[[')) {
        cut = 'verdict';
        break;
      }
      if (o.stops.some((x) => tail.includes(x))) {
        cut = 'stop';
        break;
      }
      if (generated.length >= o.budget) break;
      await L.scheduler.step.arrive(slot);
    }
  } finally {
    L.scheduler.step.leave(slot);
  }
  if (cut === 'budget' && generated.length < o.budget) cut = 'eog';
  return { generated, cut };
}
