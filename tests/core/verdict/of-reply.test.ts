// core/verdict/of-reply.ts: the one reading of a reply into a stored verdict (play loop, batch import, reparse).
import { describe, expect, it } from 'vitest';
import { OUTPUT_FORMATS } from '../../../src/core/schemes/index.ts';
import { parserFor, verdictOf } from '../../../src/core/verdict/of-reply.ts';

const pair = (order: 'AB' | 'BA') => ({
  match: { questionId: 1, category: 'writing', turn: 1, model1: 'm1', model2: 'm2' },
  order,
});
const single = { match: { questionId: 1, category: 'writing', turn: 1, model1: 'm1' }, order: 'AB' as const };

describe('verdictOf', () => {
  it('maps the positional verdict back to the models through the order', () => {
    expect(verdictOf(pair('AB'), 'x [[A]]', parserFor(undefined, 'last'))).toEqual({
      verdict: 'model_1',
      parser: 'last@1',
    });
    expect(verdictOf(pair('BA'), 'x [[A]]', parserFor(undefined, 'last'))).toEqual({
      verdict: 'model_2',
      parser: 'last@1',
    });
    expect(verdictOf(pair('BA'), 'x [[C]]', parserFor(undefined, 'last'))).toEqual({
      verdict: 'tie',
      parser: 'last@1',
    });
  });

  it('reads a quoting reply by the mode: the last verdict, or FastChat precedence', () => {
    const quoting = 'Output "[[A]]" if A is better, "[[B]]" if B is better. Verdict: [[B]]';
    expect(verdictOf(pair('AB'), quoting, parserFor(undefined, 'last')).verdict).toBe('model_2');
    expect(verdictOf(pair('AB'), quoting, parserFor(undefined, 'fastchat'))).toEqual({
      verdict: 'model_1',
      parser: 'fastchat@1',
    });
  });

  it('a scheme with its own output format is read by that format, whatever the mode', () => {
    const judgelm = parserFor({ outputFormat: 'judgelm' }, 'fastchat');
    expect(judgelm.format).toBe(OUTPUT_FORMATS.judgelm);
    expect(verdictOf(pair('AB'), '8 7\nA is better', judgelm)).toEqual({
      verdict: 'model_1',
      parser: 'judgelm@1',
    });
    expect(verdictOf(pair('BA'), '8 7\nA is better', judgelm)).toEqual({
      verdict: 'model_2',
      parser: 'judgelm@1',
    });
    expect(verdictOf(pair('AB'), '[[A]]', judgelm).verdict).toBe('error');
    // an unknown format name is the plain [[A]] parser
    expect(parserFor({ outputFormat: '[[A]]' }, 'last').format).toBeUndefined();
  });

  it('single grading stores the rating as text, `error` when none parses', () => {
    expect(verdictOf(single, 'Rating: [[7]]', parserFor(undefined, 'last'))).toEqual({
      verdict: '7',
      parser: 'last@1',
    });
    expect(verdictOf(single, 'Rating: [[7.5]] then [[11]]', parserFor(undefined, 'last')).verdict).toBe(
      'error',
    );
    expect(verdictOf(single, 'Rating: [[7.5]] then [[11]]', parserFor(undefined, 'fastchat')).verdict).toBe(
      '7.5',
    );
    expect(verdictOf(single, 'no rating', parserFor(undefined, 'last'))).toEqual({
      verdict: 'error',
      parser: 'last@1',
    });
  });
});
