// The `arena` command as a user meets it: help, mistakes, missing databases, unknown judges, --json, --dry-run.
// Every case runs the real command (its CLI entry, in-process: tests/support/cli.ts) against a real SQLite file.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer } from '../support/openai-server.ts';
import { arenaJson, arenaOk, OWN_QA, runArena, tmpDir } from '../support/cli.ts';
import { mtbenchReleaseDb } from '../support/mtbench-release.ts';
import { MTBENCH_DIR, noMtbench, skipWhy } from '../support/materials.ts';

const DIR = MTBENCH_DIR;
skipWhy('cli', noMtbench('the real MT-Bench release, to run the CLI tests that need a database'));

const COMMANDS = [
  'import',
  'run',
  'reparse',
  'standings',
  'agreement',
  'ratings',
  'judges',
  'runs',
  'export',
  'serve',
  'start',
];

/** stderr of a failed command: a one-line "arena: ..." message, then (for usage mistakes) a hint line. */
function errorLines(stderr: string): string[] {
  return stderr.trimEnd().split('\n');
}

describe('help', () => {
  it('`arena --help` lists every command with a description', async () => {
    const r = await runArena(['--help']);
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^\\s*${c}\\s+\\S`, 'm'));
    expect(r.stdout).toContain('arena <command> --help');
  });

  it('`arena` with no arguments prints the same usage', async () => {
    const r = await runArena([]);
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(r.stdout).toContain(c);
  });

  it('`arena run --help` lists its options, marks the required ones and shows defaults', async () => {
    const r = await runArena(['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/USAGE arena run /);
    for (const o of [
      '--db',
      '--judge',
      '--base-url',
      '--models',
      '--mode',
      '--baseline',
      '--questions',
      '--answers',
      '--turns',
      '--parser',
      '--concurrency',
      '--timeout',
      '--retries',
      '--dry-run',
    ])
      expect(r.stdout).toContain(o);
    expect(r.stdout).toMatch(/--judge \(required\)/);
    // --models is required unless --set names a labelled pair set (then the models are output_1,output_2)
    expect(r.stdout).toMatch(/--models\s.*with --set: output_1,output_2/);
    expect(r.stdout).toContain('--set');
    expect(r.stdout).toContain('--mode="pairwise-all"');
  });

  it('nested help names the whole command path', async () => {
    const r = await runArena(['import', 'mtbench', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/USAGE arena import mtbench /);
    for (const o of ['--dir', '--base-url', '--manifest', '--cache']) expect(r.stdout).toContain(o);
  });

  it('`arena --version` prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect((await runArena(['--version'])).stdout.trim()).toBe(pkg.version);
  });
});

describe('mistakes in the call', () => {
  it('an unknown command exits 1 with one line and a usage hint for `arena --help`', async () => {
    const r = await runArena(['frobnicate']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^arena: .*unknown command.*frobnicate/i);
    expect(lines[1]).toContain('arena --help');
  });

  it("an unknown sub-command points at its parent's help", async () => {
    const r = await runArena(['import', 'frob']);
    expect(r.code).toBe(1);
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/frob/);
    expect(lines[1]).toContain('arena import --help');
  });

  it("a missing required option exits 1, names the option and hints at the command's help", async () => {
    const dir = tmpDir();
    // (standings takes the only judge when --judge is left out; a run always needs one)
    const r = await runArena(['run', '--db', join(dir, 'x.db'), '--models', 'a,b']);
    expect(r.code).toBe(1);
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^arena: .*--judge/);
    expect(lines[1]).toContain('arena run --help');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an unknown option (a typo) exits 1 before doing anything, instead of being ignored', async () => {
    const dir = tmpDir();
    const db = join(dir, 'x.db');
    // `--dry-rn` ignored would mean a real, paid tournament
    const r = await runArena(['run', '--db', db, '--judge', 'mock/random', '--models', 'a,b', '--dry-rn']);
    expect(r.code).toBe(1);
    const lines = errorLines(r.stderr);
    expect(lines).toEqual([
      'arena: unknown option --dry-rn for `arena run` (did you mean --dry-run?)',
      'run `arena run --help` for usage',
    ]);
    expect(readdirSync(dir)).toEqual([]);
    // declared options are accepted in every spelling citty parses: --opt=value, camelCase, --no-<boolean>
    const ok = await runArena(['standings', `--db=${db}`, '--judge', 'gpt-4', '--no-json']);
    expect(ok.stderr).toMatch(/no such database/);
  });

  it('a failed import into a new database file leaves no file behind', async () => {
    const dir = tmpDir();
    const r = await runArena(['import', 'questions', join(dir, 'nope.jsonl'), '--db', join(dir, 'new.db')]);
    expect(r.code).toBe(1);
    expect(errorLines(r.stderr)).toEqual([
      `arena: ${join(dir, 'nope.jsonl')}: cannot read the file (ENOENT)`,
    ]);
    expect(readdirSync(dir)).toEqual([]);
    // a directory named where a file goes: one line, no stack trace, no database
    mkdirSync(join(dir, 'answers'));
    const d = await runArena(['import', 'answers', join(dir, 'answers'), '--db', join(dir, 'new.db')]);
    expect(d.code).toBe(1);
    expect(errorLines(d.stderr)).toEqual([
      `arena: ${join(dir, 'answers')}: a directory, not a file (name the .jsonl file inside it)`,
    ]);
    expect(readdirSync(dir)).toEqual(['answers']);
  });

  it('a bad option value exits 1 and names the option and the allowed values', async () => {
    const dir = tmpDir();
    const r = await runArena([
      'standings',
      '--db',
      join(dir, 'x.db'),
      '--judge',
      'gpt-4',
      '--mode',
      'sideways',
    ]);
    expect(r.code).toBe(1);
    const lines = errorLines(r.stderr);
    expect(lines[0]).toMatch(/--mode must be one of pairwise-all, pairwise-baseline, single; got "sideways"/);
    expect(lines[1]).toContain('arena standings --help');
  });

  it('`--style` without a feature names the values it takes, and each of them is taken', async () => {
    const style = (v: string) => runArena(['ratings', '--db', ':memory:', '--judge', 'human', '--style', v]);
    const r = await style(',');
    expect(r.code).toBe(1);
    const offered = errorLines(r.stderr)[0]!.match(/--style expects (.*?)(?: \(|$)/)?.[1];
    expect(offered, r.stderr).toBeDefined();
    const values = offered!.split(/, | or /);
    expect(values.length).toBeGreaterThan(1);
    // each value offered passes --style (the run then stops at the judge this empty database lacks)
    for (const v of values) expect((await style(v)).stderr, v).not.toMatch(/--style/);
  });

  it('`arena standings --db missing.db` says the database does not exist and creates no file', async () => {
    const dir = tmpDir();
    const db = join(dir, 'missing.db');
    const r = await runArena(['standings', '--db', db, '--judge', 'gpt-4']);
    expect(r.code).toBe(1);
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/missing\.db.*no such database/);
    expect(lines[0]).toContain('arena import');
    expect(existsSync(db)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe.skipIf(!DIR)('with the MT-Bench release imported', { timeout: 240_000 }, () => {
  let db: string;
  beforeAll(async () => {
    db = join(tmpDir(), 'arena.db');
    await mtbenchReleaseDb(db, DIR);
  }, 240_000);

  it('`--judge nobody` is a usage error that names the judges there and `arena judges`', async () => {
    for (const extra of [[], ['--json'], ['--mode', 'single']]) {
      const r = await runArena(['standings', '--db', db, '--judge', 'nobody', ...extra]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      const lines = errorLines(r.stderr);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/unknown judge "nobody"/);
      expect(lines[0]).toContain('arena judges');
      expect(lines[0]).toContain('gpt-4');
      expect(lines[0]).toContain('human');
    }
  });

  it('a known judge without results in a mode says so, exit 0 (and --json prints [])', async () => {
    const text = await arenaOk(['standings', '--db', db, '--judge', 'gpt-4', '--mode', 'single']);
    expect(text).toMatch(/no single results for judge "gpt-4"/);
    expect(await arenaJson(['standings', '--db', db, '--judge', 'gpt-4', '--mode', 'single'])).toEqual([]);
  });

  it('`standings --json` is one JSON array of rows {model, win, loss, tie, error, winRate, lossRate, winRateAdjusted}', async () => {
    const rows = await arenaJson<Record<string, unknown>[]>(['standings', '--db', db, '--judge', 'gpt-4']);
    expect(Array.isArray(rows)).toBe(true);
    expect(rows.map((r) => r.model).sort()).toEqual([
      'alpaca-13b',
      'claude-v1',
      'gpt-3.5-turbo',
      'gpt-4',
      'llama-13b',
      'vicuna-13b-v1.2',
    ]);
    for (const r of rows) {
      expect(typeof r.model).toBe('string');
      for (const k of ['win', 'loss', 'tie', 'error']) expect(Number.isInteger(r[k]), k).toBe(true);
      for (const k of ['winRate', 'lossRate', 'winRateAdjusted']) expect(typeof r[k], k).toBe('number');
      const n = (r.win as number) + (r.loss as number) + (r.tie as number);
      expect(r.winRate).toBeCloseTo((r.win as number) / n, 12);
      expect(r.lossRate).toBeCloseTo((r.loss as number) / n, 12);
      expect(r.winRateAdjusted).toBeCloseTo(((r.win as number) + 0.5 * (r.tie as number)) / n, 12);
    }
    // FastChat's published pairwise-all row for gpt-4 (mt-bench-protocol.md §9.2, its June-2023 README)
    expect(rows.find((r) => r.model === 'gpt-4')).toMatchObject({ win: 617, loss: 45, tie: 138, error: 0 });
    // sorted by adjusted win rate, as show_result
    const adj = rows.map((r) => r.winRateAdjusted as number);
    expect(adj).toEqual([...adj].sort((a, b) => b - a));
  });

  it('the table and --json agree', async () => {
    const rows = await arenaJson<{ model: string; win: number; loss: number; tie: number }[]>([
      'standings',
      '--db',
      db,
      '--judge',
      'gpt-4',
    ]);
    const text = await arenaOk(['standings', '--db', db, '--judge', 'gpt-4']);
    for (const r of rows)
      expect(text).toMatch(
        new RegExp(`^${r.model.replace(/[.]/g, '\\.')}\\s+${r.win}\\s+${r.loss}\\s+${r.tie}\\s`, 'm'),
      );
  });

  it('`arena run --dry-run` prints how many judge calls it would make and makes none', async () => {
    const server = await startOpenAIServer({ verdict: 'hash' });
    try {
      // what FastChat's pairwise-all plan holds for two models: every question, both turns, both orders
      const questions = readFileSync(join(DIR!, 'question.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.trim()).length;
      const expected = questions * 2 * 2;
      const r = await runArena(
        [
          'run',
          '--db',
          db,
          '--judge',
          'openai/judge',
          '--base-url',
          server.url,
          '--models',
          'gpt-4,claude-v1',
          '--dry-run',
        ],
        { env: { OPENAI_API_KEY: 'sk-test' } },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(
        new RegExp(`\\b${expected} games planned, 0 already stored: ${expected} judge calls to make`),
      );
      expect(server.log).toEqual([]);
      const judges = await arenaJson<{ judge: string }[]>(['judges', '--db', db]);
      expect(judges.map((j) => j.judge)).not.toContain('openai/judge');
      expect(await arenaJson(['runs', '--db', db])).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('`--dry-run` counts only the games not stored yet', async () => {
    await arenaOk([
      'run',
      '--db',
      db,
      '--judge',
      'mock/random',
      '--models',
      'gpt-4,claude-v1',
      '--turns',
      '1',
    ]);
    const questions = readFileSync(join(DIR!, 'question.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim()).length;
    const out = await arenaOk([
      'run',
      '--db',
      db,
      '--judge',
      'mock/random',
      '--models',
      'gpt-4,claude-v1',
      '--dry-run',
    ]);
    expect(out).toContain(
      `${questions * 4} games planned, ${questions * 2} already stored: ${questions * 2} judge calls to make`,
    );
    const runs = await arenaJson<unknown[]>(['runs', '--db', db]);
    expect(runs).toHaveLength(1);
  });

  it('`--dry-run` plans every --judge and leaves what --questions/--answers would import out of the database', async () => {
    const fresh = join(tmpDir(), 'dry.db');
    const out = await arenaOk([
      'run',
      '--db',
      fresh,
      '--judge',
      'mock/a',
      '--judge',
      'mock/b',
      '--models',
      'arena-sage,arena-echo',
      ...OWN_QA,
      '--dry-run',
    ]);
    const questions = readFileSync('questions/arena.jsonl', 'utf8')
      .split('\n')
      .filter((l) => l.trim()).length;
    // one pair, both turns, both orders
    expect(out).toContain(
      `${questions * 4} games planned, 0 already stored: ${questions * 4} judge calls to make with mock/a`,
    );
    expect(out).toContain(`judge calls to make with mock/b`);
    const sqlite = new Database(fresh, { readonly: true });
    try {
      expect(
        sqlite
          .prepare(
            'select (select count(*) from questions) q, (select count(*) from answers) a, (select count(*) from prompts) p, (select count(*) from runs) r',
          )
          .get(),
      ).toEqual({ q: 0, a: 0, p: 0, r: 0 });
    } finally {
      sqlite.close();
    }
  });
});
