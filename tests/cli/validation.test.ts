// Mistyped filters (issue 12, item 13): an unknown judge, model, category, turn, mode or mock behaviour is a usage
// error listing the valid values ("did you mean"), never an empty table or a silently dropped filter.
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nearMisses, unknownValueMessage } from '../../src/core/suggest.ts';
import { arenaOk, playOwn, runArena, tmpDir } from '../support/cli.ts';

describe('nearMisses', () => {
  it('finds case slips, one-letter slips and missing hyphens, and nothing for unrelated words', () => {
    expect(nearMisses('gpt4', ['gpt-4', 'human', 'claude-v1'])).toEqual(['gpt-4']);
    expect(nearMisses('Math', ['math', 'writing'])).toEqual(['math']);
    expect(nearMisses('humans', ['gpt-4', 'human'])).toEqual(['human']);
    expect(nearMisses('zzzzzz', ['gpt-4', 'human'])).toEqual([]);
    expect(unknownValueMessage('turn', '3', ['1', '2'])).toBe('unknown turn "3"; valid: 1, 2');
  });
});

describe('the CLI checks what it is asked for against the database', { timeout: 180_000 }, () => {
  let db: string;
  beforeAll(async () => {
    db = join(tmpDir(), 'arena.db');
    await playOwn(db, 'mock/longer', 'arena-sage,arena-echo,arena-swift', ['--turns', '1']);
  }, 180_000);

  const usageError = async (args: string[], ...says: RegExp[]) => {
    const r = await runArena(args);
    expect(r.code, `${args.join(' ')}\n${r.stdout}${r.stderr}`).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    for (const s of says) expect(lines[0]).toMatch(s);
    expect(lines[1]).toMatch(/--help` for usage/);
  };

  it('an unknown judge names the judges and the near miss (standings, ratings, intervals, bias, length)', async () => {
    for (const cmd of ['standings', 'ratings', 'intervals', 'bias', 'length'])
      await usageError(
        [cmd, '--db', db, '--judge', 'mock/longr'],
        /unknown judge "mock\/longr"/,
        /did you mean "mock\/longer"/,
        /valid: mock\/longer/,
      );
  });

  it('an unknown judge in a pair of judges (agreement, kappa) is an error, not "(no rows)"', async () => {
    for (const cmd of ['agreement', 'kappa'])
      await usageError(
        [cmd, '--db', db, '--judges', 'mock/longer,mock/longers'],
        /unknown judge "mock\/longers"/,
        /did you mean "mock\/longer"/,
      );
  });

  it('one judge where two are expected (agreement, kappa) is a usage error, before the database is opened', async () => {
    for (const cmd of ['agreement', 'kappa'])
      for (const file of [db, join(dirname(db), 'no-such.db')])
        await usageError(
          [cmd, '--db', file, '--judge', 'mock/longer'],
          /--judge expects two comma-separated judges, got "mock\/longer"/,
        );
  });

  it('a turn the questions do not have, an unknown category, model or baseline', async () => {
    await usageError(
      ['standings', '--db', db, '--judge', 'mock/longer', '--turn', '3'],
      /unknown turn "3"; valid: 1, 2/,
    );
    await usageError(
      ['standings', '--db', db, '--judge', 'mock/longer', '--category', 'Math'],
      /unknown category "Math" \(did you mean "math"\?\)/,
      /valid: .*coding/,
    );
    await usageError(
      ['standings', '--db', db, '--judge', 'mock/longer', '--models', 'arena-sage,arena-eco'],
      /unknown model "arena-eco" \(did you mean "arena-echo"\?\)/,
    );
    await usageError(
      [
        'standings',
        '--db',
        db,
        '--judge',
        'mock/longer',
        '--mode',
        'pairwise-baseline',
        '--baseline',
        'arena-sag',
      ],
      /--baseline: unknown model "arena-sag" \(did you mean "arena-sage"\?\)/,
    );
    await usageError(
      ['standings', '--db', db, '--judge', 'mock/longer', '--mode', 'pairwise-al'],
      /--mode must be one of .*got "pairwise-al" \(did you mean "pairwise-all"\?\)/,
    );
  });

  it('valid filters still give a table', async () => {
    const out = await arenaOk([
      'standings',
      '--db',
      db,
      '--judge',
      'mock/longer',
      '--turn',
      '1',
      '--category',
      'math',
      '--models',
      'arena-sage,arena-echo',
    ]);
    expect(out).toMatch(/^arena-sage\s+\d/m);
    expect(out).not.toMatch(/arena-swift/);
  });

  it('`arena run` refuses an unknown model (not dropped silently), a turn the questions lack and a mistyped mock judge', async () => {
    await usageError(
      ['run', '--db', db, '--judge', 'mock/longer', '--models', 'arena-sage,arena-swfit', '--dry-run'],
      /unknown model .*"arena-swfit" \(did you mean "arena-swift"\?\)/,
    );
    await usageError(
      [
        'run',
        '--db',
        db,
        '--judge',
        'mock/longer',
        '--models',
        'arena-sage,arena-swift',
        '--turns',
        '1,3',
        '--dry-run',
      ],
      /unknown turn "3"/,
    );
    const r = await runArena([
      'run',
      '--db',
      db,
      '--judge',
      'mock/radnom',
      '--models',
      'arena-sage,arena-swift',
      '--dry-run',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /unknown behaviour "radnom" \(did you mean "random"\?\); valid: random, a, b, tie, longer, unparsable, quoting/,
    );
  });
});
