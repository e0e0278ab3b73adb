/**
 * The contract every Judge provider keeps; `make` is called once per test, `close` (if given) after it:
 *   describeJudgeContract('openai', async () => ({ judge: openaiJudge({...}), close: () => srv.close() }));
 */
import { describe, expect, it } from 'vitest';
import type { JudgeProvider, JudgeRequest } from '../../src/judges/judge.ts';

export interface JudgeFixture {
  judge: JudgeProvider;
  close?(): Promise<void>;
}

export interface JudgeContractOptions {
  /** the provider part of the id, e.g. "openai" */
  provider: string;
  /** max tokens to ask for (keep small for slow local models; default 64) */
  maxTokens?: number;
  /** calls made at once in the concurrency test (default 6) */
  concurrent?: number;
}

const PAIR_PROMPT = (k: number): Pick<JudgeRequest, 'system' | 'user'> => ({
  system:
    'Please act as an impartial judge. Output your final verdict by strictly following this format: "[[A]]" if assistant A is better, "[[B]]" if assistant B is better, and "[[C]]" for a tie.',
  user: `[User Question]\nWhat is ${k} + ${k}?\n\n[The Start of Assistant A's Answer]\n${2 * k}\n[The End of Assistant A's Answer]\n\n[The Start of Assistant B's Answer]\n${2 * k + 1}, I think, but I am not sure\n[The End of Assistant B's Answer]`,
});

export function describeJudgeContract(
  name: string,
  make: () => Promise<JudgeFixture>,
  o: JudgeContractOptions,
): void {
  const maxTokens = o.maxTokens ?? 64;
  const use = async (fn: (judge: JudgeProvider) => Promise<void>) => {
    const f = await make();
    try {
      await fn(f.judge);
    } finally {
      await f.judge.close?.();
      await f.close?.();
    }
  };

  describe(`Judge contract: ${name}`, () => {
    it('is named "provider/model"', () =>
      use(async (judge) => {
        expect(judge.id).toMatch(/^[a-z0-9-]+\/\S+$/);
        expect(judge.id.split('/')[0]).toBe(o.provider);
      }));

    it('answers a prompt with text and sane token counts', () =>
      use(async (judge) => {
        const r = await judge.complete({ ...PAIR_PROMPT(1), temperature: 0, maxTokens });
        expect(typeof r.text).toBe('string');
        expect(r.text.length).toBeGreaterThan(0);
        for (const t of [r.tokensIn, r.tokensOut])
          if (t !== undefined) expect(Number.isInteger(t) && t >= 0).toBe(true);
      }));

    it('rejects at once when the signal is already aborted', () =>
      use(async (judge) => {
        const ctl = new AbortController();
        ctl.abort(new Error('stop'));
        await expect(
          judge.complete({ ...PAIR_PROMPT(2), temperature: 0, maxTokens, signal: ctl.signal }),
        ).rejects.toBeTruthy();
      }));

    it('stops a call when its signal is aborted while it runs', () =>
      use(async (judge) => {
        const ctl = new AbortController();
        const call = judge.complete({ ...PAIR_PROMPT(3), temperature: 0, maxTokens, signal: ctl.signal });
        ctl.abort(new Error('stop'));
        await expect(call).rejects.toBeTruthy();
      }));

    it('serves calls made concurrently, each with its own reply', () =>
      use(async (judge) => {
        const n = o.concurrent ?? 6;
        const replies = await Promise.all(
          Array.from({ length: n }, (_, k) =>
            judge.complete({ ...PAIR_PROMPT(10 + k), temperature: 0, maxTokens }),
          ),
        );
        expect(replies).toHaveLength(n);
        for (const r of replies) expect(r.text.length).toBeGreaterThan(0);
      }));
  });
}
