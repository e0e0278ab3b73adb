// The "Judge Llama 2" study's lenient ladder, on replies written to hit each rung and its edges.
import { describe, expect, it } from 'vitest';
import { parseGameVerdict, parsePairVerdict } from '../../../src/core/verdict/parse.ts';

describe('lenient parser (the study ladder)', () => {
  it.each([
    ['Both are fine, but [[B]] is better than [[A]].', 'B'], // rung 1, earliest mark wins (FastChat: A)
    ['My verdict: [[A]]', 'A'],
    ['It is a tie: [[C]]', 'tie'],
    ['It is a tie: [[Tie]]', 'tie'],
    ['Therefore [[Assistant B]] is better.', 'B'], // rung 2
    ['[[Assistant A]] wins, though [B] was close', 'A'], // rung 2 beats rung 4 even when later in the text
    ['I choose [Assistant B] over [Assistant A].', 'B'], // rung 3, earliest
    ['Final: [A]', 'A'], // rung 4
    ['Final: [C]', 'tie'],
    ['  B \n', 'B'], // rung 5: the whole reply is a letter
    ['A', 'A'],
    ['Assistant A is better.', 'error'], // no mark: an error, never a guess
    ['[[D]] or [D]', 'error'],
    ['', 'error'],
  ] as const)('%j -> %s', (reply, want) => {
    expect(parsePairVerdict(reply, 'lenient')).toBe(want);
  });

  it('maps back to models by order, like every parser', () => {
    expect(parseGameVerdict('[[Assistant A]]', 'AB', 'lenient')).toBe('model_1');
    expect(parseGameVerdict('[[Assistant A]]', 'BA', 'lenient')).toBe('model_2');
  });
});
