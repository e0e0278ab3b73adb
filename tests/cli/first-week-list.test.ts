// The first week's smaller cuts (issue 38, item 4), each as a user meets it: the real `arena` command in this
// process (runArena) on real SQLite files, and the functions behind the lines it prints.
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { etaText, Progress } from '../../src/cli/progress-bar.ts';
import { nearMisses } from '../../src/core/suggest.ts';
import { MOCK_BEHAVIOURS } from '../../src/judges/mock.ts';
import { serverName } from '../../src/judges/redact.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { arenaJson, arenaOk, OWN, playOwn, REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';
import { mtbenchReleaseDb } from '../support/mtbench-release.ts';
import { spawnOpenAIServer } from '../support/openai-server.ts';
import { sqlRows } from '../support/stored-game.ts';
import { freePort } from '../support/port.ts';

const MTBENCH_DIR = process.env.MTBENCH_DIR;

describe('`arena run --dry-run` prints the cost', { timeout: 120_000 }, () => {
  it('an OpenAI judge: the tokens in and out at the table price, as refresh estimates them', async () => {
    const db = join(tmpDir(), 'dry.db');
    const r = await runArena(
      [
        'run',
        '--db',
        db,
        '--judge',
        'openai/gpt-4o-mini',
        '--models',
        'arena-sage,arena-echo',
        ...OWN,
        '--dry-run',
      ],
      { env: { OPENAI_API_KEY: 'sk-test' } },
    );
    expect(r.code, r.stderr).toBe(0);
    const calls = Number(/(\d+) judge calls to make/.exec(r.stdout)![1]);
    const limitTokens = Number(/about (\d+) tokens as a rate limit counts them/.exec(r.stdout)![1]);
    const m =
      /about \$(\d+\.\d{4}): (\d+) tokens in, (\d+) out \(a typical judgment's 183 reply tokens\) at \$0\.15\/\$0\.6 per 1M tokens in\/out/.exec(
        r.stdout,
      );
    expect(m, r.stdout).not.toBeNull();
    const [usd, tin, tout] = [Number(m![1]), Number(m![2]), Number(m![3])];
    expect(calls).toBeGreaterThan(0);
    expect(tout).toBe(calls * 183);
    // the rate limit counts the same prompts, with max_tokens (2048) for each reply
    expect(tin + calls * 2048).toBe(limitTokens);
    expect(usd).toBeCloseTo((tin * 0.15 + tout * 0.6) / 1e6, 4);
  });

  it('a local judge is free; a judge with no known price says its cost is unknown', async () => {
    const db = join(tmpDir(), 'dry.db');
    const base = ['run', '--db', db, '--models', 'arena-sage,arena-echo', ...OWN, '--dry-run'];
    const mock = await runArena([...base, '--judge', 'mock/longer']);
    expect(mock.stdout).toMatch(/^about \$0\.0000: \d+ tokens in/m);
    const other = await runArena(
      [...base, '--judge', 'openai/my-judge', '--base-url', 'http://127.0.0.1:9/v1'],
      {
        env: { OPENAI_API_KEY: 'sk-test' },
      },
    );
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).toContain('cost unknown: no price known for openai/my-judge');
  });
});

describe('progress lines a log can trust', () => {
  it('the ETA is smoothed: bursts after stalls move it gradually, and it agrees with the rate it shows', () => {
    // 576 games at about 2.2/s on average, landing in bursts: a run under faults (retries back off together)
    let now = 0;
    const lines: string[] = [];
    const p = new Progress('games {value}/{total} | {rate}/s | ETA {eta} | failed {failed}', {
      tty: false,
      now: () => now,
      write: (l) => lines.push(l),
    });
    p.start(576, 0, { failed: 0 });
    const etas: { at: number; eta: number; value: number; rate: number }[] = [];
    let done = 0;
    for (let s = 1; s <= 600 && done < 576; s++) {
      now = s * 1000;
      // every 20 s a burst of 44 games; one 60 s stall (a server down) halfway
      if (s % 20 === 0 && (s < 120 || s > 180)) p.update((done = Math.min(576, done + 44)), { failed: 0 });
      if (s % 5 === 0) {
        const l = p.tick();
        const m = l && /(\d+)\/576 \| ([\d.]+)\/s \| ETA (?:(\d+)m)?(\d+)s/.exec(l);
        if (m) etas.push({ at: s, value: +m[1]!, rate: +m[2]!, eta: +(m[3] ?? 0) * 60 + +m[4]! });
      }
    }
    expect(etas.length).toBeGreaterThan(10);
    for (const e of etas.filter((e) => e.value < 576)) {
      // the ETA is the games left at the rate printed beside it (rounded to 0.1/s)
      const left = 576 - e.value;
      expect(e.eta).toBeGreaterThanOrEqual(Math.floor(left / (e.rate + 0.05)));
      expect(e.eta).toBeLessThanOrEqual(Math.ceil(left / (e.rate - 0.05)));
    }
    // between lines the ETA moves by at most a third, plus the time between them (the stall's 100 s)
    for (const [a, b] of etas.slice(1).map((e, k) => [etas[k]!, e] as const))
      if (b.value < 576)
        expect(Math.abs(b.eta - a.eta), `${a.at}s -> ${b.at}s`).toBeLessThan(a.eta / 3 + (b.at - a.at));
  });

  it('no line is written again while nothing finished; no rate before a game finished', () => {
    let now = 0;
    const lines: string[] = [];
    const p = new Progress('games {value}/{total} | {rate}/s | ETA {eta}', {
      tty: false,
      now: () => now,
      write: (l) => lines.push(l),
    });
    p.start(10, 0, {});
    now = 5000;
    expect(p.tick()).toBe('games 0/10 | -/s | ETA -');
    now = 10_000;
    expect(p.tick()).toBeUndefined();
    p.update(2, {});
    now = 15_000;
    expect(p.tick()).toMatch(/^games 2\/10 \| 0\.\d\/s \| ETA \d+s$/);
    for (now = 20_000; now < 60_000; now += 5000) expect(p.tick()).toBeUndefined();
    p.stop();
    expect(new Set(lines).size).toBe(lines.length);
    expect(etaText(280)).toBe('4m40s');
    expect(etaText(undefined)).toBe('-');
  });

  it(
    '`arena run` into a log: a stalled call writes no repeated line, and failed calls show no token rate',
    {
      timeout: 120_000,
    },
    async () => {
      const dir = tmpDir();
      // the first call hangs until its 7 s timeout; every call fails (400: not retried)
      const srv = await spawnOpenAIServer({
        latencyMs: 100,
        faults: [{ status: 'hang', requests: [1] }, { status: 400 }],
        logFile: join(dir, 'server.jsonl'),
      });
      try {
        const r = await runArena(
          [
            'run',
            '--db',
            join(dir, 'a.db'),
            '--judge',
            'openai/judge',
            '--base-url',
            srv.url,
            '--models',
            'arena-sage,arena-swift',
            '--turn',
            '1',
            '--concurrency',
            '1',
            '--timeout',
            '7',
            '--retries',
            '0',
            ...OWN,
          ],
          { env: { OPENAI_API_KEY: 'sk-test' } },
        );
        expect(r.code, r.stderr).toBe(2);
        const progress = r.stderr.split('\n').filter((l) => l.startsWith('games '));
        expect(progress.length, r.stderr).toBeGreaterThan(0);
        expect(new Set(progress).size, progress.join('\n')).toBe(progress.length);
        for (const l of progress) {
          expect(l).toMatch(/\| tokens 0 \| - tokens\/min$/);
        }
      } finally {
        await srv.close();
      }
    },
  );
});

describe('`import answers` names the model from its lines', () => {
  const sage = readFileSync(join(REPO_ROOT, 'questions/answers/arena-sage.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const write = (dir: string, name: string, ids: (k: number) => string | undefined) => {
    const file = join(dir, name);
    writeFileSync(file, sage.map((l, k) => JSON.stringify({ ...l, model_id: ids(k) })).join('\n') + '\n');
    return file;
  };
  const modelsOf = (db: string) =>
    sqlRows<{ model: string }>(db, 'select distinct model from answers order by model').map((r) => r.model);

  it('lines that agree on a model_id name the model, with a warning when it is not the file name', async () => {
    const dir = tmpDir();
    const db = join(dir, 'a.db');
    await arenaOk(['import', 'questions', 'questions/arena.jsonl', '--db', db]);
    const good = write(dir, 'good.jsonl', () => 'tiny-a');
    const same = write(dir, 'tiny-b.jsonl', () => 'tiny-b');
    const r = await runArena(['import', 'answers', good, same, '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    // one warning, for the file whose name differs (the other lines of stderr are the reports the import builds)
    expect(r.stderr.split('\n').filter((l) => l.startsWith('warning:'))).toEqual([
      `warning: ${good}: every line names the model "tiny-a" (model_id): imported as "tiny-a", not as "good" after the file name`,
    ]);
    expect(modelsOf(db)).toEqual(['tiny-a', 'tiny-b']);
  });

  it('lines that disagree leave the file name, saying so; a bad model_id is refused at its line', async () => {
    const dir = tmpDir();
    const db = join(dir, 'a.db');
    await arenaOk(['import', 'questions', 'questions/arena.jsonl', '--db', db]);
    const mixed = write(dir, 'mixed.jsonl', (k) => (k < 3 ? 'tiny-a' : k < 5 ? undefined : 'tiny-c'));
    const r = await runArena(['import', 'answers', mixed, '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `warning: ${mixed}: the lines name 2 model(s) in model_id ("tiny-a" on line 1, "tiny-c" on line 6) and 2 line(s) none: imported as "mixed" after the file name`,
    );
    expect(modelsOf(db)).toEqual(['mixed']);
    const bad = write(dir, 'bad.jsonl', () => 'a,b');
    const b = await runArena(['import', 'answers', bad, '--db', db]);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain(`${bad}:1: field "model_id"`);
    expect(modelsOf(db)).toEqual(['mixed']);
  });
});

describe('a connection error names the server, without credentials', { timeout: 120_000 }, () => {
  it('`failed:` lines say which base URL failed, once per message, with no tag unless --verbose', async () => {
    const port = await freePort();
    const args = [
      'run',
      '--db',
      join(tmpDir(), 'a.db'),
      '--judge',
      'openai/judge',
      '--base-url',
      `http://user:hunter2@127.0.0.1:${port}/v1?api-key=hunter3#x`,
      '--models',
      'arena-sage,arena-echo',
      '--turn',
      '1',
      '--retries',
      '0',
      ...OWN,
    ];
    const r = await runArena(args, { env: { OPENAI_API_KEY: 'sk-test' } });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/hunter|user:/);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('  failed'))).toEqual([
      `  failed: connection failed (http://127.0.0.1:${port}/v1): Connection error.`,
    ]);
    const v = await runArena([...args, '--verbose'], { env: { OPENAI_API_KEY: 'sk-test' } });
    expect(v.stderr).toContain(`  failed: [judge:openai] connection failed (http://127.0.0.1:${port}/v1)`);
    expect(v.stderr).not.toMatch(/hunter|user:/);
  });

  it('serverName keeps scheme, host and path', () => {
    expect(serverName('https://k:s@api.example.com:8443/v1/?key=x#f')).toBe(
      'https://api.example.com:8443/v1/',
    );
    expect(serverName('http://127.0.0.1:8000')).toBe('http://127.0.0.1:8000');
  });
});

describe('a missing reference answer says what to add', { timeout: 120_000 }, () => {
  it('names the file and a sample line; that line, added and imported, lets the run plan', async () => {
    const dir = tmpDir();
    const db = join(dir, 'a.db');
    // our questions with question 1007 (reasoning) stripped of its reference
    const lines = readFileSync(join(REPO_ROOT, 'questions/arena.jsonl'), 'utf8').split('\n').filter(Boolean);
    const qs = lines.map((l) => JSON.parse(l) as { question_id: number; reference?: string[] });
    for (const q of qs) if (q.question_id === 1007) delete q.reference;
    const questions = join(dir, 'questions.jsonl');
    writeFileSync(questions, qs.map((q) => JSON.stringify(q)).join('\n') + '\n');
    const run = [
      'run',
      '--db',
      db,
      '--judge',
      'mock/longer',
      '--models',
      'arena-sage,arena-echo',
      '--questions',
      questions,
      '--answers',
      'questions/answers',
      '--prompts',
      'arena',
      '--dry-run',
    ];
    const r = await runArena(run);
    expect(r.code).toBe(1);
    const sample =
      /e\.g\. (\{.*?\}\]\}), and import it with `arena import references (reference_answer\/gpt-4\.jsonl)`/.exec(
        r.stderr,
      );
    expect(sample, r.stderr).not.toBeNull();
    expect(r.stderr).toContain(
      'no reference answer for 1 reasoning question(s): 1007. Add a line per question to',
    );
    expect(r.stderr).toContain('or give the question\'s line in the questions file a "reference"');
    // the sample line as given is a valid references line
    mkdirSync(join(dir, 'reference_answer'));
    writeFileSync(join(dir, sample![2]!), `${sample![1]}\n`);
    await arenaOk(['import', 'questions', questions, '--db', db]);
    await arenaOk(['import', 'references', sample![2]!, '--db', db], { cwd: dir });
    const again = await runArena(run);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/games planned/);
  });
});

describe('"did you mean" for unknown commands and options', () => {
  it.each([
    [['standing'], 'unknown command "standing" for `arena` (did you mean `arena standings`?)'],
    [
      ['import', 'answer', 'x.jsonl'],
      'unknown command "answer" for `arena import` (did you mean `arena import answers`?)',
    ],
    [['run', '--judeg', 'mock/a'], 'unknown option --judeg for `arena run` (did you mean --judge?)'],
    [['standings', '--judeg', 'x'], 'unknown option --judeg for `arena standings` (did you mean --judge?)'],
    [
      ['run', '--concurency', '4'],
      'unknown option --concurency for `arena run` (did you mean --concurrency?)',
    ],
  ])('arena %j', async (args, line) => {
    const r = await runArena(args);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe(`arena: ${line}`);
  });

  it('a swapped pair of letters is one edit', () => {
    expect(nearMisses('judeg', ['judge', 'db', 'json'])).toEqual(['judge']);
    expect(nearMisses('gpt4', ['gpt-4', 'human'])).toEqual(['gpt-4']);
    expect(nearMisses('frobnicate', ['standings', 'ratings'])).toEqual([]);
  });
});

describe.skipIf(!MTBENCH_DIR)('`author` explained where it is listed', { timeout: 120_000 }, () => {
  it('`arena judges` on the MT-Bench release says what author and human are', async () => {
    const db = await mtbenchReleaseDb(join(tmpDir(), 'mt.db'));
    const out = await arenaOk(['judges', '--db', db]);
    expect(out).toMatch(/^author\s+0\s+687$/m);
    expect(out).toContain(
      "\nauthor: the MT-Bench paper authors' own votes (voters author_*) on part of the questions: never ranked or assessed as a judge",
    );
    expect(out).toContain("\nhuman: MT-Bench's expert votes (voters expert_*)");
    expect(out).not.toMatch(/^gpt-4:/m);
  });
});

describe('a rerun with nothing to play', { timeout: 120_000 }, () => {
  it('prints no run id; every run id printed is one `arena runs` lists', async () => {
    const db = join(tmpDir(), 'a.db');
    const first = await playOwn(db, 'mock/longer', 'arena-sage,arena-echo', ['--turn', '1']);
    const again = await playOwn(db, 'mock/longer', 'arena-sage,arena-echo', ['--turn', '1']);
    expect(again).toMatch(/^nothing to play, no run recorded: 0 played, 0 failed, 48 already stored/m);
    const printed = [...`${first}${again}`.matchAll(/\brun ([0-9a-f-]{36})/g)].map((m) => m[1]);
    expect(printed).toHaveLength(1);
    const listed = (await arenaJson<{ id: string }[]>(['runs', '--db', db])).map((r) => r.id);
    expect(listed).toEqual(printed);
  });
});

describe('the mock judge documented from its one list', () => {
  it('docs/judges.md has a row per behaviour, in the list order, with its reply; an unknown one names them', async () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs/judges.md'), 'utf8');
    const section = doc.slice(
      doc.indexOf('## The mock judge'),
      doc.indexOf('\n## ', doc.indexOf('## The mock judge') + 1),
    );
    const rows = [...section.matchAll(/^\| `mock\/([a-z]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual(Object.entries(MOCK_BEHAVIOURS));
    const r = await runArena([
      'run',
      '--db',
      join(tmpDir(), 'a.db'),
      '--judge',
      'mock/lnoger',
      '--models',
      'x,y',
    ]);
    expect(r.stderr).toContain(`did you mean "longer"?); valid: ${Object.keys(MOCK_BEHAVIOURS).join(', ')}`);
  });
});

describe('no -wal/-shm left beside the database', { timeout: 180_000 }, () => {
  const sidecars = (db: string) => ['-wal', '-shm'].filter((s) => existsSync(`${db}${s}`));

  it('import and refresh checkpoint the WAL on close, beside a reader that stays (as `arena serve`); its close removes them', async () => {
    const dir = tmpDir();
    const db = join(dir, 'arena.db');
    await arenaOk(['import', 'questions', 'questions/arena.jsonl', '--db', db]);
    expect(sidecars(db)).toEqual([]);
    const reader = openSqliteStore(db, { readonly: true });
    try {
      expect((await reader.catalog.questions()).length).toBe(24);
      await arenaOk(['import', 'answers', 'questions/answers/arena-sage.jsonl', '--db', db]);
      expect(statSync(`${db}-wal`).size).toBe(0);
      const config = join(dir, 'refresh.json');
      writeFileSync(
        config,
        JSON.stringify({
          db,
          questions: [join(REPO_ROOT, 'questions/arena.jsonl')],
          prompts: [join(REPO_ROOT, 'questions/judge_prompts.jsonl')],
          answers: [join(REPO_ROOT, 'questions/answers')],
          promptSet: 'arena',
          turns: [1],
          judges: [{ id: 'mock/longer' }],
          modes: [{ mode: 'pairwise-all', models: ['arena-echo', 'arena-sage'] }],
        }),
      );
      await arenaOk(['refresh', '--config', config]);
      expect(statSync(`${db}-wal`).size).toBe(0);
    } finally {
      await reader.close();
    }
    expect(sidecars(db)).toEqual([]);
    // a read command opens read-only: it leaves nothing either
    await arenaOk(['runs', '--db', db]);
    expect(sidecars(db)).toEqual([]);
  });
});

describe('a checkpoints config names its answers files models itself', { timeout: 120_000 }, () => {
  it('a file whose lines name another model is stored under the checkpoint model the config gives', async () => {
    const dir = tmpDir();
    const lines = readFileSync(join(REPO_ROOT, 'questions/answers/arena-sage.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.stringify({ ...(JSON.parse(l) as object), model_id: 'what-the-trainer-wrote' }));
    writeFileSync(join(dir, 'ckpt-1.jsonl'), lines.join('\n') + '\n');
    const config = join(dir, 'checkpoints.json');
    writeFileSync(
      config,
      JSON.stringify({
        db: 'ckpt.db',
        series: 'sft',
        questions: [join(REPO_ROOT, 'questions/arena.jsonl')],
        prompts: [join(REPO_ROOT, 'questions/judge_prompts.jsonl')],
        promptSet: 'arena',
        turns: [1],
        baseline: { model: 'arena-echo', answers: join(REPO_ROOT, 'questions/answers/arena-echo.jsonl') },
        // a checkpoint's answers file is named after its model (checkpoints.ts refuses another name)
        checkpoints: [{ name: 'step-1', step: 1, model: 'ckpt-1', answers: 'ckpt-1.jsonl' }],
        judges: [{ id: 'mock/longer' }],
      }),
    );
    const r = await runArena(['checkpoints', 'run', '--config', config]);
    expect(r.code, r.stderr).toBe(0);
    const sqlite = new Database(join(dir, 'ckpt.db'), { readonly: true });
    try {
      expect(sqlite.prepare('select distinct model from answers order by model').pluck().all()).toEqual([
        'arena-echo',
        'ckpt-1',
      ]);
    } finally {
      sqlite.close();
    }
  });
});
