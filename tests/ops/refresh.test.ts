// `arena refresh` against the OpenAI-compatible test server (calls counted from its request log file).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arenaJson, runArena, spawnArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { answerFile, chats, games, HAVE_MTBENCH, hashOf, readDb, refreshes, writeConfig } from './helpers.ts';

const cfg = (dir: string) => join(dir, 'refresh.json');

const MODELS = ['alpaca-13b', 'claude-v1', 'gpt-3.5-turbo'];
// 6 questions x 1 turn x 3 pairs x 2 orders
const GAMES_3 = 6 * 3 * 2;

describe.skipIf(!HAVE_MTBENCH)('arena refresh (MT-Bench data from MTBENCH_DIR)', () => {
  let srv: OpenAIServer;
  const dir = tmpDir('arena-refresh-');
  const log = join(dir, 'server.log');
  beforeAll(async () => {
    srv = await startOpenAIServer({ latencyMs: 5, verdict: 'longer', logFile: log });
  });
  afterAll(async () => srv?.close());

  it("plays everything once, then only a new model's matches, then nothing; a changed answer replays only its games", async () => {
    const db = join(dir, 'arena.db');
    let cfg = writeConfig(dir, { url: srv.url, models: MODELS });
    const r1 = await runArena(['refresh', '--config', cfg]);
    expect(r1.code, r1.stderr).toBe(0);
    expect(r1.stdout).toMatch(
      /^refresh \w+: OK; 3 new model\(s\), 0 changed answer\(s\); 36 played, 0 failed; \$\d+\.\d{4} spent/m,
    );
    expect(chats(log)).toHaveLength(GAMES_3);
    expect(games(db)).toHaveLength(GAMES_3);

    // a fourth model: exactly its matches with the three others, nothing re-judged
    cfg = writeConfig(dir, { url: srv.url, models: [...MODELS, 'llama-13b'] });
    const before = new Set(games(db).map((g) => g.id));
    const r2 = await runArena(['refresh', '--config', cfg]);
    expect(r2.code, r2.stderr).toBe(0);
    const calls2 = chats(log).slice(GAMES_3);
    expect(calls2).toHaveLength(6 * 3 * 2);
    const added = games(db).filter((g) => !before.has(g.id));
    expect(added).toHaveLength(calls2.length);
    expect(added.every((g) => g.model_1 === 'llama-13b' || g.model_2 === 'llama-13b')).toBe(true);
    // the server saw exactly the prompts of the new games, each once
    expect(calls2.map((c) => c.hash).sort()).toEqual(added.map(hashOf).sort());

    // nothing new: zero calls
    const n2 = chats(log).length;
    const r3 = await runArena(['refresh', '--config', cfg]);
    expect(r3.code, r3.stderr).toBe(0);
    expect(r3.stdout).toMatch(/OK; 0 new model\(s\), 0 changed answer\(s\); 0 played/);
    expect(chats(log).length).toBe(n2);

    // one changed answer (claude-v1, question 81): only its 3 matches x 2 orders are judged again
    const lines = readFileSync(answerFile('claude-v1'), 'utf8').split('\n').filter(Boolean);
    const changed = lines.map((l) => {
      const a = JSON.parse(l);
      if (a.question_id === 81) a.choices[0].turns[0] = `${a.choices[0].turns[0]}\n\nP.S. Aloha!`;
      return JSON.stringify(a);
    });
    const claude = join(dir, 'claude-v1.jsonl');
    writeFileSync(claude, `${changed.join('\n')}\n`);
    cfg = writeConfig(dir, {
      url: srv.url,
      models: [...MODELS, 'llama-13b'],
      answers: ['alpaca-13b', 'gpt-3.5-turbo', 'llama-13b'].map(answerFile).concat(claude),
    });
    const r4 = await runArena(['refresh', '--config', cfg]);
    expect(r4.code, r4.stderr).toBe(0);
    expect(r4.stdout).toMatch(/0 new model\(s\), 1 changed answer\(s\); 6 played/);
    const calls4 = chats(log).slice(n2);
    expect(calls4).toHaveLength(6);
    const latest = games(db).filter((g) => calls4.some((c) => c.hash === hashOf(g)));
    expect(
      latest.every((g) => g.question_id === 81 && (g.model_1 === 'claude-v1' || g.model_2 === 'claude-v1')),
    ).toBe(true);

    // the ledger: every game has a cost from the price table (10 / 30 USD per 1M tokens)
    for (const g of games(db)) expect(g.cost).toBeCloseTo((g.tokens_in! * 10 + g.tokens_out! * 30) / 1e6, 12);
    const rs = refreshes(db);
    expect(rs.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    const byJudge = JSON.parse((await runArena(['cost', '--db', db, '--json'])).stdout) as {
      judge: string;
      games: number;
      cost: number;
    }[];
    expect(byJudge).toEqual([
      {
        judge: 'openai/judge',
        games: GAMES_3 * 2 + 6,
        tokensIn: expect.any(Number),
        tokensOut: expect.any(Number),
        tokensCached: 0,
        tokensReasoning: 0,
        cost: expect.any(Number),
      },
    ]);
    expect(byJudge[0]!.cost).toBeCloseTo(
      rs.reduce((s, r) => s + r.cost, 0),
      9,
    );
    const byRun = JSON.parse((await runArena(['cost', '--db', db, '--by', 'run', '--json'])).stdout) as {
      cost: number;
      played: number;
    }[];
    expect(byRun.reduce((s, r) => s + r.played, 0)).toBe(GAMES_3 * 2 + 6);
    expect(byRun.reduce((s, r) => s + r.cost, 0)).toBeCloseTo(byJudge[0]!.cost, 9);
    const byGame = JSON.parse(
      (await runArena(['cost', '--db', db, '--by', 'game', '--limit', '6', '--json'])).stdout,
    ) as { questionId: number; cost: number }[];
    expect(byGame).toHaveLength(6);
    expect(byGame.every((g) => g.questionId === 81 && g.cost > 0)).toBe(true);
  });

  it('resumes after SIGKILL: the rerun completes, no game is stored twice, at most the calls in flight are repeated', async () => {
    const d = tmpDir('arena-kill-');
    const slowLog = join(d, 'server.log');
    const slow = await startOpenAIServer({
      latencyMs: 150,
      verdict: 'longer',
      logFile: slowLog,
    });
    try {
      const cfg = writeConfig(d, { url: slow.url, models: MODELS, judge: { concurrency: 2 } });
      const { child, done: exited } = spawnArena(['refresh', '--config', cfg]);
      const t0 = Date.now();
      while (chats(slowLog).length < 10 && Date.now() - t0 < 60_000)
        await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGKILL');
      await exited;
      const db = join(d, 'arena.db');
      const partial = games(db).length;
      expect(partial).toBeGreaterThan(0);
      expect(partial).toBeLessThan(GAMES_3);
      // the killed refresh's ledger: the games it stored, priced (10 / 30 USD per 1M tokens) from the tokens the
      // server itself counted for each of them
      const billed = new Map(
        (chats(slowLog) as { hash?: string; tokensIn?: number; tokensOut?: number }[]).map((c) => [
          c.hash,
          c,
        ]),
      );
      const stored = games(db).map((g) => billed.get(hashOf(g))!);
      const paid = {
        played: partial,
        tokensIn: stored.reduce((s, c) => s + c.tokensIn!, 0),
        tokensOut: stored.reduce((s, c) => s + c.tokensOut!, 0),
        cost: stored.reduce((s, c) => s + (c.tokensIn! * 10 + c.tokensOut! * 30) / 1e6, 0),
      };
      expect(paid.cost).toBeGreaterThan(0);
      // before anything reaps it, `arena refreshes` already counts its stored games
      const [shown] = (await arenaJson<{ played: number; cost: number }[]>(['refreshes', '--db', db]))!;
      expect(shown!.played).toBe(paid.played);
      expect(shown!.cost).toBeCloseTo(paid.cost, 12);
      const r = await runArena(['refresh', '--config', cfg]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/1 earlier refresh\(es\) had been killed/);
      const all = games(db);
      expect(all).toHaveLength(GAMES_3);
      const slots = new Set(all.map((g) => [g.question_id, g.turn, g.model_1, g.model_2, g.order].join('|')));
      expect(slots.size).toBe(GAMES_3);
      // the killed process had at most `concurrency` (2) calls in flight whose answers were lost
      const calls = chats(slowLog).length;
      expect(calls).toBeGreaterThanOrEqual(GAMES_3);
      expect(calls).toBeLessThanOrEqual(GAMES_3 + 2);
      const [killed] = refreshes(db);
      expect(killed!.status).toBe('interrupted');
      expect(killed!.cost).toBeCloseTo(paid.cost, 12);
      expect(JSON.parse(killed!.summary)).toMatchObject({
        played: paid.played,
        tokensIn: paid.tokensIn,
        tokensOut: paid.tokensOut,
      });
      expect(refreshes(db).map((x) => x.status)).toEqual(['interrupted', 'ok']);
    } finally {
      await slow.close();
    }
  });

  it('SIGINT stops a refresh with exit 130, recorded as interrupted; the rerun completes', async () => {
    const d = tmpDir('arena-int-');
    const slowLog = join(d, 'server.log');
    const slow = await startOpenAIServer({
      latencyMs: 150,
      verdict: 'longer',
      logFile: slowLog,
    });
    try {
      const cfg = writeConfig(d, { url: slow.url, models: MODELS, judge: { concurrency: 2 } });
      const { child, done } = spawnArena(['refresh', '--config', cfg]);
      const t0 = Date.now();
      while (chats(slowLog).length < 6 && Date.now() - t0 < 60_000)
        await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGINT');
      const { code, stdout: out } = await done;
      expect(code).toBe(130);
      expect(out).toMatch(/INTERRUPTED/);
      const db = join(d, 'arena.db');
      expect(refreshes(db).map((x) => x.status)).toEqual(['interrupted']);
      const r = await runArena(['refresh', '--config', cfg]);
      expect(r.code, r.stderr).toBe(0);
      expect(games(db)).toHaveLength(GAMES_3);
      expect(chats(slowLog).length).toBeLessThanOrEqual(GAMES_3 + 2);
    } finally {
      await slow.close();
    }
  });

  it('rejects a bad config naming file, line and field', async () => {
    const d = tmpDir('arena-badcfg-');
    const cfg = writeConfig(d, { url: 'http://127.0.0.1:9/v1', models: MODELS, judge: { concurrency: 0 } });
    const r = await runArena(['refresh', '--config', cfg]);
    expect(r.code).toBe(1);
    const line =
      readFileSync(cfg, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('"concurrency": 0')) + 1;
    expect(r.stderr).toContain(`${cfg}:${line}: field "judges[0].concurrency": Too small`);
    writeFileSync(cfg, '{\n  "db": "x.db",\n  "questions": [\n}\n');
    const r2 = await runArena(['refresh', '--config', cfg]);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(new RegExp(`${cfg}:4: not valid JSON`));
  });

  it('refuses a judge or mode listed twice, an unknown model and a publish folder that does not exist, before playing', async () => {
    const d = tmpDir('arena-badcfg-');
    const db = join(d, 'arena.db');
    const judge = { id: 'mock/longer' };
    const refused = async (extra: Record<string, unknown>) => {
      const cfg = writeConfig(d, { url: 'http://127.0.0.1:9/v1', models: MODELS, judge, extra });
      for (const args of [[], ['--dry-run']]) {
        const r = await runArena(['refresh', '--config', cfg, ...args]);
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
      }
      const r = await runArena(['refresh', '--config', cfg]);
      return r.stderr.trim();
    };
    const stored = () =>
      existsSync(db)
        ? readDb(db, (x) => x.prepare('select count(*) as n from answers').get())
        : 'no database';
    expect(await refused({ judges: [judge, judge] })).toMatch(
      new RegExp(
        `^arena: ${cfg(d)}:\\d+: field "judges\\[1\\]": judge "mock/longer" is judges\\[0\\] too; list each once`,
      ),
    );
    expect(
      await refused({ modes: [{ mode: 'pairwise-all' }, { mode: 'single' }, { mode: 'pairwise-all' }] }),
    ).toMatch(/field "modes\[2\]": mode pairwise-all is modes\[0\] too/);
    expect(stored()).toBe('no database');
    expect(await refused({ models: [...MODELS, 'nonexistent-model'] })).toMatch(
      new RegExp(
        `^arena: ${cfg(d)}:\\d+: field "models\\[3\\]": model "nonexistent-model" has no answer file in "answers" and no answers in ${db}`,
      ),
    );
    expect(stored()).toEqual({ n: 0 });
    rmSync(db);
    expect(await refused({ publish: { sqlite: 'nope/public.db' } })).toBe(
      `arena: ${cfg(d)}: field "publish.sqlite": ${join(d, 'nope')} is not a folder (create it, or name another), so ${join(d, 'nope', 'public.db')} cannot be written`,
    );
    expect(stored()).toBe('no database');
  });
});
