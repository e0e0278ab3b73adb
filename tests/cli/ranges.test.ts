// Numbers out of range and unknown short flags on the command line are usage errors naming the option
// (exit 1, nothing run), never dropped in favour of a default. Each case ran (or was ignored) before.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { NumericOptions } from '../../src/cli/validate.ts';
import { arenaOk, runArena, tmpDir } from '../support/cli.ts';

type Def = { type?: string; default?: string; valueHint?: string };
type Cmd = { args?: unknown; subCommands?: unknown };
const resolve = async <T>(x: unknown): Promise<T> =>
  (typeof x === 'function' ? await (x as () => unknown)() : await x) as T;

/** Every leaf command's path and option definitions, from the command tree main.ts runs. */
async function leaves(cmd: Cmd, path: string[] = []): Promise<[string[], Record<string, Def>][]> {
  const subs = await resolve<Record<string, unknown> | undefined>(cmd.subCommands);
  if (!subs) return [[path, (await resolve<Record<string, Def> | undefined>(cmd.args)) ?? {}]];
  const out: [string[], Record<string, Def>][] = [];
  for (const [name, sub] of Object.entries(subs))
    out.push(...(await leaves(await resolve<Cmd>(sub), [...path, name])));
  return out;
}

/** An option that takes a number: its default is one (or a list of them), or its value hint names a quantity. */
const QUANTITY = /^(SECONDS|MS|TOKENS|REQUESTS|MATCHES|WIDTH|N)$/;
const isNumber = (t: string) => t.trim() !== '' && Number.isFinite(Number(t));
const numeric = (d: Def) =>
  d.type === 'string' &&
  ((d.default !== undefined && d.default.split(',').every(isNumber)) || QUANTITY.test(d.valueHint ?? ''));

const RUN = ['run', '--judge', 'mock', '--models', 'a,b', '--db', ':memory:'];

describe('the CLI refuses what it would have dropped', () => {
  it.each([
    [[...RUN, '-n'], /unknown option -n/],
    [[...RUN, '--turn', '-2'], /--turn -2: /],
    [[...RUN, '--retries', '-3'], /--retries -3: /],
    [[...RUN, '--concurrency', '0'], /--concurrency 0: /],
    [[...RUN, '--concurrency', '-1'], /--concurrency -1: /],
    [[...RUN, '--concurrency', '1e9'], /--concurrency 1e9: /],
    [[...RUN, '--max-tokens', '0'], /--max-tokens 0: /],
    [['intervals', '--rounds', '1e9', '--db', ':memory:'], /--rounds 1e9: /],
    [['ratings', '--judge', 'human', '--prior', '-1', '--db', ':memory:'], /--prior -1: /],
  ])('%j', async (args, msg) => {
    const r = await runArena(args as string[]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toMatch(msg as RegExp);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("a negative value is the option's value (`--turn=-2` too), and an in-range one still works", async () => {
    expect((await runArena([...RUN, '--turn=-2'])).stderr).toMatch(/--turn -2: /);
    const ok = await runArena([
      'run',
      '--judge',
      'mock',
      '--models',
      'a,b',
      '--db',
      ':memory:',
      '--concurrency',
      '4',
      '--dry-run',
    ]);
    expect(ok.stderr).not.toMatch(/--concurrency/);
  });

  it('every numeric option of every command has its range in the one schema, and a value outside it is refused', async () => {
    const shape = NumericOptions.shape as Record<string, { safeParse(v: unknown): { success: boolean } }>;
    const seen: string[] = [];
    for (const [path, defs] of await leaves(main as Cmd))
      for (const [name, def] of Object.entries(defs)) {
        if (!numeric(def)) continue;
        seen.push(`${path.join(' ')} --${name}`);
        expect(shape[name], `arena ${path.join(' ')} --${name} has no range in NumericOptions`).toBeDefined();
        for (const bad of ['abc', '-1e15', '1e15'].filter(
          (v) => !shape[name]!.safeParse(Number(v)).success,
        )) {
          // a command that reads its database from a config (checkpoints run) takes no --db
          const r = await runArena([
            ...path,
            `--${name}`,
            bad,
            ...('db' in defs ? ['--db', ':memory:'] : []),
          ]);
          expect(r.code, `${path.join(' ')} --${name} ${bad}`).toBe(1);
          expect(r.stderr, `${path.join(' ')} --${name} ${bad}`).toMatch(
            new RegExp(`^arena: --${name} ${bad}: `),
          );
        }
      }
    // the walk found the options (a change to how options are declared must not make this test empty)
    for (const o of [
      'run --concurrency',
      'run --tpm',
      'run --round',
      'intervals --level',
      'review list --beta',
    ])
      expect(seen).toContain(o);
  });

  it('`calibrate --turn 3` on two-turn questions is refused with the valid turns (it played 0 games, exit 0)', async () => {
    const db = join(tmpDir(), 'arena.db');
    await arenaOk(['import', 'questions', 'questions/arena.jsonl', '--db', db]);
    await arenaOk([
      'import',
      'answers',
      'questions/answers/arena-drift.jsonl',
      'questions/answers/arena-echo.jsonl',
      '--db',
      db,
    ]);
    const cal = ['calibrate', '--db', db, '--judge', 'mock/random'];
    const r = await runArena([...cal, '--models', 'arena-drift,arena-echo', '--turn', '3']);
    expect([r.code, r.stderr.split('\n')[0]]).toEqual([1, 'arena: --turn: unknown turn "3"; valid: 1, 2']);
    const m = await runArena([...cal, '--models', 'arena-drift,arena-ech', '--turn', '1']);
    expect(m.code).toBe(1);
    expect(m.stderr).toMatch(/--models: unknown model .*"arena-ech".*did you mean "arena-echo"/);
    expect(await arenaOk(['runs', '--db', db])).not.toMatch(/calibrat|mock\/random/);
  });
});
