// The real model behind llama-cpp-python's OpenAI-compatible server: `arena run --judge openai/<alias>` on the
// games of real-model.test.ts (real-games.ts), plain and with grammar, logprobs against both other bindings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arenaOk, tmpDir } from '../../support/cli.ts';
import { noMtbench, skipWhy } from '../../support/materials.ts';
import {
  assertRealModel,
  llamaCppPython,
  REAL_GGUF,
  realModelSkip,
  startLlamaCppServer,
  type LlamaCppServer,
} from '../../support/real-model.ts';
import { sqlRows } from '../../support/stored-game.ts';
import {
  REAL_GAMES,
  realGamesArgs,
  realGamesSetup,
  realModelGames,
  storedGames,
  type StoredGame,
} from './real-games.ts';

const skip = realModelSkip || skipWhy('real model', noMtbench('the games the real model judges'));

const dir = tmpDir('arena-real-server-');
/** the database and the games' files (realGamesSetup) */
let db = '';
let files: string[] = [];
/** the in-process judge's games on the same question (played once per run), awaited where compared */
let inProcess: Promise<StoredGame[]>;

/** the server's name for the model: the judge is openai/<ALIAS> */
const ALIAS = 'smollm2-135m';

describe.skipIf(!!skip)("the same games through llama-cpp-python's OpenAI-compatible server", () => {
  let server: LlamaCppServer;
  beforeAll(async () => {
    assertRealModel();
    inProcess = realModelGames().then(({ db: played }) => storedGames(played, 'llama-cpp/'));
    inProcess.catch(() => undefined); // reported where awaited
    ({ db, args: files } = await realGamesSetup(dir));
    server = await startLlamaCppServer(REAL_GGUF, { alias: ALIAS, threads: 1, ctx: 2048 });
  }, 300_000);
  afterAll(() => server?.close());

  /**
   * `arena run --judge openai/<ALIAS> --base-url <server>` on the same games, with `judgeArgs` (e.g. an option
   * asking the server for constrained output) and replies of up to `maxTokens`, and the games it stored.
   */
  async function serverRun(judgeArgs: string[], maxTokens = REAL_GAMES.maxTokens): Promise<StoredGame[]> {
    await arenaOk(
      ['run', '--db', db, '--judge', `openai/${ALIAS}`, '--base-url', server.baseUrl].concat(
        files,
        realGamesArgs(maxTokens),
        ['--concurrency', '2', '--timeout', '300'],
        judgeArgs,
      ),
      { timeoutMs: 300_000 },
    );
    return storedGames(db, `openai/${ALIAS}`);
  }

  it('plain chat completions: every game answered and stored (a verdict, or an unparsable reply: never a transport failure); agreement with the in-process judge reported', async () => {
    // 16 tokens, not 64: what is checked is each call's way to the server and back (a token costs the server about
    // 20 ms of CPU, its sampling chain in Python); SmolLM2 writes no verdict of its own within 64 tokens either
    const served = await serverRun([], 16);
    const games = await inProcess;
    expect(served.map((g) => `${g.questionId} ${g.order}`)).toEqual(
      games.map((g) => `${g.questionId} ${g.order}`),
    );
    const parsed = served.filter((g) => g.verdict !== 'error');
    const same = served.filter((g, i) => g.verdict === games[i]!.verdict);
    for (const g of served) expect(g.reply.length, `${g.questionId} ${g.order}`).toBeGreaterThan(0);
    console.log(
      `[real server] ${served.length} games: ${parsed.length} parsed, ${same.length} the in-process verdict`,
    );
  }, 600_000);

  it('with --structured-output llama-cpp (a GBNF grammar the server applies) every verdict parses', async () => {
    await serverRun(['--structured-output', 'llama-cpp']);
    const games = await inProcess;
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
    // one game (AB): its text is evaluated whole, by the server and by the reference, a prompt's worth of CPU each;
    // the other order's text takes the same path
    const some = (await inProcess).slice(0, 1);
    expect(some.map((g) => g.order)).toEqual(['AB']);
    // each prompt as llama-cpp-python renders the GGUF's template, then the in-process explanation and "[[":
    // the reference evaluates each text in one batch, as the server does (one process for both)
    const after = some.map((g) => `${g.reply.slice(0, g.reply.lastIndexOf('[['))}[[`);
    const ops = some.flatMap((g, i) => [
      { op: 'render', system: g.system, user: g.user },
      { op: 'next', system: g.system, user: g.user, text: after[i] },
    ]);
    const out = llamaCppPython<({ text: string } & { probs: Record<string, number> })[]>({
      model: REAL_GGUF,
      n_ctx: 2048,
      threads: 1,
      ops,
    });
    const texts = some.map((_, i) => `${out[2 * i]!.text}${after[i]}`);
    const oneBatch = some.map((_, i) => out[2 * i + 1]!);
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
