// What a new user tripped on in the first week: --judge and provider prefixes inferred, no internal tags in errors,
// prices asked only where a budget needs them, figures spelled one way, examples run from anywhere.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userMessage } from '../../src/cli/errors.ts';
import { chooseJudge } from '../../src/cli/judge-choice.ts';
import { nearMisses } from '../../src/core/suggest.ts';
import { loadCheckpointsConfig } from '../../src/ops/checkpoints-config.ts';
import { expandVariable, loadRefreshConfig } from '../../src/ops/config.ts';
import { priceFor } from '../../src/ops/prices.ts';
import { OWN, playOwn, REPO_ROOT, runArena, spawnArena, tmpDir } from '../support/cli.ts';
import { until } from '../support/until.ts';
import { spawnOpenAIServer, type SpawnedOpenAIServer } from '../support/openai-server.ts';

describe('choosing the judge of a one-judge command', () => {
  it('uses the only judge when --judge is left out, and says so', () => {
    expect(chooseJudge(undefined, ['openai/mock-judge'])).toEqual({
      judge: 'openai/mock-judge',
      note: '--judge not given: using the only judge in the database, openai/mock-judge',
    });
    expect(() => chooseJudge(undefined, ['gpt-4', 'human'])).toThrow(
      '--judge is required: the database has 2 judges (gpt-4, human)',
    );
  });

  it('accepts a judge named without its provider when only one judge ends so, else suggests', () => {
    expect(chooseJudge('mock-judge', ['openai/mock-judge', 'gpt-4']).judge).toBe('openai/mock-judge');
    expect(() => chooseJudge('mock-judge', ['openai/mock-judge', 'vllm/mock-judge'])).toThrow(
      /did you mean "vllm\/mock-judge" or "openai\/mock-judge"\?/,
    );
    expect(nearMisses('mock-judge', ['openai/mock-judge', 'human'])).toEqual(['openai/mock-judge']);
  });
});

describe('the CLI on a database with one judge', { timeout: 180_000 }, () => {
  let db: string;
  beforeAll(async () => {
    db = join(tmpDir(), 'own.db');
    await playOwn(db, 'mock/longer', 'arena-sage,arena-echo', ['--turns', '1']);
  }, 180_000);

  it('standings, ratings and bias need no --judge; the choice is one line on stderr', async () => {
    for (const cmd of ['standings', 'ratings', 'bias']) {
      const r = await runArena([cmd, '--db', db]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('arena: --judge not given: using the only judge in the database, mock/longer\n');
      expect(r.stdout).toMatch(/arena-sage/);
    }
  });

  it('`arena start` on an existing database says it serves it as it is, and how to re-import', async () => {
    // it prints the line before it builds the reports and serves: read it, then stop the process (it would
    // serve until stopped)
    const p = spawnArena(['start', '--db', db, '--port', '0'], { env: { JUDGE_LLAMA2_DIR: 'none' } });
    try {
      await until(
        () => / as it is .*\n/.test(p.stderr()),
        '`arena start` to say how it serves the database',
        120_000,
      );
    } finally {
      p.child.kill('SIGKILL');
      await p.done;
    }
    expect(p.stderr()).toContain(
      `serving ${db} as it is (judges: mock/longer); to import the release again, remove it first (rm ${db})`,
    );
  });

  it('--judge longer means mock/longer', async () => {
    const r = await runArena(['standings', '--db', db, '--judge', 'longer', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('arena: --judge longer: using mock/longer\n');
    expect(JSON.parse(r.stdout)).toHaveLength(2);
  });
});

describe('error lines a user reads', () => {
  it('leave out origin tags such as [ops:prices], which --verbose keeps', () => {
    const msg = '[ops:prices] no price known for judge "openai/mock-judge": give one';
    expect(userMessage(msg, false)).toBe('no price known for judge "openai/mock-judge": give one');
    expect(userMessage(`runner 2: [judge:openai] HTTP 500: boom`, false)).toBe('runner 2: HTTP 500: boom');
    expect(userMessage('verdict [[A>B]] at [1:2]', false)).toBe('verdict [[A>B]] at [1:2]');
    expect(userMessage(msg, true)).toBe(msg);
  });

  it('in the real CLI: no tag by default, the tag and a stack with --verbose', async () => {
    const db = join(tmpDir(), 'tags.db');
    const args = ['run', '--db', db, '--judge', 'mock/zzz', '--models', 'arena-sage,arena-echo', ...OWN];
    const plain = await runArena(args);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toBe(
      'arena: unknown behaviour "zzz"; valid: random, a, b, tie, longer, unparsable, quoting\n',
    );
    const verbose = await runArena([...args, '--verbose']);
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toMatch(/^arena: ArenaError: \[judge:mock\] unknown behaviour "zzz"/);
    expect(verbose.stderr).toMatch(/\n +at /);
  });
});

describe('a judge without a price', { timeout: 180_000 }, () => {
  let srv: SpawnedOpenAIServer;
  beforeAll(async () => {
    srv = await spawnOpenAIServer({ verdict: 'longer', logFile: join(tmpDir(), 'judge.log') });
  });
  afterAll(async () => srv?.close());

  const config = (dir: string, extra: object) => {
    const file = join(dir, 'checkpoints.json');
    writeFileSync(
      file,
      JSON.stringify({
        db: 'checkpoints.db',
        series: 'sft',
        questions: [join(REPO_ROOT, 'questions/arena.jsonl')],
        prompts: [join(REPO_ROOT, 'questions/judge_prompts.jsonl')],
        promptSet: 'arena',
        questionIds: [1001, 1002],
        baseline: { model: 'arena-sage', answers: join(REPO_ROOT, 'questions/answers/arena-sage.jsonl') },
        checkpoints: [
          {
            name: 'step-1',
            step: 1,
            model: 'arena-echo',
            answers: join(REPO_ROOT, 'questions/answers/arena-echo.jsonl'),
          },
        ],
        judges: [{ id: 'openai/mock-judge', baseURL: srv.url }],
        resamples: 100,
        ...extra,
      }),
    );
    return file;
  };

  it('costs $0 in checkpoints, as in `arena run`, when no budget is set', async () => {
    const dir = tmpDir();
    const r = await runArena(['checkpoints', 'run', '--config', config(dir, {})], {
      env: { OPENAI_API_KEY: undefined },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/no price/);
  });

  it("checkpoints' progress ends with the summary's cost, printed before the lines that follow it", async () => {
    const dir = tmpDir();
    const judges = [{ id: 'openai/mock-judge', baseURL: srv.url, price: { input: 1000, output: 2000 } }];
    const r = await runArena(['checkpoints', 'run', '--config', config(dir, { judges })], {
      env: { OPENAI_API_KEY: undefined },
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n');
    const summary = lines.findIndex((l) => l.startsWith('checkpoints: '));
    const spent = /(\$\d[\d,]*\.\d{4})$/.exec(lines[summary]!)![1]!;
    expect(Number(spent.slice(1))).toBeGreaterThan(0);
    const frames = lines
      .map((l, i) => [l, i] as const)
      .filter(([l]) => l.startsWith('judge openai/mock-judge '));
    const [last, at] = frames.at(-1)!;
    expect(last).toMatch(/ 8\/8 \|.*\| failed 0 \| \$\d/);
    expect(last.endsWith(`| ${spent}`), `${last} vs ${spent}`).toBe(true);
    // the judge's own line and the summary come after the bar's last frame
    expect(at).toBeLessThan(lines.findIndex((l) => l.startsWith('openai/mock-judge: ')));

    // the ledger spells the same figure the same way: dollars with four decimals, times to the minute
    const db = join(dir, 'checkpoints.db');
    const byJudge = await runArena(['cost', '--db', db, '--by', 'judge']);
    expect(byJudge.stdout.trimEnd().split('\n').at(-1)).toMatch(
      new RegExp(`^openai/mock-judge .* \\${spent}$`),
    );
    const byRun = await runArena(['cost', '--db', db, '--by', 'run']);
    const row = byRun.stdout.trimEnd().split('\n').at(-1)!;
    expect(row).toMatch(/ \d{4}-\d\d-\d\d \d\d:\d\d UTC /);
    expect(row).toContain(` ${spent} `);
    expect(byRun.stdout).not.toMatch(/\.\d{3}Z/);
  });

  it('with a budget, is an error that says where to give the price, and judges nothing', async () => {
    const dir = tmpDir();
    const before = srv.readLog().length;
    const r = await runArena(['checkpoints', 'run', '--config', config(dir, { budget: { maxUsd: 1 } })], {
      env: { OPENAI_API_KEY: undefined },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^arena: no price known for judge "openai\/mock-judge", and the config sets a budget: give one in the config as judges\[0\]\.price = \{ "input": USD per 1M tokens, "output": USD per 1M tokens \}/,
    );
    expect(srv.readLog().length).toBe(before);
  });
});

describe('priceFor without a price', () => {
  it('is free unless a budget requires one, and then names the field', () => {
    expect(priceFor('openai/my-vllm', { required: false })).toEqual({ input: 0, output: 0 });
    expect(() => priceFor('openai/my-vllm', { required: true, field: 'judges[1].price' })).toThrow(
      /no price known for judge "openai\/my-vllm", and the config sets a budget: give one in the config as judges\[1\]\.price/,
    );
  });
});

describe('the examples run from anywhere', () => {
  it('config paths take ${NAME} and ${NAME:-default} from the environment', () => {
    expect(expandVariable('c.json', '${MTBENCH_DIR:-../shared/mt_bench}/q.jsonl', {})).toBe(
      '../shared/mt_bench/q.jsonl',
    );
    expect(expandVariable('c.json', '${MTBENCH_DIR:-../x}/q.jsonl', { MTBENCH_DIR: '/data/mt' })).toBe(
      '/data/mt/q.jsonl',
    );
    expect(() => expandVariable('c.json', '${NOPE}/q.jsonl', {})).toThrow(
      'c.json: the path "${NOPE}/q.jsonl" names ${NOPE}, which is not set',
    );
  });

  it('the guanaco example reads MTBENCH_DIR and JUDGE_LLAMA2_DIR; examples never write ./arena.db or into bench/', () => {
    const c = loadCheckpointsConfig(join(REPO_ROOT, 'examples/checkpoints-guanaco.json'), {
      MTBENCH_DIR: '/data/mt',
      JUDGE_LLAMA2_DIR: '/data/jl',
    }).config;
    expect(c.questions).toEqual(['/data/mt/question.jsonl']);
    expect(c.checkpoints.every((k) => k.answers!.startsWith('/data/jl/checkpoint_answers/'))).toBe(true);
    for (const name of ['checkpoints.json', 'checkpoints-guanaco.json']) {
      const k = loadCheckpointsConfig(join(REPO_ROOT, 'examples', name)).config;
      expect(dirname(k.chart!), name).toBe(dirname(k.db));
    }
    expect(loadRefreshConfig(join(REPO_ROOT, 'examples/refresh.json')).config.db).not.toBe(
      join(REPO_ROOT, 'arena.db'),
    );
  });
});

describe('help and typos', () => {
  it('help lines carry no padding, and --judgee suggests --judge', async () => {
    for (const args of [['--help'], ['run', '--help'], ['standings', '--help']]) {
      const r = await runArena(args);
      expect(
        r.stdout.split('\n').filter((l) => / $/.test(l)),
        args.join(' '),
      ).toEqual([]);
    }
    const r = await runArena(['run', '--judgee', 'mock/longer']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^arena: unknown option --judgee for `arena run` \(did you mean --judge\?\)\n/);
  });
});
