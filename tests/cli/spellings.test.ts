// One spelling per option (issue 12, item 20): `--judge` and `--turn` everywhere, the old `--judges` and
// `--turns` still accepted. `arena health` was the one command left with `--judges` as its own spelling.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OWN, REPO_ROOT, runArena, tmpDir } from '../support/cli.ts';

describe('one spelling per option', { timeout: 120_000 }, () => {
  it('no command defines --judges or --turns as its own option', () => {
    const dir = join(REPO_ROOT, 'src', 'cli', 'commands');
    const defined = readdirSync(dir).flatMap((f) =>
      [...readFileSync(join(dir, f), 'utf8').matchAll(/^\s+(judges|turns): \{ type:/gm)].map(
        (m) => `${f}: --${m[1]}`,
      ),
    );
    expect(defined).toEqual([]);
  });

  it('arena health takes --judge, and --judges as the old spelling', async () => {
    const db = join(tmpDir(), 'arena.db');
    expect(
      (
        await runArena([
          'run',
          '--db',
          db,
          '--judge',
          'mock/a',
          '--models',
          'arena-sage,arena-echo',
          '--turn',
          '1',
          ...OWN,
        ])
      ).code,
    ).toBe(0);
    const now = await runArena(['health', '--db', db, '--judge', 'gpt-5', '--reference', 'mock/a']);
    const old = await runArena(['health', '--db', db, '--judges', 'gpt-5', '--reference', 'mock/a']);
    expect(now.code).toBe(1);
    expect(now.stderr).toMatch(/gpt-5/);
    expect(now.stderr).not.toMatch(/unknown option/);
    expect(old).toEqual(now);
    expect((await runArena(['health', '--help'])).stdout).toMatch(/--judge \(required\)/);
  });
});
