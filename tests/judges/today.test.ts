// Today's judges (issue 33) against a server holding requests to late-2026 provider contracts (openai-contract.ts):
// reasoning models, retired models, empty replies at the allowance, cached and reasoning tokens priced as billed,
// logprobs, vLLM's structured outputs. The real `arena` commands on the project's own questions.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPENAI_MODELS } from '../../src/core/openai-models.ts';
import type { ContractModel } from '../support/openai-contract.ts';
import { logprobsOf } from '../support/openai-contract.ts';
import { promptHash, startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { OWN, REPO_ROOT, runArena, serveArena, tmpDir } from '../support/cli.ts';
import { sqlRows } from '../support/stored-game.ts';

const ALL4 = ['--models', 'arena-drift,arena-echo,arena-sage,arena-swift'];
const TWO = ['--models', 'arena-sage,arena-swift'];
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const MODELS: ContractModel[] = [
  { id: 'gpt-5.4', family: 'reasoning' },
  { id: 'gpt-4.1', family: 'chat', shutdownDate: day(200) },
  { id: 'gpt-4', family: 'chat', shutdownDate: day(-37) },
  { id: 'gpt-5', family: 'reasoning', shutdownDate: day(12) },
];
const chat = (srv: OpenAIServer) => srv.log.filter((e) => e.path === '/v1/chat/completions');
const run = (srv: OpenAIServer, judge: string, db: string, more: string[] = []) =>
  runArena(['run', '--db', db, '--judge', judge, '--base-url', srv.url, '--backoff', '10', ...more, ...OWN], {
    env: { OPENAI_API_KEY: 'sk-test' },
  });

describe("today's judges against the documented contract", { timeout: 180_000 }, () => {
  it('a reasoning judge plays every game of the own-questions tournament with what it accepts', async () => {
    const srv = await startOpenAIServer({ contract: { models: MODELS } });
    try {
      const db = join(tmpDir(), 'r.db');
      const r = await run(srv, 'openai/gpt-5.4', db, ['--reasoning-effort', 'low', ...ALL4]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/576 played, 0 failed/);
      const calls = chat(srv);
      expect(calls).toHaveLength(576);
      for (const c of calls) {
        expect(c.status).toBe(200);
        expect(c.body).toMatchObject({ max_completion_tokens: 2048, reasoning_effort: 'low', n: 1 });
        expect(c.body).not.toHaveProperty('max_tokens');
        expect(c.body).not.toHaveProperty('temperature');
      }
      const settings = sqlRows(db, 'select distinct judge_settings as s from games').map((x) =>
        JSON.parse(x.s as string),
      );
      expect(settings).toEqual([
        {
          maxTokens: 2048,
          maxTokensParam: 'max_completion_tokens',
          reasoningEffort: 'low',
          temperature: null,
        },
      ]);
    } finally {
      await srv.close();
    }
  });

  it("a chat judge keeps FastChat's settings, and its games their identity", async () => {
    const srv = await startOpenAIServer({ contract: { models: MODELS } });
    try {
      const db = join(tmpDir(), 'c.db');
      const r = await run(srv, 'openai/gpt-4.1', db, TWO);
      expect(r.code, r.stderr).toBe(0);
      for (const c of chat(srv)) {
        expect(c.body).toMatchObject({ temperature: 0, max_tokens: 2048, n: 1 });
        expect(c.body).not.toHaveProperty('max_completion_tokens');
        expect(c.body).not.toHaveProperty('reasoning_effort');
      }
      const settings = sqlRows(db, 'select distinct judge_settings as s from games').map((x) =>
        JSON.parse(x.s as string),
      );
      expect(settings).toEqual([{ temperature: 0, maxTokens: 2048 }]);
    } finally {
      await srv.close();
    }
  });

  it('a retired judge stops after at most 8 requests, with one line naming the cause and where to look', async () => {
    const srv = await startOpenAIServer({ contract: { models: MODELS } });
    try {
      const r = await run(srv, 'openai/gpt-4', join(tmpDir(), 'g.db'), ['--concurrency', '8', ...ALL4]);
      expect(r.code).not.toBe(0);
      expect(chat(srv).length).toBeGreaterThanOrEqual(1);
      expect(chat(srv).length).toBeLessThanOrEqual(8);
      const lines = r.stderr.split('\n').filter((l) => /deprecated/.test(l));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/HTTP 404: .*gpt-4.* has been deprecated/);
      expect(lines[0]).toMatch(/successor is gpt-5\.4/);
      expect(lines[0]).toMatch(/arena judges check openai\/gpt-4 --base-url/);
      expect(lines[0]).toMatch(/the run stopped at this first refusal/);
    } finally {
      await srv.close();
    }
  });

  it('a temperature the reasoning model refuses stops the run at the first 400, explained in one line', async () => {
    const srv = await startOpenAIServer({ contract: { models: MODELS } });
    try {
      const r = await run(srv, 'openai/gpt-5.4', join(tmpDir(), 't.db'), ['--temperature', '0', ...ALL4]);
      expect(r.code).not.toBe(0);
      expect(chat(srv).length).toBeLessThanOrEqual(8);
      expect(r.stderr).toMatch(/gpt-5\.4 refuses temperature 0: it is a reasoning model; drop --temperature/);
      expect(r.stderr.match(/HTTP 400/g)).toHaveLength(1);
    } finally {
      await srv.close();
    }
  });

  it('reasoning that uses the whole allowance: no verdict stored, its own kind, each request sent once, never again', async () => {
    const srv = await startOpenAIServer({ contract: { models: MODELS } });
    try {
      const db = join(tmpDir(), 'a.db');
      // medium effort spends 256 reasoning tokens: 200 leave nothing for the reply
      const args = ['--max-tokens', '200', '--reasoning-effort', 'medium', ...TWO];
      const r = await run(srv, 'openai/gpt-5.4', db, args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        /96 game\(s\) without a verdict because reasoning used the whole allowance \(96 this run/,
      );
      expect(r.stderr).toMatch(/raise --max-tokens/);
      expect(r.stderr).not.toMatch(/rerun the same command to retry them/);
      const calls = chat(srv);
      expect(calls).toHaveLength(96);
      expect(new Set(calls.map((c) => c.hash)).size).toBe(96);
      expect(sqlRows(db, 'select count(*) as n from games')[0]!.n).toBe(0);
      expect(sqlRows(db, 'select count(distinct game_id) as n from attempts')[0]!.n).toBe(96);
      // billed: the run's tokens and cost, and the ledger's, say so, priced by hand from the server's usage
      const [runRow] = sqlRows(db, 'select tokens_out as o from runs');
      expect(runRow!.o).toBe(96 * 200);
      const p = OPENAI_MODELS['gpt-5.4']!;
      const usd = calls.reduce((s, c) => s + (c.tokensIn! * p.input + c.tokensOut! * p.output) / 1e6, 0);
      const [led] = JSON.parse((await runArena(['cost', '--db', db, '--json'])).stdout) as {
        games: number;
        tokensOut: number;
        cost: number;
      }[];
      expect(led).toMatchObject({ games: 0, tokensOut: 96 * 200 });
      expect(Math.abs(led!.cost - usd)).toBeLessThan(0.005);
      expect((await runArena(['judges', '--db', db])).stdout).toMatch(
        /openai\/gpt-5\.4: 96 game\(s\) of its newest run without a verdict because reasoning used the whole allowance/,
      );
      // a rerun with the same settings sends nothing; a larger allowance makes them new games
      const again = await run(srv, 'openai/gpt-5.4', db, args);
      expect(chat(srv)).toHaveLength(96);
      expect(again.stderr).toMatch(/96 earlier, not sent again/);
      // played until settled, a round whose games were all at the allowance ends the run (it looped forever)
      const settled = await run(srv, 'openai/gpt-5.4', db, [...args, '--until-settled']);
      expect(settled.code).toBe(2);
      expect(chat(srv)).toHaveLength(96);
      const raised = await run(srv, 'openai/gpt-5.4', db, [
        '--max-tokens',
        '2048',
        '--reasoning-effort',
        'medium',
        ...TWO,
      ]);
      expect(raised.code, raised.stderr).toBe(0);
      expect(sqlRows(db, 'select count(*) as n from games')[0]!.n).toBe(96);
      expect((await runArena(['judges', '--db', db])).stdout).not.toMatch(/whole allowance/);
    } finally {
      await srv.close();
    }
  });

  it('the ledger prices cached and reasoning tokens as the server reports them, to the cent', async () => {
    const srv = await startOpenAIServer({
      contract: { models: MODELS, cache: { minTokens: 64, blockTokens: 16 }, reasoningTokens: { high: 900 } },
    });
    try {
      const dir = tmpDir();
      writeFileSync(
        join(dir, 'refresh.json'),
        JSON.stringify({
          db: 'n.db',
          questions: [join(REPO_ROOT, 'questions/arena.jsonl')],
          answers: [join(REPO_ROOT, 'questions/answers')],
          promptSet: 'arena',
          models: ['arena-sage', 'arena-swift', 'arena-echo'],
          judges: [{ id: 'openai/gpt-5.4', baseURL: srv.url, reasoningEffort: 'high', concurrency: 4 }],
        }),
      );
      const r = await runArena(['refresh', '--config', join(dir, 'refresh.json')], {
        env: { OPENAI_API_KEY: 'sk-test' },
      });
      expect(r.code, r.stderr).toBe(0);
      const calls = chat(srv).filter((c) => c.status === 200);
      expect(calls).toHaveLength(288);
      const p = OPENAI_MODELS['gpt-5.4']!;
      let usd = 0;
      let cached = 0;
      let reasoning = 0;
      for (const c of calls) {
        usd +=
          ((c.tokensIn! - c.tokensCached!) * p.input +
            c.tokensCached! * p.cachedInput! +
            c.tokensOut! * p.output) /
          1e6;
        cached += c.tokensCached!;
        reasoning += c.tokensReasoning!;
      }
      expect(cached).toBeGreaterThan(0);
      expect(reasoning).toBe(288 * 900);
      const cost = await runArena(['cost', '--db', join(dir, 'n.db'), '--json']);
      const [j] = JSON.parse(cost.stdout) as {
        judge: string;
        cost: number;
        tokensCached: number;
        tokensReasoning: number;
      }[];
      expect(j!.judge).toBe('openai/gpt-5.4');
      expect(j!.tokensCached).toBe(cached);
      expect(j!.tokensReasoning).toBe(reasoning);
      expect(Math.abs(j!.cost - usd)).toBeLessThan(0.005);
      // and not by the old rule (all input at the input rate)
      const flat = calls.reduce((s, c) => s + (c.tokensIn! * p.input + c.tokensOut! * p.output) / 1e6, 0);
      expect(Math.abs(j!.cost - flat)).toBeGreaterThan(0.005);
    } finally {
      await srv.close();
    }
  });

  it('logprobs give each game the verdict probabilities the server reported', async () => {
    const srv = await startOpenAIServer({ contract: { models: MODELS }, verdict: 'hash' });
    try {
      const db = join(tmpDir(), 'l.db');
      const r = await run(srv, 'openai/gpt-4.1', db, ['--logprobs', '3', ...TWO]);
      expect(r.code, r.stderr).toBe(0);
      for (const c of chat(srv)) expect(c.body).toMatchObject({ logprobs: true, top_logprobs: 3 });
      const games = sqlRows(
        db,
        'select system_prompt as s, user_prompt as u, reply, verdict_probs as p from games',
      );
      expect(games).toHaveLength(96);
      for (const g of games) {
        const tokens = logprobsOf(g.reply as string, 3, promptHash(g.s as string, g.u as string));
        const letter = tokens.find((t) => t.top_logprobs.length === 3)!;
        const expected = Object.fromEntries(letter.top_logprobs.map((a) => [a.token, Math.exp(a.logprob)]));
        const stored = JSON.parse(g.p as string) as Record<string, number>;
        for (const k of ['A', 'B', 'C']) expect(stored[k]).toBeCloseTo(expected[k]!, 12);
      }
    } finally {
      await srv.close();
    }
  });

  it("vLLM's structured outputs make every verdict parse, in its current and its older parameter", async () => {
    for (const [option, field] of [
      ['vllm', 'structured_outputs'],
      ['vllm-guided', 'guided_choice'],
    ] as const) {
      const srv = await startOpenAIServer({
        contract: { models: [{ id: 'served', family: 'chat' }], structuredOutputs: true },
        verdict: 'unparsable',
      });
      try {
        const plain = join(tmpDir(), 'p.db');
        await run(srv, 'openai/served', plain, TWO);
        expect(sqlRows(plain, "select count(*) as n from games where verdict = 'error'")[0]!.n).toBe(96);
        const db = join(tmpDir(), 's.db');
        const r = await run(srv, 'openai/served', db, ['--structured-output', option, ...TWO]);
        expect(r.code, r.stderr).toBe(0);
        expect(sqlRows(db, "select count(*) as n from games where verdict = 'error'")[0]!.n).toBe(0);
        expect(sqlRows(db, 'select count(*) as n from games')[0]!.n).toBe(96);
        expect(chat(srv).at(-1)!.body).toHaveProperty(field);
      } finally {
        await srv.close();
      }
    }
  });

  it('a judge retired within 30 days is a warning before the run; `arena judges check` lists what the server offers', async () => {
    const srv = await startOpenAIServer({ contract: { models: MODELS } });
    try {
      const db = join(tmpDir(), 'w.db');
      const r = await run(srv, 'openai/gpt-5', db, TWO);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(
        new RegExp(
          `this judge \\(openai/gpt-5\\) is retired on ${day(12)} \\(in 1[12] days\\); its successor is gpt-5\\.4`,
        ),
      );
      const check = await runArena(['judges', 'check', 'openai/gpt-4', '--base-url', srv.url, '--json'], {
        env: { OPENAI_API_KEY: 'sk-test' },
      });
      const report = JSON.parse(check.stdout) as {
        offered: boolean;
        shutdown: string;
        successor: string;
        models: unknown[];
      };
      expect(report).toMatchObject({ offered: true, shutdown: day(-37), successor: 'gpt-5.4' });
      expect(report.models).toHaveLength(4);
      const none = await runArena(['judges', 'check', 'openai/gpt-9', '--base-url', srv.url], {
        env: { OPENAI_API_KEY: 'sk-test' },
      });
      expect(none.code).toBe(2);
      expect(none.stdout).toMatch(/openai\/gpt-9: NOT offered/);
      // the site's judge page says it too, by the day alone (a stored page stays true)
      const site = await serveArena(['serve', '--db', db, '--port', '0']);
      try {
        const html = await (await fetch(`${site.url}/judges`)).text();
        expect(html).toMatch(
          /openai\/gpt-5<\/strong>: this judge (is|was) retired on 2026-12-11; its successor is gpt-5\.4/,
        );
      } finally {
        await site.stop();
      }
    } finally {
      await srv.close();
    }
  });
});
