// The first week's smaller cuts (issue 38, item 4), each as a user meets it: the real `arena` command in this
// process (runArena) on real SQLite files, and the functions behind the lines it prints.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { OWN, runArena, tmpDir } from '../support/cli.ts';

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
