// core/verdict/stored.ts: Game.verdict is a pairwise Verdict or a single-grading score as text; checked where it
// enters (gameVerdictOf), read back by pairVerdict and ratingOf.
import { describe, expect, it } from 'vitest';
import {
  gameVerdictOf,
  isScoreText,
  isVerdict,
  pairVerdict,
  ratingOf,
  scoreText,
} from '../../../src/core/verdict/stored.ts';
import { ArenaError, type GameVerdict } from '../../../src/core/types.ts';
import { parseRating } from '../../../src/core/verdict/parse.ts';
import { parserFor, verdictOf } from '../../../src/core/verdict/of-reply.ts';
import { recordedGamesOfLine } from '../../../src/importers/formats.ts';

const VERDICTS = ['model_1', 'model_2', 'tie', 'error'] as const;
const single = { match: { questionId: 1, category: 'writing', turn: 1, model1: 'm1' }, order: 'AB' as const };

describe('isVerdict and isScoreText', () => {
  it('tell the four verdicts from scores and from anything else', () => {
    for (const v of VERDICTS) expect([v, isVerdict(v), isScoreText(v)]).toEqual([v, true, false]);
    for (const s of ['7', '7.5', '10', '0', '-1', '0.25', '1e-7', '1e+21'])
      expect([s, isVerdict(s), isScoreText(s)]).toEqual([s, false, true]);
    for (const s of ['', 'A', 'B', 'C', 'Tie', ' 7', '7 ', '7.5.1', 'NaN', 'Infinity', '0x10', '[[7]]'])
      expect([s, isVerdict(s), isScoreText(s)]).toEqual([s, false, false]);
  });
});

describe('scoreText', () => {
  it('is the text String(n) writes, the stored form since the first release', () => {
    for (const n of [7, 7.5, 10, 0, -1, 0.1 + 0.2, 1e-7, 1e21, 8.25])
      expect([n, scoreText(n), isScoreText(scoreText(n))]).toEqual([n, String(n), true]);
    expect(scoreText(7.5)).toBe('7.5');
    expect(scoreText(10)).toBe('10');
  });

  it('refuses a number that is no score', () => {
    expect(() => scoreText(Number.NaN)).toThrow(/finite number, got NaN/);
    expect(() => scoreText(Number.POSITIVE_INFINITY)).toThrow(/finite number, got Infinity/);
  });
});

describe('gameVerdictOf (the check where a stored string enters)', () => {
  it('a pairwise game holds one of the four verdicts', () => {
    for (const v of VERDICTS) expect(gameVerdictOf(v, true, 'game g1')).toBe(v);
    for (const bad of ['7.5', '10', 'A', '', 'model_a']) {
      expect(() => gameVerdictOf(bad, true, 'game g1')).toThrow(ArenaError);
      expect(() => gameVerdictOf(bad, true, 'game g1')).toThrow(
        `game g1: verdict ${JSON.stringify(bad)} is not a pairwise verdict (model_1, model_2, tie or error)`,
      );
    }
  });

  it('a single-grading game holds a score or error', () => {
    for (const v of ['7.5', '10', '1', '0', 'error']) expect(gameVerdictOf(v, false, 'game s1')).toBe(v);
    for (const bad of ['model_1', 'model_2', 'tie', 'seven', '', 'infinity', 'nan'])
      expect(() => gameVerdictOf(bad, false, 'game s1')).toThrow(
        `game s1: verdict ${JSON.stringify(bad)} is not a score (a number) or error`,
      );
  });

  it("a single-grading game stored by an earlier version as String() of a non-finite rating reads as error, as today's parser stores it", () => {
    // before the typed verdict, a rating of 309+ digits was stored as String(Infinity)
    expect(String(Number('9'.repeat(400)))).toBe('Infinity');
    for (const v of ['Infinity', '-Infinity', 'NaN'])
      expect(gameVerdictOf(v, false, 'game s1')).toBe('error');
    expect(() => gameVerdictOf('Infinity', true, 'game g1')).toThrow(ArenaError);
  });
});

describe('pairVerdict and ratingOf (the readers)', () => {
  it('pairVerdict gives a pairwise game its Verdict and throws on a score', () => {
    for (const v of VERDICTS) expect(pairVerdict(v)).toBe(v);
    expect(() => pairVerdict('7.5')).toThrow('a single-grading score ("7.5") read as a pairwise verdict');
  });

  it('ratingOf gives a single-grading game its score, null for error, and throws on a pairwise verdict', () => {
    expect(ratingOf('7.5')).toBe(7.5);
    expect(ratingOf('10')).toBe(10);
    expect(ratingOf('1')).toBe(1);
    expect(ratingOf('error')).toBeNull();
    for (const v of ['model_1', 'model_2', 'tie'] as const)
      expect(() => ratingOf(v)).toThrow(`a pairwise verdict ("${v}") read as a single-grading score`);
  });
});

describe('what the parsers and importers store passes the edge check and reads back', () => {
  it('verdictOf on single grading: the rating parseRating reads, as text ratingOf reads back', () => {
    for (const mode of ['last', 'fastchat', 'lenient'] as const)
      for (const reply of [
        'Rating: [[7.5]]',
        '[[10]]',
        '[[1]]',
        'none given',
        'Rating: [[07.50]]',
        '[8]',
        '[[3.]]',
      ]) {
        const v: GameVerdict = verdictOf(single, reply, parserFor(undefined, mode)).verdict;
        expect(gameVerdictOf(v, false, reply)).toBe(v);
        expect([mode, reply, ratingOf(v)]).toEqual([mode, reply, parseRating(reply, mode)]);
      }
    expect(verdictOf(single, 'Rating: [[07.50]]', parserFor(undefined, 'last')).verdict).toBe('7.5');
  });

  it('a rating past the range of a double is no score: error, never the text Infinity', () => {
    const huge = `Rating: [[${'9'.repeat(400)}]]`;
    expect(parseRating(huge, 'fastchat')).toBe(Number.POSITIVE_INFINITY);
    expect(verdictOf(single, huge, parserFor(undefined, 'fastchat')).verdict).toBe('error');
  });

  it("FastChat single judgments: the score as text, -1 as error; pair lines' winners as recorded", () => {
    const line = (score: number) => ({
      question_id: 81,
      model: 'alpha',
      judge: ['gpt-4', 'single-v1'],
      user_prompt: 'p',
      judgment: `Rating: [[${score}]]`,
      score,
      turn: 1,
      tstamp: 1,
    });
    expect(recordedGamesOfLine('s.jsonl', 1, line(7.5))[0]!.verdict).toBe('7.5');
    expect(recordedGamesOfLine('s.jsonl', 2, line(10))[0]!.verdict).toBe('10');
    expect(recordedGamesOfLine('s.jsonl', 3, line(-1))[0]!.verdict).toBe('error');
    const pair = recordedGamesOfLine('p.jsonl', 1, {
      question_id: 81,
      model_1: 'alpha',
      model_2: 'beta',
      g1_winner: 'model_1',
      g2_winner: 'tie',
      judge: ['gpt-4', 'pair-v2'],
      g1_user_prompt: 'p1',
      g1_judgment: '[[A]]',
      g2_user_prompt: 'p2',
      g2_judgment: '[[C]]',
      turn: 1,
    });
    expect(pair.map((g) => g.verdict)).toEqual(['model_1', 'tie']);
    for (const g of pair) expect(pairVerdict(g.verdict)).toBe(g.verdict);
  });
});
