// What a new user tripped on in the first week: a one-judge database needs no --judge, a judge named without its
// provider is understood, internal tags stay out of error lines, prices are asked for only where a budget needs
// them, figures are spelled one way, examples run from anywhere. Real bin/arena.mjs on real SQLite files.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { userMessage } from '../src/cli/errors.ts';
import { chooseJudge } from '../src/cli/judge-choice.ts';
import { nearMisses } from '../src/core/suggest.ts';
import { OWN, playOwn, runArena, tmpDir } from './support/cli.ts';

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
