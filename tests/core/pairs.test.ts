// Pure pieces of labelled pair sets and the judge board: LLMBar's verdict format, located JSON items,
// accuracy and kappa on a hand-computed example, behaviour rates and interval-respecting ranks.
import { describe, expect, it } from 'vitest';
import { behaviourRates, ranksWithIntervals } from '../../src/core/stats/judge-behaviour.ts';
import { LLMBAR_VANILLA, parseLlmbarVerdict } from '../../src/core/llmbar.ts';
import { accuracyRow } from '../../src/core/stats/pair-accuracy.ts';
import { renderPrompt } from '../../src/core/prompts.ts';
import { parseJsonArray, parsePairDataset, pairQuestionId } from '../../src/importers/pairs.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('LLMBar verdict format', () => {
  it('reads "Output (a)" / "Output (b)" at the start of the reply or a line; anything else is an error, never a guess', () => {
    expect(parseLlmbarVerdict('Output (a)')).toBe('A');
    expect(parseLlmbarVerdict('  Output (b)\n')).toBe('B');
    expect(parseLlmbarVerdict('After careful thought:\n Output (b) is better.')).toBe('B');
    expect(parseLlmbarVerdict('I prefer Output (a)')).toBe('error'); // not at the start of a line (LLMBar's rule)
    expect(parseLlmbarVerdict('Output (a)\nOutput (b)')).toBe('error'); // both named: LLMBar would take (a)
    expect(parseLlmbarVerdict('output (a)')).toBe('error');
    expect(parseLlmbarVerdict('')).toBe('error');
    expect(parseLlmbarVerdict('[[A]]')).toBe('error');
  });

  it("the scheme renders LLMBar's prompt with the instruction and both outputs in the shown order", () => {
    const p = renderPrompt({
      scheme: LLMBAR_VANILLA,
      questionTurns: ['Name a fruit.'],
      turn: 1,
      answerA: ['Apple'],
      answerB: ['Carrot'],
    });
    expect(p.system).toMatch(/^You are a helpful assistant in evaluating the quality of the outputs/);
    expect(p.user).toContain(
      '# Instruction:\nName a fruit.\n\n# Output (a):\nApple\n\n# Output (b):\nCarrot\n\n# Which is better',
    );
  });
});

describe('dataset.json parsing', () => {
  it('finds the line each item starts on, whatever the strings hold', () => {
    const text =
      '[\n  {"input": "a [tricky] {one}, \\"quoted\\"", "output_1": "x\\n", "output_2": "y", "label": 1},\n\n  {\n    "input": "b", "output_1": "x", "output_2": "y", "label": "2"\n  }\n]';
    expect(parseJsonArray('d.json', bytes(text)).map((x) => x.line)).toEqual([2, 4]);
    expect(parsePairDataset('d.json', bytes(text)).map((x) => x.label)).toEqual([1, 2]);
  });

  it('a bad label, a missing field or a non-array is one located error', () => {
    expect(() =>
      parsePairDataset(
        'd.json',
        bytes(
          '[{"input":"a","output_1":"x","output_2":"y","label":1},\n{"input":"a","output_1":"x","output_2":"y","label":"3"}]',
        ),
      ),
    ).toThrow(
      'd.json:2: field "label": item 1: expected 1 or 2 (which output is better, as a number or a string), got "3"',
    );
    expect(() => parsePairDataset('d.json', bytes('[{"input":"a","output_2":"y","label":1}]'))).toThrow(
      'd.json:1: field "output_1": item 0: expected a string, got nothing',
    );
    expect(() => parsePairDataset('d.json', bytes('{"input":"a"}'))).toThrow(
      'd.json:1: expected a JSON array of items',
    );
    expect(() => parsePairDataset('d.json', bytes('[{"input":'))).toThrow(/^d\.json: not valid JSON/);
  });

  it('item ids are stable, distinct per set and position, and far from MT-Bench ids', () => {
    expect(pairQuestionId('Natural', 0)).toBe(pairQuestionId('Natural', 0));
    expect(pairQuestionId('Natural', 0)).not.toBe(pairQuestionId('Natural', 1));
    expect(pairQuestionId('Natural', 0)).not.toBe(pairQuestionId('Adversarial/Neighbor', 0));
    expect(pairQuestionId('Natural', 7)).toBeGreaterThan(1e15);
    expect(Number.isSafeInteger(pairQuestionId('Natural', 7))).toBe(true);
  });
});

describe('accuracy on a labelled set', () => {
  it('counts, and kappa by hand: gold 1,1,2,2 against AB 1,2,2,error is (0.5 - 0.375) / 0.625 = 0.2', () => {
    const items = [1, 2, 3, 4].map((q, i) => ({
      questionId: q,
      gold: i < 2 ? ('model_1' as const) : ('model_2' as const),
    }));
    const ab = ['model_1', 'model_2', 'model_2', 'error'] as const;
    const ba = ['model_1', 'model_1', 'model_2', 'error'] as const;
    const games = items.flatMap((it, i) => [
      { questionId: it.questionId, order: 'AB' as const, verdict: ab[i]! },
      { questionId: it.questionId, order: 'BA' as const, verdict: ba[i]! },
    ]);
    const r = accuracyRow('S', 'j', 'p', [...items, { questionId: 5, gold: 'model_1' }], games, {
      rounds: 200,
    });
    expect(r).toMatchObject({
      total: 4,
      missing: 1,
      correctAB: 2,
      correctBA: 3,
      correctBoth: 2,
      agreeOrders: 3,
      errors: 2,
      accuracyAB: 0.5,
      accuracyBA: 0.75,
      accuracy: 0.625,
    });
    expect(r.kappaAB).toBeCloseTo(0.2, 12);
    // BA vs gold: po 3/4; marginals BA m1 2/4 m2 1/4 err 1/4, gold 2/4 2/4: pe = 1/4 + 1/8 = 3/8; kappa = (3/4 - 3/8) / (5/8) = 0.6
    expect(r.kappaBA).toBeCloseTo(0.6, 12);
    expect(r.intervals.accuracy.lo).toBeLessThanOrEqual(0.625);
    expect(r.intervals.accuracy.hi).toBeGreaterThanOrEqual(0.625);
  });
});

describe('judge behaviour rates', () => {
  it('a judge that always says A: consistency 0, first position 1, no errors or ties', () => {
    const games = [1, 2, 3].flatMap((q) => [
      {
        questionId: q,
        turn: 1,
        model1: 'x',
        model2: 'y',
        order: 'AB' as const,
        verdict: 'model_1' as const,
        len1: 10,
        len2: 5,
      },
      {
        questionId: q,
        turn: 1,
        model1: 'x',
        model2: 'y',
        order: 'BA' as const,
        verdict: 'model_2' as const,
        len1: 10,
        len2: 5,
      },
    ]);
    const r = behaviourRates(games, { rounds: 100 });
    expect(r.consistency).toMatchObject({ value: 0, n: 3 });
    expect(r.firstPosition).toMatchObject({ value: 1, lo: 1, hi: 1, n: 6 });
    expect(r.errorRate.value).toBe(0);
    expect(r.tieRate.value).toBe(0);
    expect(r.longerShare).toMatchObject({ value: 0.5, n: 6 });
  });

  it('ranks: 1 + entries whose interval lies wholly above; overlapping intervals share a rank', () => {
    expect(
      ranksWithIntervals([
        { value: 0.9, lo: 0.85, hi: 0.95 },
        { value: 0.88, lo: 0.8, hi: 0.9 },
        { value: 0.5, lo: 0.4, hi: 0.6 },
        { value: null, lo: null, hi: null },
      ]),
    ).toEqual([1, 1, 3, null]);
  });
});
