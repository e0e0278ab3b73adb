// Numbers out of range and unknown short flags on the command line are usage errors naming the option
// (exit 1, nothing run), never dropped in favour of a default. Each case ran (or was ignored) before.
import { describe, expect, it } from 'vitest';
import { runArena } from '../support/cli.ts';

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
});
