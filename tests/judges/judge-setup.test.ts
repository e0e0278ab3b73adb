// One way to set up a judge for run, calibrate, refresh and checkpoints: openJudge reads and checks the key, adds
// retries, stops at the first refused key; call options parsed by the config files' zod schema.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { judgeSetupOf } from '../../src/cli/judge-args.ts';
import { UsageError } from '../../src/cli/format.ts';
import { CALL_DEFAULTS, JudgeSetup, apiKeyOf, openJudge } from '../../src/judges/registry.ts';
import { JudgeCallError } from '../../src/judges/judge.ts';
import { loadJsonConfig } from '../../src/ops/config.ts';
import { RefreshConfig } from '../../src/ops/config.ts';
import { startOpenAIServer } from '../support/openai-server.ts';
import { arenaOk, runArena, REPO_ROOT, tmpDir } from '../support/cli.ts';

const QUESTIONS = join(REPO_ROOT, 'questions', 'arena.jsonl');
const ANSWERS = join(REPO_ROOT, 'questions', 'answers');
const MODELS = ['arena-sage', 'arena-swift', 'arena-echo'];
const REQ = { system: 's', user: 'u', temperature: 0, maxTokens: 16 };

describe('call options: one schema for flags and config files', () => {
  it('flags get the typed defaults of the schema, and parse as numbers', () => {
    expect(judgeSetupOf('openai/gpt-4', {})).toEqual({ id: 'openai/gpt-4', ...CALL_DEFAULTS });
    expect(
      judgeSetupOf('mock/random', {
        timeout: '2.5',
        retries: '0',
        backoff: '20',
        'retry-budget': '30',
        'base-url': 'http://127.0.0.1:9/v1',
      }),
    ).toEqual({
      id: 'mock/random',
      baseURL: 'http://127.0.0.1:9/v1',
      timeoutS: 2.5,
      retries: 0,
      backoffMs: 20,
      retryBudgetS: 30,
    });
    // a config file's judge without call options gets the very same defaults
    expect(JudgeSetup.parse({ id: 'openai/gpt-4' })).toEqual(judgeSetupOf('openai/gpt-4', {}));
  });

  it('a bad flag is a usage error naming the flag and what it got', () => {
    const bad = (args: Parameters<typeof judgeSetupOf>[1], spec = 'openai/gpt-4') => {
      try {
        judgeSetupOf(spec, args);
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad({ timeout: 'soon' })).toBe('--timeout: expected a number, got "soon"');
    expect(bad({ retries: '1.5' })).toMatch(/^--retries: .*expected int\b/);
    expect(bad({ retries: '-1' })).toMatch(/^--retries: Too small/);
    expect(bad({ 'retry-budget': '0' })).toMatch(/^--retry-budget: Too small/);
    expect(bad({ 'base-url': 'not a url' })).toMatch(/^--base-url: /);
    expect(bad({}, 'gpt-4')).toBe('--judge: expected provider/model, e.g. openai/gpt-4 or mock/random');
    // several at once: one line each
    expect(bad({ timeout: 'x', backoff: 'y' }).split('\n')).toEqual([
      '--timeout: expected a number, got "x"',
      '--backoff: expected a number, got "y"',
    ]);
  });

  it('a bad value in a config file names the file, the line and the field, through the same formatter', () => {
    const file = join(tmpDir('arena-setup-'), 'refresh.json');
    writeFileSync(
      file,
      JSON.stringify(
        {
          db: 'a.db',
          questions: ['q.jsonl'],
          answers: ['a'],
          judges: [{ id: 'mock/random', retries: 'lots', backoffMs: -1 }],
        },
        null,
        2,
      ),
    );
    const lineOf = (text: string) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((l) => l.includes(text)) + 1;
    expect(() => loadJsonConfig(file, RefreshConfig)).toThrow(
      `${file}:${lineOf('"lots"')}: field "judges[0].retries": Invalid input: expected number, received string\n${file}:${lineOf('"backoffMs"')}: field "judges[0].backoffMs": Too small`,
    );
  });
});

describe('API keys', () => {
  it('an OpenAI judge needs a key unless it has a base URL; a variable named in apiKeyEnv must be set', () => {
    expect(() => apiKeyOf(JudgeSetup.parse({ id: 'openai/gpt-4' }), {})).toThrow(
      /^OPENAI_API_KEY is not set, and openai\/gpt-4 would call OpenAI with no key/,
    );
    expect(apiKeyOf(JudgeSetup.parse({ id: 'openai/gpt-4' }), { OPENAI_API_KEY: 'k1' })).toBe('k1');
    expect(
      apiKeyOf(JudgeSetup.parse({ id: 'openai/judge', baseURL: 'http://127.0.0.1:9/v1' }), {}),
    ).toBeUndefined();
    expect(() =>
      apiKeyOf(
        JudgeSetup.parse({ id: 'openai/judge', baseURL: 'http://127.0.0.1:9/v1', apiKeyEnv: 'MY_KEY' }),
        { OPENAI_API_KEY: 'k1' },
      ),
    ).toThrow('judge openai/judge: the environment variable MY_KEY (apiKeyEnv) is not set');
    expect(apiKeyOf(JudgeSetup.parse({ id: 'openai/judge', apiKeyEnv: 'MY_KEY' }), { MY_KEY: 'k2' })).toBe(
      'k2',
    );
    expect(apiKeyOf(JudgeSetup.parse({ id: 'mock/random' }), {})).toBeUndefined();
  });

  it('openJudge sends the key, retries 500s, and after the first 401 no call reaches the server', async () => {
    const srv = await startOpenAIServer({ apiKey: 'right', faults: [{ status: 500, requests: [1] }] });
    try {
      const setup = JudgeSetup.parse({
        id: 'openai/judge',
        baseURL: srv.url,
        apiKeyEnv: 'JUDGE_KEY',
        backoffMs: 5,
      });
      const lines: string[] = [];
      const good = await openJudge(setup, { JUDGE_KEY: 'right' }, { log: (l) => lines.push(l) });
      expect((await good.complete(REQ)).text).toBeTruthy();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^\[openai\/judge\] retry 1 in 0\.0 s: \[judge:openai\] HTTP 500/);
      const refused: JudgeCallError[] = [];
      const bad = await openJudge(setup, { JUDGE_KEY: 'wrong' }, { onFatal: (e) => refused.push(e) });
      const before = srv.log.length;
      await expect(bad.complete(REQ)).rejects.toThrow(/HTTP 401/);
      await expect(bad.complete(REQ)).rejects.toThrow(/HTTP 401/);
      expect(refused).toHaveLength(1);
      expect(srv.log.length - before).toBe(1); // one call, no retries, nothing after it
    } finally {
      await srv.close();
    }
  });
});

describe('the first refused key stops every command that plays games', { timeout: 180_000 }, () => {
  const KEY = 'sk-test-SECRET-0123456789abcdef';

  it('arena calibrate: no key and no --base-url is an error at once; a refused key stops the run with one message', async () => {
    const dir = tmpDir('arena-cal-auth-');
    const db = join(dir, 'a.db');
    await arenaOk(['import', 'questions', '--db', db, QUESTIONS]);
    await arenaOk(['import', 'answers', '--db', db, ...MODELS.map((m) => join(ANSWERS, `${m}.jsonl`))]);
    const none = await runArena(
      ['calibrate', '--db', db, '--judge', 'openai/gpt-4', '--models', MODELS.join(',')],
      { env: { OPENAI_API_KEY: undefined } },
    );
    expect(none.code).toBe(1);
    expect(none.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(none.stderr).toMatch(/^arena: OPENAI_API_KEY is not set.*--base-url/);

    const srv = await startOpenAIServer({ apiKey: 'sk-the-right-one', echoKey: true });
    try {
      const r = await runArena(
        [
          'calibrate',
          '--db',
          db,
          '--judge',
          'openai/judge',
          '--base-url',
          srv.url,
          '--models',
          MODELS.join(','),
          '--concurrency',
          '4',
          '--backoff',
          '10',
        ],
        { env: { OPENAI_API_KEY: KEY } },
      );
      expect(r.code, r.stderr).toBe(1);
      const refused = srv.log.filter((e) => e.status === 401).length;
      expect(refused).toBeGreaterThanOrEqual(1);
      expect(refused).toBeLessThanOrEqual(4); // the calls in flight at the first refusal, of hundreds planned
      expect(r.stderr.match(/HTTP 401/g)).toHaveLength(1);
      expect(r.stderr).toMatch(/the run stopped at this first refusal/);
      expect(`${r.stdout}${r.stderr}`).not.toMatch(/SECRET|0123456789abcdef/);
      const sqlite = new Database(db, { readonly: true });
      try {
        expect(sqlite.prepare('select count(*) n from games').get()).toEqual({ n: 0 });
        expect(sqlite.prepare("select status from runs where judge = 'openai/judge+fair'").all()).toEqual([
          { status: 'failed' },
        ]);
        for (const a of sqlite.prepare('select error from attempts').all() as { error: string }[])
          expect(a.error).not.toMatch(/SECRET|0123456789abcdef/);
      } finally {
        sqlite.close();
      }
    } finally {
      await srv.close();
    }
  });

  it('arena refresh: a missing apiKeyEnv is said before anything is imported; a refused key stops the refresh, recorded as failed', async () => {
    const srv = await startOpenAIServer({ apiKey: 'sk-the-right-one', echoKey: true });
    try {
      const dir = tmpDir('arena-refresh-auth-');
      const cfg = join(dir, 'refresh.json');
      const config = {
        db: 'arena.db',
        questions: [QUESTIONS],
        answers: MODELS.map((m) => join(ANSWERS, `${m}.jsonl`)),
        promptSet: 'arena',
        judges: [
          {
            id: 'openai/judge',
            baseURL: srv.url,
            apiKeyEnv: 'JUDGE_KEY',
            price: { input: 1, output: 1 },
            concurrency: 4,
            backoffMs: 10,
          },
        ],
      };
      writeFileSync(cfg, JSON.stringify(config, null, 2));
      const none = await runArena(['refresh', '--config', cfg], { env: { JUDGE_KEY: undefined } });
      expect(none.code).toBe(1);
      expect(none.stderr).toMatch(
        /^arena: judge openai\/judge: the environment variable JUDGE_KEY \(apiKeyEnv\) is not set/,
      );
      expect(readdirSync(dir)).toEqual(['refresh.json']);
      // a dry run makes no call, so it needs no key
      const dry = await runArena(['refresh', '--config', cfg, '--dry-run'], {
        env: { JUDGE_KEY: undefined },
      });
      expect(dry.code, dry.stderr).toBe(0);
      expect(srv.log).toHaveLength(0);

      const r = await runArena(['refresh', '--config', cfg], { env: { JUDGE_KEY: KEY } });
      expect(r.code, r.stderr).toBe(1);
      const refused = srv.log.filter((e) => e.status === 401).length;
      expect(refused).toBeGreaterThanOrEqual(1);
      expect(refused).toBeLessThanOrEqual(4);
      expect(srv.log.filter((e) => e.status !== 401)).toHaveLength(0);
      expect(r.stderr.match(/HTTP 401/g)).toHaveLength(1);
      expect(r.stderr).toMatch(
        /the run stopped at this first refusal .*check the judge's apiKeyEnv and baseURL in /,
      );
      expect(`${r.stdout}${r.stderr}`).not.toMatch(/SECRET|0123456789abcdef/);
      const sqlite = new Database(join(dir, 'arena.db'), { readonly: true });
      try {
        expect(sqlite.prepare('select count(*) n from games').get()).toEqual({ n: 0 });
        const [rec] = sqlite.prepare('select status, degraded from refreshes').all() as {
          status: string;
          degraded: string;
        }[];
        expect(rec!.status).toBe('failed');
        expect(rec!.degraded).toMatch(/HTTP 401.*first refusal/);
        expect(rec!.degraded).not.toMatch(/SECRET|0123456789abcdef/);
      } finally {
        sqlite.close();
      }
    } finally {
      await srv.close();
    }
  });

  it('arena checkpoints: a refused key stops the judging with one message; nothing after it reaches the server', async () => {
    const srv = await startOpenAIServer({ apiKey: 'sk-the-right-one', echoKey: true });
    try {
      const dir = tmpDir('arena-ckpt-auth-');
      const cfg = join(dir, 'checkpoints.json');
      const config = {
        db: 'ckpt.db',
        series: 'demo',
        questions: [QUESTIONS],
        promptSet: 'arena',
        baseline: { model: 'arena-sage', answers: join(ANSWERS, 'arena-sage.jsonl') },
        checkpoints: [
          { name: 'a', step: 1, model: 'arena-echo', answers: join(ANSWERS, 'arena-echo.jsonl') },
          { name: 'b', step: 2, model: 'arena-swift', answers: join(ANSWERS, 'arena-swift.jsonl') },
        ],
        judges: [
          {
            id: 'openai/judge',
            baseURL: srv.url,
            apiKeyEnv: 'JUDGE_KEY',
            price: { input: 0, output: 0 },
            concurrency: 4,
            backoffMs: 10,
          },
        ],
      };
      writeFileSync(cfg, JSON.stringify(config, null, 2));
      const none = await runArena(['checkpoints', 'run', '--config', cfg], { env: { JUDGE_KEY: undefined } });
      expect(none.code).toBe(1);
      expect(none.stderr).toMatch(
        /^arena: judge openai\/judge: the environment variable JUDGE_KEY \(apiKeyEnv\) is not set/,
      );
      expect(readdirSync(dir)).toEqual(['checkpoints.json']);

      const r = await runArena(['checkpoints', 'run', '--config', cfg], { env: { JUDGE_KEY: KEY } });
      expect(r.code, r.stderr).toBe(1);
      const refused = srv.log.filter((e) => e.status === 401).length;
      expect(refused).toBeGreaterThanOrEqual(1);
      expect(refused).toBeLessThanOrEqual(4);
      expect(srv.log.filter((e) => e.status !== 401)).toHaveLength(0);
      expect(r.stderr.match(/HTTP 401/g)).toHaveLength(1);
      expect(r.stderr).toMatch(/the run stopped at this first refusal/);
      expect(`${r.stdout}${r.stderr}`).not.toMatch(/SECRET|0123456789abcdef/);
    } finally {
      await srv.close();
    }
  });
});
