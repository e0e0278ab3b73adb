import { describe, expect, it } from 'vitest';
import type { Verdict } from '../../../src/core/types.ts';
import { combineGames, outcomesFromGames, type StoredVerdict } from '../../../src/core/outcomes.ts';
import {
  parseGameVerdict,
  parsePairVerdict,
  parseRating,
  parserFromVersion,
  PARSER_VERSIONS,
  toVerdict,
} from '../../../src/core/verdict/parse.ts';

// A reply that quotes the output format before giving its verdict: FastChat's fixed precedence
// ("[[A]]" before "[[B]]", protocol §3.3 step 5) misreads it as A.
const QUOTES_FORMAT =
  'I must answer "[[A]]" if assistant A is better, "[[B]]" if B is better, "[[C]]" for a tie.\nAssistant B is more accurate.\n\nFinal verdict: [[B]]';

describe('parsePairVerdict', () => {
  it('fastchat: substring precedence A, then B, then C, wherever they appear', () => {
    expect(parsePairVerdict(QUOTES_FORMAT, 'fastchat')).toBe('A');
    expect(parsePairVerdict('[[C]] ... actually [[B]]', 'fastchat')).toBe('B');
    expect(parsePairVerdict('tie: [[C]]', 'fastchat')).toBe('tie');
    expect(parsePairVerdict('[[B]] then [[A]]', 'fastchat')).toBe('A');
  });

  it('last: the verdict given last wins', () => {
    expect(parsePairVerdict(QUOTES_FORMAT, 'last')).toBe('B');
    expect(parsePairVerdict(QUOTES_FORMAT)).toBe('B'); // the default parser
    expect(parsePairVerdict('[[B]] then [[A]]', 'last')).toBe('A');
    expect(parsePairVerdict('[[A]] ... on reflection, a tie [[C]]', 'last')).toBe('tie');
  });

  it('no single-bracket fallback in either mode: "[A]", "[ [A] ]", "[[a]]" are errors', () => {
    for (const reply of [
      'Final verdict: [A]',
      'Verdict: [B].',
      '[ [A] ]',
      '[[a]]',
      '[[D]]',
      'A is better',
      '$ERROR$',
      '',
    ]) {
      expect(parsePairVerdict(reply, 'fastchat'), reply).toBe('error');
      expect(parsePairVerdict(reply, 'last'), reply).toBe('error');
    }
  });

  it('finds tokens inside other text (substring, not word match)', () => {
    expect(parsePairVerdict('verdict:[[B]].', 'last')).toBe('B');
    expect(parsePairVerdict('verdict:[[B]].', 'fastchat')).toBe('B');
  });
});

describe('toVerdict / parseGameVerdict map positions back to the match models', () => {
  it('AB shows model_1 as A; BA shows model_2 as A', () => {
    expect(toVerdict('A', 'AB')).toBe('model_1');
    expect(toVerdict('B', 'AB')).toBe('model_2');
    expect(toVerdict('A', 'BA')).toBe('model_2');
    expect(toVerdict('B', 'BA')).toBe('model_1');
    for (const o of ['AB', 'BA'] as const) {
      expect(toVerdict('tie', o)).toBe('tie');
      expect(toVerdict('error', o)).toBe('error');
    }
    expect(parseGameVerdict(QUOTES_FORMAT, 'BA', 'fastchat')).toBe('model_2');
    expect(parseGameVerdict(QUOTES_FORMAT, 'BA', 'last')).toBe('model_1');
  });
});

describe('parseRating', () => {
  const TWO = 'First draft: Rating: [[3]]. Revised after checking: Rating: [[8]]';
  it('fastchat takes the first [[n]]; last takes the last', () => {
    expect(parseRating(TWO, 'fastchat')).toBe(3);
    expect(parseRating(TWO, 'last')).toBe(8);
    expect(parseRating('Rating: [[7.5]]', 'last')).toBe(7.5);
    expect(parseRating('Rating: [[7.5]]', 'fastchat')).toBe(7.5);
  });

  it('the single-bracket backup (which picks up citations like [1]) is fastchat-only', () => {
    const CITATION = 'As shown in [1], the answer is mostly right. Rating: 6/10';
    expect(parseRating(CITATION, 'fastchat')).toBe(1);
    expect(parseRating(CITATION, 'last')).toBeNull();
    // a double-bracket rating beats an earlier citation in fastchat mode too
    expect(parseRating('See [2]. Rating: [[9]]', 'fastchat')).toBe(9);
  });

  it('last rejects ratings outside 0..10; nothing parsable is null', () => {
    expect(parseRating('Rating: [[11]]', 'last')).toBeNull();
    expect(parseRating('Rating: [[11]]', 'fastchat')).toBe(11); // FastChat takes any number
    expect(parseRating('no rating here', 'fastchat')).toBeNull();
    expect(parseRating('$ERROR$', 'last')).toBeNull();
  });
});

describe('parser versions', () => {
  it('round-trip through parserFromVersion; unknown versions are an error', () => {
    expect(parserFromVersion(PARSER_VERSIONS.last)).toBe('last');
    expect(parserFromVersion(PARSER_VERSIONS.fastchat)).toBe('fastchat');
    expect(() => parserFromVersion('regex@3')).toThrow(/unknown parser version "regex@3"/);
  });
});

describe('combineGames', () => {
  it('equal verdicts stand, disagreement is inconsistent, any error is an error', () => {
    const cases: [Verdict, Verdict, string][] = [
      ['model_1', 'model_1', 'model_1'],
      ['model_2', 'model_2', 'model_2'],
      ['tie', 'tie', 'tie'],
      ['model_1', 'model_2', 'inconsistent'],
      ['model_1', 'tie', 'inconsistent'],
      ['tie', 'model_2', 'inconsistent'],
      ['error', 'model_1', 'error'],
      ['model_1', 'error', 'error'],
      ['error', 'error', 'error'],
      ['tie', 'error', 'error'],
    ];
    for (const [g1, g2, out] of cases) expect(combineGames(g1, g2), `${g1} + ${g2}`).toBe(out);
  });
});

describe('outcomesFromGames', () => {
  const g = (over: Partial<StoredVerdict>): StoredVerdict => ({
    questionId: 81,
    turn: 1,
    model1: 'x',
    model2: 'y',
    order: 'AB',
    verdict: 'model_1',
    ...over,
  });

  it('pairs AB with BA per (question, turn, model_1, model_2)', () => {
    const out = outcomesFromGames([
      g({ order: 'AB', verdict: 'model_1' }),
      g({ order: 'BA', verdict: 'model_1' }),
      g({ turn: 2, order: 'BA', verdict: 'model_2' }),
      g({ turn: 2, order: 'AB', verdict: 'model_1' }),
      g({ questionId: 82, order: 'AB', verdict: 'error' }),
      g({ questionId: 82, order: 'BA', verdict: 'tie' }),
    ]);
    expect(out).toEqual([
      { questionId: 81, turn: 1, model1: 'x', model2: 'y', outcome: 'model_1' },
      { questionId: 81, turn: 2, model1: 'x', model2: 'y', outcome: 'inconsistent' },
      { questionId: 82, turn: 1, model1: 'x', model2: 'y', outcome: 'error' },
    ]);
  });

  it('leaves out an incomplete match (one game only): not an error, not a tie', () => {
    expect(
      outcomesFromGames([g({ order: 'AB' }), g({ questionId: 90, order: 'BA', verdict: 'error' })]),
    ).toEqual([]);
  });

  it('a later game replaces an earlier one in the same slot', () => {
    expect(
      outcomesFromGames([
        g({ order: 'AB', verdict: 'error' }),
        g({ order: 'BA', verdict: 'model_2' }),
        g({ order: 'AB', verdict: 'model_2' }),
      ]),
    ).toEqual([{ questionId: 81, turn: 1, model1: 'x', model2: 'y', outcome: 'model_2' }]);
  });

  it('(x, y) and (y, x) are different matches (model_1 is the one shown as A in AB)', () => {
    const out = outcomesFromGames([g({ order: 'AB' }), g({ model1: 'y', model2: 'x', order: 'BA' })]);
    expect(out).toEqual([]);
  });
});
