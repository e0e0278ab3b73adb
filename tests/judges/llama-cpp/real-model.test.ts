// The local judge on a real model (SmolLM2-135M-Instruct, scripts/test-models.sh), checked against an independent
// binding of llama.cpp (llama-cpp-python, tests/reference/llama_cpp_ref.py) on the same file: the chat template
// from the GGUF, the verdict probabilities and greedy verdicts, and a prompt longer than the context. The same
// games through llama-cpp-python's OpenAI-compatible server are in real-server.test.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PromptTooLongError } from '../../../src/judges/judge.ts';
import { llamaCppJudge, type LlamaCppJudge } from '../../../src/judges/llama-cpp/provider.ts';
import { arenaJson, arenaOk, tmpDir } from '../../support/cli.ts';
import { sqlRows } from '../../support/stored-game.ts';
import { MTBENCH_DIR, noMtbench, skipWhy } from '../../support/materials.ts';
import { mtbenchReleaseDb } from '../../support/mtbench-release.ts';
import {
  assertRealModel,
  llamaCppPython,
  REAL_GGUF,
  realModelSkip,
  startLlamaCppServer,
  type LlamaCppServer,
} from '../../support/real-model.ts';
import { writeSwappedBlocks } from './foundation.ts';
import { REAL_GAMES, realGamesQuestions, storedGames, type StoredGame } from './real-games.ts';

const skip = realModelSkip || skipWhy('real model', noMtbench('the games the real model judges'));

interface RefGame {
  /** the prompt in the GGUF's template, as llama-cpp-python renders it */
  text: string;
  prompt_tokens: number;
  explanation: string;
  cut: string;
  probs: Record<'A' | 'B' | 'C', number>;
  verdict: 'A' | 'B' | 'C';
}

const dir = tmpDir('arena-real-model-');
const db = join(dir, 'arena.db');
const questions = join(dir, 'question.jsonl');
/** the in-process judge's games, and llama-cpp-python's on the same prompts */
let games: StoredGame[] = [];
let refs: RefGame[] = [];

describe.skipIf(!!skip)('the llama-cpp judge on a real model (SmolLM2-135M-Instruct)', () => {
  let judge: LlamaCppJudge;

  beforeAll(async () => {
    assertRealModel();
    await mtbenchReleaseDb(db);
    writeFileSync(questions, realGamesQuestions(MTBENCH_DIR!));
    await arenaOk(
      [
        'run',
        '--db',
        db,
        '--judge',
        `llama-cpp/${REAL_GGUF}?${REAL_GAMES.options}`,
        '--questions',
        questions,
      ].concat(REAL_GAMES.args),
      { timeoutMs: 300_000 },
    );
    games = storedGames(db, 'llama-cpp/');
    judge = llamaCppJudge({ modelPath: REAL_GGUF, threads: 1, sequences: 1, contextSize: 256 });
  }, 600_000);
  afterAll(() => judge?.close());

  it('renders with the chat template from the GGUF (ChatML), token for token as llama-cpp-python renders its Jinja', async () => {
    expect((await judge.load()).chatWrapper).toBe('ChatML');
    const g = games[0]!;
    const ours = await judge.render(g.system, g.user);
    const [ref] = llamaCppPython<{ text: string; tokens: number[] }[]>({
      model: REAL_GGUF,
      n_ctx: 2048,
      threads: 1,
      ops: [{ op: 'render', system: g.system, user: g.user }],
    });
    expect(ours.text.startsWith('<|im_start|>system\n')).toBe(true);
    expect(ours.tokens).toEqual(ref!.tokens);
    expect(ours.tokens.length).toBe(g.tokensIn);
  }, 120_000);

  it('every game: the greedy explanation and verdict equal llama-cpp-python, and P(A), P(B), P(C) agree within 1e-3', () => {
    expect(games.length).toBe(REAL_GAMES.count);
    refs = llamaCppPython<RefGame[]>({
      model: REAL_GGUF,
      n_ctx: 2048,
      threads: 1,
      ops: games.map((g) => ({
        op: 'judge',
        system: g.system,
        user: g.user,
        max_tokens: REAL_GAMES.maxTokens,
      })),
    });
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

/** the server's name for the model: the judge is openai/<ALIAS> */
const ALIAS = 'smollm2-135m';

describe.skipIf(!!skip)("the same games through llama-cpp-python's OpenAI-compatible server", () => {
  let server: LlamaCppServer;
  beforeAll(async () => {
    assertRealModel();
    server = await startLlamaCppServer(REAL_GGUF, { alias: ALIAS, threads: 1, ctx: 2048 });
  }, 300_000);
  afterAll(() => server?.close());

  /**
   * `arena run --judge openai/<ALIAS> --base-url <server>` on the same games, with `judgeArgs` (e.g. an option
   * asking the server for constrained output), and the games it stored.
   */
  async function serverRun(judgeArgs: string[] = []): Promise<StoredGame[]> {
    await arenaOk(
      [
        'run',
        '--db',
        db,
        '--judge',
        `openai/${ALIAS}`,
        '--base-url',
        server.baseUrl,
        '--questions',
        questions,
      ].concat(REAL_GAMES.args, ['--concurrency', '2', '--timeout', '300'], judgeArgs),
      { timeoutMs: 300_000 },
    );
    return storedGames(db, `openai/${ALIAS}`);
  }

  it('plain chat completions: every game answered and stored (a verdict, or an unparsable reply: never a transport failure); agreement with the in-process judge reported', async () => {
    const served = await serverRun();
    expect(served.map((g) => `${g.questionId} ${g.order}`)).toEqual(
      games.map((g) => `${g.questionId} ${g.order}`),
    );
    const parsed = served.filter((g) => g.verdict !== 'error');
    const same = served.filter((g, i) => g.verdict === games[i]!.verdict);
    for (const g of served) expect(g.reply.length, `${g.questionId} ${g.order}`).toBeGreaterThan(0);
    console.log(
      `[real server] ${served.length} games: ${parsed.length} parsed, ${same.length} the in-process verdict; ` +
        `replies ${served.filter((g, i) => g.reply === games[i]!.reply).length} identical`,
    );
  }, 600_000);

  it('with --structured-output llama-cpp (a GBNF grammar the server applies) every verdict parses', async () => {
    await serverRun(['--structured-output', 'llama-cpp']);
    const rows = sqlRows(
      db,
      `select reply, verdict from games where judge = 'openai/${ALIAS}' and judge_settings like '%structuredOutput%'`,
    ) as { reply: string; verdict: string }[];
    expect(rows).toHaveLength(games.length);
    for (const r of rows) {
      expect(r.reply).toMatch(/^\[\[[ABC]\]\]$/);
      expect(r.verdict).not.toBe('error');
    }
    console.log(
      `[real server, grammar] ${rows.length} games, all parsed: ${rows.map((r) => r.reply).join(' ')}`,
    );
  }, 600_000);

  it("the server's logprobs at the in-process verdict position: llama-cpp-python's own numbers, and near the in-process ones", async () => {
    // two games: the question's both orders (each text is evaluated whole, by the server and by the reference)
    const some = games.slice(0, 2);
    const texts = some.map((g, i) => `${refs[i]!.text}${g.reply.slice(0, g.reply.lastIndexOf('[['))}[[`);
    // the reference evaluates each text in one batch, as the server does
    const oneBatch = llamaCppPython<{ probs: Record<string, number> }[]>({
      model: REAL_GGUF,
      n_ctx: 2048,
      threads: 1,
      ops: texts.map((text) => ({ op: 'next', text })),
    });
    let toReference = 0;
    let toInProcess = 0;
    let sameVerdict = 0;
    for (const [i, g] of some.entries()) {
      const p = await serverLetterProbs(server.baseUrl, texts[i]!);
      const top = (x: Record<string, number>) =>
        (['A', 'B', 'C'] as const).reduce((a, b) => (x[b]! > x[a]! ? b : a));
      if (top(p) === top(g.probs)) sameVerdict++;
      for (const k of ['A', 'B', 'C']) {
        toReference = Math.max(toReference, Math.abs(p[k]! - oneBatch[i]!.probs[k]!));
        toInProcess = Math.max(toInProcess, Math.abs(p[k]! - g.probs[k]!));
      }
    }
    console.log(
      `[real server] logprobs: largest |ΔP| ${toReference.toExponential(2)} against llama-cpp-python in one batch, ` +
        `${toInProcess.toFixed(4)} against in-process (the explanation evaluated token by token); the same most likely verdict in ${sameVerdict} of ${some.length}`,
    );
    // the server's top_logprobs hold only its 20 likeliest tokens: a letter token outside them is missed
    expect(toReference).toBeLessThan(1e-3);
    // llama.cpp's numbers depend on the batch shape the tokens were evaluated in (up to 0.02 here)
    expect(toInProcess).toBeLessThan(0.05);
  }, 300_000);
});

/** P(A), P(B), P(C) of the next token after `text` from the server's /completions logprobs, renormalised. */
async function serverLetterProbs(baseUrl: string, text: string): Promise<Record<string, number>> {
  const r = await fetch(`${baseUrl}/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: ALIAS, prompt: text, max_tokens: 1, temperature: 0, logprobs: 20 }),
  });
  if (r.status !== 200) throw new Error(`${baseUrl}/completions answered ${r.status}: ${await r.text()}`);
  const body = (await r.json()) as { choices: { logprobs: { top_logprobs: Record<string, number>[] } }[] };
  const top = body.choices[0]!.logprobs.top_logprobs[0]!;
  const p: Record<string, number> = { A: 0, B: 0, C: 0 };
  for (const [t, lp] of Object.entries(top)) if (/^[ABC]\]{0,2}$/.test(t)) p[t.charAt(0)]! += Math.exp(lp);
  const total = p.A! + p.B! + p.C!;
  return { A: p.A! / total, B: p.B! / total, C: p.C! / total };
}

describe.skipIf(!!skip)('SoftEnt-Cali on the real model, against llama-cpp-python', () => {
  it("arena run --reliability softent-cali stores each game's score (judge's mean reply entropy minus the foundation's), equal to the reference to 1e-4", async () => {
    // no foundation model of SmolLM2 is reachable: a stand-in with the same vocabulary (foundation.ts)
    const base = join(dir, 'foundation.gguf');
    await writeSwappedBlocks(REAL_GGUF, base, 10, 11);
    const softDb = await mtbenchReleaseDb(join(dir, 'softent.db'));
    const one = join(dir, 'one-question.jsonl');
    writeFileSync(one, realGamesQuestions(MTBENCH_DIR!).split('\n')[0]! + '\n');
    const judgeSpec = `llama-cpp/${REAL_GGUF}?threads=1&ctx=1024&sequences=1&reuse=off`;
    await arenaOk(
      [
        'run',
        '--db',
        softDb,
        '--judge',
        judgeSpec,
        '--questions',
        one,
        '--reliability',
        'softent-cali',
      ].concat(['--base-gguf', base], REAL_GAMES.args),
      { timeoutMs: 300_000 },
    );
    const ours = storedGames(softDb, 'llama-cpp/');
    expect(ours.length).toBe(2);
    const ref = llamaCppPython<{ verdict: string; judge: number; base: number; cali: number }[]>({
      model: REAL_GGUF,
      n_ctx: 1024,
      threads: 1,
      ops: ours.map((g) => ({
        op: 'softent',
        system: g.system,
        user: g.user,
        max_tokens: REAL_GAMES.maxTokens,
        base,
      })),
    });
    ours.forEach((g, i) => {
      const where = `game ${g.questionId} ${g.order}`;
      expect(g.reliability, where).not.toBeNull();
      expect(Math.abs(g.reliability! - ref[i]!.cali), where).toBeLessThan(1e-4);
      // the stand-in is another model: the calibration is not zero
      expect(Math.abs(ref[i]!.base - ref[i]!.judge), where).toBeGreaterThan(1e-3);
    });
    // listed where the per-game confidence is
    const listed = await arenaJson<{ reliability?: number }[]>([
      'judges',
      '--db',
      softDb,
      '--games',
      ours[0]!.judge,
    ]);
    expect(listed.map((r) => r.reliability)).toEqual(expect.arrayContaining(ours.map((g) => g.reliability)));
    console.log(
      `[softent-cali] ${ours.length} games: stored ${ours.map((g) => g.reliability!.toFixed(6)).join(', ')}; ` +
        `reference ${ref.map((r) => `${r.cali.toFixed(6)} (${r.judge.toFixed(4)} - ${r.base.toFixed(4)})`).join(', ')}`,
    );
  }, 600_000);
});
