// The local judge on a real model (SmolLM2-135M-Instruct, scripts/test-models.sh) against llama-cpp-python
// (tests/reference/llama_cpp_ref.py): chat template, verdict probabilities, greedy verdicts, an over-long prompt.
// The server path is real-server.test.ts, SoftEnt-Cali real-softent.test.ts (own files, to run in parallel).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PromptTooLongError } from '../../../src/judges/judge.ts';
import { llamaCppJudge, type LlamaCppJudge } from '../../../src/judges/llama-cpp/provider.ts';
import { noMtbench, skipWhy } from '../../support/materials.ts';
import { assertRealModel, llamaCppPython, REAL_GGUF, realModelSkip } from '../../support/real-model.ts';
import { REAL_GAMES, realModelGames, storedGames, type StoredGame } from './real-games.ts';

const skip = realModelSkip || skipWhy('real model', noMtbench('the games the real model judges'));

interface RefGame {
  prompt_tokens: number;
  explanation: string;
  cut: string;
  probs: Record<'A' | 'B' | 'C', number>;
  verdict: 'A' | 'B' | 'C';
}

/** the in-process judge's games */
let games: StoredGame[] = [];

/** llama-cpp-python on the first game's rendered prompt, then every game: one model load for both. */
let reference: { render: { text: string; tokens: number[] }; games: RefGame[] } | undefined;
function referenceRun(): NonNullable<typeof reference> {
  if (reference) return reference;
  const g = games[0]!;
  const [render, ...played] = llamaCppPython<unknown[]>({
    model: REAL_GGUF,
    n_ctx: 2048,
    threads: 1,
    ops: [{ op: 'render', system: g.system, user: g.user }].concat(
      games.map((x) => ({ op: 'judge', system: x.system, user: x.user, max_tokens: REAL_GAMES.maxTokens })),
    ),
  });
  return (reference = {
    render: render as { text: string; tokens: number[] },
    games: played as RefGame[],
  });
}

describe.skipIf(!!skip)('the llama-cpp judge on a real model (SmolLM2-135M-Instruct)', () => {
  let judge: LlamaCppJudge;

  beforeAll(async () => {
    assertRealModel();
    games = storedGames((await realModelGames()).db, 'llama-cpp/');
    judge = llamaCppJudge({ modelPath: REAL_GGUF, threads: 1, sequences: 1, contextSize: 256 });
  }, 600_000);
  afterAll(() => judge?.close());

  it('renders with the chat template from the GGUF (ChatML), token for token as llama-cpp-python renders its Jinja', async () => {
    expect((await judge.load()).chatWrapper).toBe('ChatML');
    const g = games[0]!;
    const ours = await judge.render(g.system, g.user);
    const ref = referenceRun().render;
    expect(ours.text.startsWith('<|im_start|>system\n')).toBe(true);
    expect(ours.tokens).toEqual(ref.tokens);
    expect(ours.tokens.length).toBe(g.tokensIn);
  }, 300_000);

  it('every game: the greedy explanation and verdict equal llama-cpp-python, and P(A), P(B), P(C) agree within 1e-3', () => {
    expect(games.length).toBe(REAL_GAMES.count);
    const refs = referenceRun().games;
    let maxDiff = 0;
    games.forEach((g, i) => {
      const r = refs[i]!;
      const where = `game ${g.questionId} ${g.order}`;
      expect(g.tokensIn, where).toBe(r.prompt_tokens);
      expect(g.reply, where).toBe(
        `${r.explanation.trimEnd()}${r.explanation.trim() ? '\n' : ''}[[${r.verdict}]]`,
      );
      for (const k of ['A', 'B', 'C'] as const) {
        const d = Math.abs(g.probs[k]! - r.probs[k]);
        maxDiff = Math.max(maxDiff, d);
        expect(d, `${where} P(${k}) ${g.probs[k]} vs ${r.probs[k]}`).toBeLessThan(1e-3);
      }
    });
    console.log(
      `[real model] ${games.length} games; largest |ΔP| against llama-cpp-python ${maxDiff.toExponential(2)}`,
    );
  }, 300_000);

  it('a prompt longer than the context is its own error, with both sizes (never truncated)', async () => {
    const g = games.reduce((a, b) => (b.tokensIn > a.tokensIn ? b : a));
    expect(g.tokensIn).toBeGreaterThan(256);
    const e = await judge
      .complete({ system: g.system, user: g.user, temperature: 0, maxTokens: 64 })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PromptTooLongError);
    expect((e as Error).message).toContain(`prompt is ${g.tokensIn} tokens, context is 256:`);
  }, 120_000);
});
