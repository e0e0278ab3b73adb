// Issue 12's smaller first-hour items: one spelling per option, help for every option, `arena runs` newest first,
// no run record for a no-op rerun, Ctrl-C's "interrupted" summary, `refresh --dry-run` never says "imported".
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer } from '../support/openai-server.ts';
import { arenaJson, arenaOk, playOwn, REPO_ROOT, runArena, spawnArena, tmpDir } from '../support/cli.ts';

type Cmd = { args?: unknown; subCommands?: unknown; meta?: unknown };
const resolveValue = async <T>(v: unknown): Promise<T> =>
  (typeof v === 'function' ? await (v as () => Promise<T>)() : await (v as Promise<T>)) as T;

/** Every command (and sub-command) in main.ts's table, with its path: loaded the way main.ts loads them. */
async function commands(): Promise<{ path: string[]; cmd: Cmd }[]> {
  const src = readFileSync(join(REPO_ROOT, 'src', 'cli', 'main.ts'), 'utf8');
  const table = [
    ...src.matchAll(
      /^\s+([\w-]+): \(\) => import\('(\.\/commands\/[\w-]+\.ts)'\)\.then\(\(m\) => m\.(\w+)\)/gm,
    ),
  ];
  expect(table.length).toBeGreaterThan(15);
  const out: { path: string[]; cmd: Cmd }[] = [];
  const walk = async (path: string[], cmd: Cmd) => {
    const subs = await resolveValue<Record<string, unknown> | undefined>(cmd.subCommands);
    if (!subs) return void out.push({ path, cmd });
    for (const [n, c] of Object.entries(subs)) await walk([...path, n], await resolveValue<Cmd>(c));
  };
  for (const [, name, file, exp] of table) {
    const mod = (await import(join(REPO_ROOT, 'src', 'cli', file!))) as Record<string, Cmd>;
    await walk([name!], mod[exp!]!);
  }
  return out;
}

describe('help', { timeout: 120_000 }, () => {
  it('every option of every command has a description, and --db states its default', async () => {
    const all = await commands();
    expect(all.length).toBeGreaterThan(25);
    const missing: string[] = [];
    for (const { path, cmd } of all) {
      const args = await resolveValue<Record<string, { type?: string; description?: string }>>(
        cmd.args ?? {},
      );
      for (const [name, def] of Object.entries(args ?? {})) {
        if (!def.description?.trim())
          missing.push(`arena ${path.join(' ')} ${def.type === 'positional' ? `<${name}>` : `--${name}`}`);
        if (name === 'db') expect(def.description).toContain('default ./arena.db');
      }
    }
    expect(missing).toEqual([]);
    // and what `--help` prints shows them (one page through the real command)
    const r = await runArena(['serve', '--help']);
    expect(r.stdout).toMatch(/--db=<FILE>\s+SQLite database file \(default \.\/arena\.db\)/);
    expect(r.stdout).toMatch(/--port="\d+"\s+port to listen on/);
  });
});

describe('on a database', { timeout: 300_000 }, () => {
  let db: string;
  beforeAll(async () => {
    db = join(tmpDir(), 'arena.db');
    await playOwn(db, 'mock/a', 'arena-sage,arena-echo', ['--turn', '1']);
  }, 120_000);

  it('--turn and --judge are the spellings everywhere; --turns and --judges still work', async () => {
    const a = await arenaOk([
      'run',
      '--db',
      db,
      '--judge',
      'mock/a',
      '--models',
      'arena-sage,arena-echo',
      '--turns',
      '1,2',
      '--dry-run',
    ]);
    const b = await arenaOk([
      'run',
      '--db',
      db,
      '--judge',
      'mock/a',
      '--models',
      'arena-sage,arena-echo',
      '--turn',
      '1,2',
      '--dry-run',
    ]);
    expect(a).toBe(b);
    expect(a).toMatch(/96 games planned, 48 already stored/);
    expect(await arenaOk(['agreement', '--db', db, '--judges', 'mock/a,mock/a'])).toBe(
      await arenaOk(['agreement', '--db', db, '--judge', 'mock/a,mock/a']),
    );
    expect((await runArena(['run', '--help'])).stdout).toMatch(/--turn="1,2"/);
    expect((await runArena(['kappa', '--help'])).stdout).toMatch(/--judge \(required\)/);
  });

  it('a rerun with nothing to play adds no run record; `arena runs` lists the newest first', async () => {
    const again = await arenaOk([
      'run',
      '--db',
      db,
      '--judge',
      'mock/a',
      '--models',
      'arena-sage,arena-echo',
      '--turn',
      '1',
    ]);
    expect(again).toMatch(/0 played/);
    expect(await arenaJson<unknown[]>(['runs', '--db', db])).toHaveLength(1);
    await arenaOk([
      'run',
      '--db',
      db,
      '--judge',
      'mock/b',
      '--models',
      'arena-sage,arena-echo',
      '--turn',
      '1',
    ]);
    const runs = await arenaJson<{ judge: string; startedAt: number }[]>(['runs', '--db', db]);
    expect(runs.map((r) => r.judge)).toEqual(['mock/b', 'mock/a']);
    const text = await arenaOk(['runs', '--db', db]);
    expect(text.indexOf('mock/b')).toBeLessThan(text.indexOf('mock/a'));
  });

  it('Ctrl-C: the summary says interrupted (exit 130) and no progress is printed after it', async () => {
    const srv = await startOpenAIServer({ latencyMs: 300 });
    try {
      const { child, done } = spawnArena(
        [
          'run',
          '--db',
          db,
          '--judge',
          'openai/judge',
          '--base-url',
          srv.url,
          '--models',
          'arena-sage,arena-swift',
          '--turn',
          '1',
          '--concurrency',
          '2',
        ],
        { env: { OPENAI_API_KEY: 'sk-test' } },
      );
      while (srv.completions() < 4) await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGINT');
      const { code, stdout: out, stderr: err } = await done;
      expect(code).toBe(130);
      expect(out).toMatch(/^run \S+ interrupted: \d+ played/m);
      const after = err.slice(err.indexOf('interrupted:'));
      expect(after).not.toMatch(/games .*\d+\/48/);
    } finally {
      await srv.close();
    }
  });
});

describe('refresh --dry-run', { timeout: 300_000 }, () => {
  it('says what it would import, never "imported"', async () => {
    const example = JSON.parse(readFileSync(join(REPO_ROOT, 'examples', 'refresh.json'), 'utf8')) as Record<
      string,
      string[]
    >;
    const abs = (p: string) => resolve(REPO_ROOT, 'examples', p);
    const file = join(tmpDir(), 'refresh.json');
    writeFileSync(
      file,
      JSON.stringify({
        ...example,
        db: join(tmpDir(), 'r.db'),
        questions: example.questions!.map(abs),
        prompts: example.prompts!.map(abs),
        answers: example.answers!.map(abs),
      }),
    );
    const r = await runArena(['refresh', '--config', file, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/would import \d+ answers/);
    expect(r.stdout + r.stderr).not.toMatch(/\bimported\b/);
  });
});
