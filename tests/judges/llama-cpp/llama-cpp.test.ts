// The llama-cpp judge on the real llama.cpp runtime: a tiny random-weight llama written by this test, and the shared
// tiny model with the real Llama 2 vocabulary when present.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entropyBits } from '../../../src/core/stats/confidence.ts';
import { parsePairVerdict } from '../../../src/core/verdict/parse.ts';
import { runTournament } from '../../../src/engine/run.ts';
import { JudgeCallError, PromptTooLongError } from '../../../src/judges/judge.ts';
import { llamaRuntime } from '../../../src/judges/llama-cpp/loader.ts';
import { llamaCppJudge, parseLlamaSpec, type LlamaCppJudge } from '../../../src/judges/llama-cpp/provider.ts';
import { createJudge } from '../../../src/judges/registry.ts';
import { openSqliteStore } from '../../../src/storage/sqlite.ts';
import { describeJudgeContract } from '../judge.contract.ts';
import { REPO_ROOT, tmpDir } from '../../support/cli.ts';
import { seed } from './fixtures.ts';
import { writeTinyLlama } from './gguf-writer.ts';

const dir = tmpDir('arena-llama-');
const TINY = join(dir, 'tiny-random-llama.gguf');
writeTinyLlama(TINY, { seed: 7 });
const SHARED = join(REPO_ROOT, '..', 'shared', 'models', 'llama-2-tiny-random.gguf');
const MODELS: [string, string][] = [['generated tiny llama', TINY]];
if (existsSync(SHARED)) MODELS.push(['shared llama-2-tiny-random (real Llama 2 vocabulary)', SHARED]);
else console.warn(`[tests/judges/llama-cpp] ${SHARED} is absent: only the generated model is tested`);

/** one thread: on a shared 2-core machine more threads make llama.cpp crawl (see README) */
const base = { threads: 1, contextSize: 2048 } as const;
const MODELS5 = ['m1', 'm2', 'm3', 'm4', 'm5'];

describe.each(MODELS)('llama-cpp judge: %s', (_name, path) => {
  let judge: LlamaCppJudge;
  beforeAll(async () => {
    judge = llamaCppJudge({ ...base, modelPath: path, sequences: 4 });
    await judge.load();
    // the first load in a process starts the runtime (node-llama-cpp tests its binary first): minutes under load
  }, 300_000);
  afterAll(() => judge?.close());

  it('loads the GGUF and renders prompts with the chat template the file names', async () => {
    const info = await judge.load();
    expect(info.threads).toBe(1);
    expect(info.contextSize).toBeGreaterThanOrEqual(2048);
    expect(info.gpuLayers).toBe(0);
    const r = await judge.render('SYSTEM-TEXT', 'USER-TEXT');
    expect(r.tokens.length).toBeGreaterThan(4);
    if (path === TINY) {
      // the writer stores Meta's Llama-2-chat Jinja template in tokenizer.chat_template
      expect(r.text).toContain('[INST]');
      expect(r.text).toContain('<<SYS>>');
      expect(r.text.indexOf('SYSTEM-TEXT')).toBeLessThan(r.text.indexOf('USER-TEXT'));
    } else {
      expect(r.text).toContain('SYSTEM-TEXT');
      expect(r.text).toContain('USER-TEXT');
    }
  });

  it('with the grammar, every one of 60 games ends in exactly one [[A]]/[[B]]/[[C]]; probabilities sum to 1 and the entropy matches', async () => {
    const store = openSqliteStore(join(dir, `grammar-${MODELS.findIndex((m) => m[1] === path)}.db`));
    try {
      // the grammar holds each game whatever its prompt: 60 games (of ten pairs) as well as more
      await seed(store, MODELS5, 3);
      const s = await runTournament({
        store,
        judge,
        mode: 'pairwise-all',
        models: MODELS5,
        turns: [1],
        promptSet: 'arena',
        settings: { maxTokens: 24 },
        concurrency: 4,
      });
      expect(s.failed).toBe(0);
      expect(s.played).toBe(60); // 10 pairs x 3 questions x 2 orders
      const games = await store.games.list({ judge: judge.id });
      expect(games).toHaveLength(60);
      for (const g of games) {
        expect(g.verdict).not.toBe('error');
        expect(g.reply).toMatch(/\[\[[ABC]\]\]$/);
        expect(g.reply.split('[[').length).toBe(2);
        const p = g.verdictProbs!;
        expect(Object.keys(p).sort()).toEqual(['A', 'B', 'C']);
        for (const v of Object.values(p)) expect(v).toBeGreaterThanOrEqual(0);
        expect(Math.abs(p.A! + p.B! + p.C! - 1)).toBeLessThan(1e-6);
        const h = -Object.values(p).reduce((a, v) => a + (v > 0 ? v * Math.log2(v) : 0), 0);
        expect(g.entropy).toBeCloseTo(h, 9);
        expect(g.entropy!).toBeLessThanOrEqual(Math.log2(3) + 1e-9);
      }
    } finally {
      await store.close();
    }
  }, 600_000);

  it("records the model's own probabilities of A, B and C (checked against raw logits, byte-fallback tokens included)", async () => {
    const { resolveChatWrapper } = await import('node-llama-cpp');
    const req = {
      system: 'Please act as an impartial judge.',
      user: '[User Question]\nWhich colour is the sky?\n\n[Answer A] Blue. [Answer B] Green.',
      temperature: 0,
      maxTokens: 8,
    } as const;
    // maxTokens 8 leaves no room for an explanation: the verdict directly follows the prompt and "[["
    const reply = await judge.complete(req);
    expect(reply.text).toMatch(/^\[\[[ABC]\]\]$/);
    // the process's CPU runtime (started once, shared with the judges: see loader.ts), a model and context of our own
    const llama = await llamaRuntime(false, (m) => new Error(m));
    const model = await llama.loadModel({ modelPath: path, gpuLayers: 0 });
    const ctx = await model.createContext({ contextSize: 1024, threads: 1 });
    try {
      // every token the verdict grammar allows first: the letter, alone or followed by "]" or "]]"
      const letterTokens: Record<string, number[]> = { A: [], B: [], C: [] };
      const vocab = model.fileInfo.metadata.tokenizer.ggml.tokens as string[];
      for (let t = 0; t < vocab.length; t++) {
        // the piece's text, read from the GGUF vocabulary: "▁" is a space, <0xNN> a byte
        const piece = vocab[t]!;
        const text = /^<0x[0-9A-F]{2}>$/.test(piece)
          ? String.fromCharCode(parseInt(piece.slice(3, 5), 16))
          : piece.replaceAll('▁', ' ');
        if (/^[ABC]\]{0,2}$/.test(text)) letterTokens[text[0]!]!.push(t);
      }
      // the byte-fallback token <0x41> is "A" too
      expect(letterTokens.A!.some((t) => vocab[t] === '<0x41>')).toBe(true);
      const chat = resolveChatWrapper(model).generateContextState({
        chatHistory: [
          { type: 'system', text: req.system },
          { type: 'user', text: req.user },
          { type: 'model', response: [] },
        ],
      });
      const tokens = [
        ...chat.contextText.tokenize(model.tokenizer),
        ...model.tokenize('[[', false, 'trimLeadingSpace'),
      ];
      const all = Object.values(letterTokens).flat();
      const seq = ctx.getSequence();
      const out = await seq.controlledEvaluate([
        ...tokens.slice(0, -1),
        [tokens.at(-1)!, { generateNext: { logits: { filter: { tokens: all as never[] } } } }],
      ]);
      const logits = out.at(-1)!.next.logits!;
      const max = Math.max(...logits.values());
      const w: Record<string, number> = { A: 0, B: 0, C: 0 };
      for (const [letter, ts] of Object.entries(letterTokens))
        for (const t of ts) w[letter]! += Math.exp(logits.get(t as never)! - max);
      const total = w.A! + w.B! + w.C!;
      // 3 decimals: llama.cpp sums in a different order when it evaluates the prompt in other chunks or batches
      // (measured up to 2.7e-4 apart on an AMD EPYC with the same weights); a wrong token set is off by far more
      for (const l of ['A', 'B', 'C']) expect(reply.verdictProbs![l]!).toBeCloseTo(w[l]! / total, 3);
      // greedy: the verdict starts with the most probable allowed token
      const top = [...logits.entries()].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
      expect(reply.text).toBe(`[[${model.detokenize([top]).charAt(0)}]]`);
    } finally {
      await ctx.dispose();
      await model.dispose();
    }
  });

  it('sampling (temperature > 0): the verdict is sampled through the grammar and every reply still ends in one [[A]]/[[B]]/[[C]]', async () => {
    const store = openSqliteStore(':memory:');
    try {
      await seed(store, MODELS5.slice(0, 3), 2);
      const s = await runTournament({
        store,
        judge,
        mode: 'pairwise-all',
        models: MODELS5.slice(0, 3),
        turns: [1],
        promptSet: 'arena',
        settings: { maxTokens: 16, temperature: 0.9 },
        concurrency: 4,
      });
      expect(s.failed).toBe(0);
      expect(s.played).toBe(12); // 3 pairs x 2 questions x 2 orders
      for (const g of await store.games.list({ judge: judge.id })) {
        expect(g.reply).toMatch(/\[\[[ABC]\]\]$/);
        expect(g.reply.split('[[').length).toBe(2);
        expect(Math.abs(Object.values(g.verdictProbs!).reduce((a, v) => a + v, 0) - 1)).toBeLessThan(1e-6);
      }
    } finally {
      await store.close();
    }
  }, 600_000);

  it('single grading: the grammar ends every reply in a rating [[1]]..[[10]]', async () => {
    const store = openSqliteStore(':memory:');
    try {
      await seed(store, MODELS5.slice(0, 2), 5);
      const s = await runTournament({
        store,
        judge,
        mode: 'single',
        models: MODELS5.slice(0, 2),
        turns: [1, 2],
        promptSet: 'arena',
        settings: { maxTokens: 24 },
        concurrency: 4,
      });
      expect(s).toMatchObject({ played: 20, failed: 0 });
      for (const g of await store.games.list({ judge: judge.id })) {
        expect(g.reply).toMatch(/\[\[(10|[1-9])\]\]$/);
        expect(Number(g.verdict)).toBeGreaterThanOrEqual(1);
        expect(Number(g.verdict)).toBeLessThanOrEqual(10);
      }
    } finally {
      await store.close();
    }
  }, 300_000);

  it('without the grammar, unparsable replies are stored and counted as errors, not hidden', async () => {
    const raw = llamaCppJudge({ ...base, modelPath: path, sequences: 4, grammar: false });
    const store = openSqliteStore(join(dir, `raw-${MODELS.findIndex((m) => m[1] === path)}.db`));
    try {
      expect(raw.id).toMatch(/^llama-cpp\/[A-Za-z0-9._-]+@[0-9a-f]{10}\?grammar=off$/);
      await seed(store, MODELS5.slice(0, 3), 5);
      const s = await runTournament({
        store,
        judge: raw,
        mode: 'pairwise-all',
        models: MODELS5.slice(0, 3),
        turns: [1],
        promptSet: 'arena',
        settings: { maxTokens: 24 },
        concurrency: 4,
      });
      expect(s.played).toBe(30);
      expect(s.failed).toBe(0);
      const games = await store.games.list({ judge: raw.id });
      const errors = games.filter((g) => g.verdict === 'error');
      // a random-weight model does not write "[[A]]" on its own
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.length).toBe(games.filter((g) => parsePairVerdict(g.reply) === 'error').length);
      for (const g of games) expect(g.verdictProbs).toBeUndefined();
    } finally {
      await store.close();
      await raw.close();
    }
  }, 300_000);

  it('a prompt that does not fit the context is an error with its size (never truncated), and no verdict is stored', async () => {
    const small = llamaCppJudge({ ...base, modelPath: path, contextSize: 256, sequences: 1 });
    try {
      const long = 'word '.repeat(2000);
      const e = await small
        .complete({ system: 'Judge.', user: long, temperature: 0, maxTokens: 24 })
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(PromptTooLongError);
      expect((e as JudgeCallError).retryable).toBe(false);
      expect((e as PromptTooLongError).contextTokens).toBe(256);
      expect((e as Error).message).toMatch(
        /^\[judge:llama-cpp\/.*\] prompt is \d{4,} tokens, context is 256: /,
      );
      // a short prompt still works on the same judge
      expect(
        (await small.complete({ system: 'Judge.', user: 'Short.', temperature: 0, maxTokens: 16 })).text,
      ).toMatch(/\[\[[ABC]\]\]$/);
    } finally {
      await small.close();
    }
  });

  it('prefix reuse over several sequences gives the same replies as one sequence without reuse, evaluating fewer prompt tokens', async () => {
    const one = llamaCppJudge({ ...base, modelPath: path, sequences: 1, prefixReuse: false });
    const many = llamaCppJudge({ ...base, modelPath: path, sequences: 4 });
    const store = openSqliteStore(':memory:');
    try {
      // 12 games of one question: they share their system prompt and question across pairs, orders and turns
      await seed(store, MODELS5.slice(0, 3), 1);
      const { planRun } = await import('../../../src/engine/run.ts');
      const { games } = await planRun({
        store,
        judge: one,
        mode: 'pairwise-all',
        models: MODELS5.slice(0, 3),
        turns: [1, 2],
        promptSet: 'arena',
        settings: { maxTokens: 20 },
      });
      const reqs = games.map((g) => ({
        system: g.spec.systemPrompt,
        user: g.spec.userPrompt,
        temperature: 0,
        maxTokens: 20,
        verdict: 'pair' as const,
      }));
      const a: Awaited<ReturnType<typeof one.complete>>[] = [];
      for (const r of reqs) a.push(await one.complete(r));
      const b = await Promise.all(reqs.map((r) => many.complete(r)));
      expect(b.map((x) => x.text)).toEqual(a.map((x) => x.text));
      // batched decoding sums in another order than one sequence alone (measured up to 8e-5 apart here): 3 decimals
      for (let i = 0; i < a.length; i++)
        for (const l of ['A', 'B', 'C'])
          expect(b[i]!.verdictProbs![l]!).toBeCloseTo(a[i]!.verdictProbs![l]!, 3);
      expect(one.stats.reusedTokens).toBe(0);
      expect(many.stats.reusedTokens).toBeGreaterThan(0);
      // some prefixes came from another sequence's cache (copied), and the replies above are still identical
      expect(many.stats.copiedTokens).toBeGreaterThan(0);
      expect(many.stats.promptTokens).toBeLessThan(one.stats.promptTokens);
    } finally {
      await store.close();
      await one.close();
      await many.close();
    }
  }, 600_000);
});

describe('llama-cpp judge: games started together (generated tiny llama)', () => {
  it('evaluate their shared prompt prefix once, then decode in step, all sequences in one batch', async () => {
    const judge = llamaCppJudge({ ...base, modelPath: TINY, sequences: 4 });
    const store = openSqliteStore(':memory:');
    try {
      await seed(store, MODELS5, 1);
      const { planRun } = await import('../../../src/engine/run.ts');
      const { games } = await planRun({
        store,
        judge,
        mode: 'pairwise-all',
        models: MODELS5,
        turns: [1],
        promptSet: 'arena',
        settings: { maxTokens: 72 },
      });
      // the four games that show m1 first: same system prompt, question and first answer
      const four = games.filter((g) => g.spec.order === 'AB' && g.spec.match.model1 === 'm1');
      expect(four).toHaveLength(4);
      const prompts = await Promise.all(
        four.map((g) => judge.render(g.spec.systemPrompt, g.spec.userPrompt)),
      );
      await Promise.all(
        four.map((g) =>
          judge.complete({
            system: g.spec.systemPrompt,
            user: g.spec.userPrompt,
            temperature: 0,
            maxTokens: 72,
            verdict: 'pair',
          }),
        ),
      );
      // the first game evaluates its whole prompt; each of the others waits for the earlier ones, copies the
      // longest common part and evaluates only the rest (before, each of the four evaluated the shared
      // part itself): the size of the prompts' prefix tree
      const common = (a: readonly number[], b: readonly number[]) => {
        let i = 0;
        while (i < Math.min(a.length, b.length) && a[i] === b[i]) i++;
        return i;
      };
      const tokens = prompts.map((p) => p.tokens);
      const ideal = tokens.reduce(
        (n, p, i) =>
          n + p.length - Math.max(0, ...tokens.slice(0, i).map((q) => Math.min(common(p, q), p.length - 1))),
        0,
      );
      // (a copy is worth it from 16 more tokens on, so up to 15 a game may be evaluated again)
      expect(judge.stats.promptTokens).toBeGreaterThanOrEqual(ideal);
      expect(judge.stats.promptTokens).toBeLessThanOrEqual(ideal + 3 * 15);
      expect(judge.stats.promptTokens).toBeLessThan(tokens.reduce((n, p) => n + p.length, 0) / 2);
      expect(judge.stats.copiedTokens).toBeGreaterThan(0);
      // every explanation runs to its budget here (64 tokens each, then the verdict letter), so the four generate in step: their
      // decodes share batches (before, a late sample split them into alternating smaller batches)
      expect(judge.stats.generatedTokens).toBe(4 * 65);
      expect(judge.stats.batchItems / judge.stats.batches).toBeGreaterThan(3.2);
    } finally {
      await store.close();
      await judge.close();
    }
  }, 120_000);
});

describe('llama-cpp judge specs', () => {
  it('reads options from the spec and names the judge by model (name and content hash) and the options that change replies', async () => {
    expect(
      parseLlamaSpec('m.gguf?threads=2&ctx=1024&gpuLayers=max&sequences=3&seed=7&grammar=off&lora=a.gguf'),
    ).toEqual({
      modelPath: 'm.gguf',
      threads: 2,
      contextSize: 1024,
      gpuLayers: 'max',
      sequences: 3,
      seed: 7,
      grammar: false,
      lora: ['a.gguf'],
    });
    const j = await createJudge(`llama-cpp/${TINY}?threads=1&sequences=2`);
    expect(j.id).toMatch(/^llama-cpp\/mt-arena-tiny-random-llama@[0-9a-f]{10}$/);
    await j.close?.();
    await expect(createJudge(`llama-cpp/${TINY}?thread=1`)).rejects.toThrow(/unknown option "thread"/);
    await expect(createJudge(`llama-cpp/${TINY}?grammar=maybe`)).rejects.toThrow(
      /option "grammar": expected on or off/,
    );
    await expect(createJudge(`llama-cpp/${join(dir, 'missing.gguf')}`)).rejects.toThrow(
      /no such GGUF file: .*missing\.gguf/,
    );
  });

  it('a file that is not a GGUF fails with the path named, as a call error (never a verdict)', async () => {
    const j = llamaCppJudge({ modelPath: join(REPO_ROOT, 'package.json'), threads: 1 });
    await expect(j.complete({ system: '', user: 'x', temperature: 0, maxTokens: 8 })).rejects.toThrow(
      /\[judge:llama-cpp\/package\.json@[0-9a-f]{10}\] cannot load .*package\.json/,
    );
    await j.close();
  });

  it('entropy is in bits: 0 for a certain verdict, log2(3) for none', () => {
    expect(entropyBits({ A: 1, B: 0, C: 0 })).toBe(0);
    expect(entropyBits({ A: 1 / 3, B: 1 / 3, C: 1 / 3 })).toBeCloseTo(Math.log2(3), 12);
  });
});

describeJudgeContract(
  'llama-cpp (generated tiny model)',
  async () => ({ judge: llamaCppJudge({ modelPath: TINY, threads: 1, sequences: 2, contextSize: 1024 }) }),
  { provider: 'llama-cpp', maxTokens: 24 },
);
