import { describe, expect, it } from 'vitest';
import { pairwiseStandings, singleStandings } from '../../src/core/standings.ts';
import type { MatchOutcome, Outcome, SingleScore } from '../../src/core/types.ts';

const o = (
  model1: string,
  model2: string,
  outcome: Outcome,
  over: Partial<MatchOutcome> = {},
): MatchOutcome => ({ questionId: 1, turn: 1, model1, model2, outcome, ...over });

describe('pairwiseStandings (FastChat show_result, protocol §4.1)', () => {
  // x vs y: x wins twice, y once, one tie, one inconsistent, two errors; y vs z: y wins once
  const outcomes = [
    o('x', 'y', 'model_1'),
    o('x', 'y', 'model_1', { turn: 2 }),
    o('y', 'x', 'model_1', { questionId: 2 }),
    o('x', 'y', 'tie', { questionId: 3 }),
    o('x', 'y', 'inconsistent', { questionId: 4 }),
    o('x', 'y', 'error', { questionId: 5 }),
    o('x', 'y', 'error', { questionId: 6, turn: 2 }),
    o('y', 'z', 'model_1', { questionId: 7 }),
  ];

  it('counts wins, losses, ties (inconsistent included) and errors; errors stay out of the rates', () => {
    const rows = pairwiseStandings(outcomes);
    const x = rows.find((r) => r.model === 'x')!;
    // N = win + loss + tie = 2 + 1 + 2 = 5: the two errors are counted but not in N
    expect(x).toEqual({
      model: 'x',
      win: 2,
      loss: 1,
      tie: 2,
      error: 2,
      inconsistent: 1,
      winRate: 2 / 5,
      lossRate: 1 / 5,
      winRateAdjusted: 3 / 5,
    });
    const y = rows.find((r) => r.model === 'y')!;
    expect(y).toEqual({
      model: 'y',
      win: 2,
      loss: 2,
      tie: 2,
      error: 2,
      inconsistent: 1,
      winRate: 2 / 6,
      lossRate: 2 / 6,
      winRateAdjusted: 3 / 6,
    });
    expect(rows.find((r) => r.model === 'z')).toEqual({
      model: 'z',
      win: 0,
      loss: 1,
      tie: 0,
      error: 0,
      inconsistent: 0,
      winRate: 0,
      lossRate: 1,
      winRateAdjusted: 0,
    });
  });

  it('sorts by winRateAdjusted descending, model name breaking ties', () => {
    expect(pairwiseStandings(outcomes).map((r) => r.model)).toEqual(['x', 'y', 'z']);
    expect(pairwiseStandings([o('b', 'a', 'tie')]).map((r) => r.model)).toEqual(['a', 'b']);
  });

  it('a model with only errors has rates 0 (no division by zero)', () => {
    expect(pairwiseStandings([o('p', 'q', 'error')])).toEqual([
      {
        model: 'p',
        win: 0,
        loss: 0,
        tie: 0,
        error: 1,
        inconsistent: 0,
        winRate: 0,
        lossRate: 0,
        winRateAdjusted: 0,
      },
      {
        model: 'q',
        win: 0,
        loss: 0,
        tie: 0,
        error: 1,
        inconsistent: 0,
        winRate: 0,
        lossRate: 0,
        winRateAdjusted: 0,
      },
    ]);
  });

  it('baseline: only matches with the baseline count, and its own row is dropped', () => {
    const rows = pairwiseStandings(outcomes, { baseline: 'y' });
    expect(rows.map((r) => r.model)).toEqual(['x', 'z']);
    expect(rows.find((r) => r.model === 'z')).toMatchObject({ win: 0, loss: 1 });
    expect(pairwiseStandings(outcomes, { baseline: 'z' }).map((r) => [r.model, r.win, r.loss])).toEqual([
      ['y', 1, 0],
    ]);
  });

  it('turn, model and question filters', () => {
    expect(pairwiseStandings(outcomes, { turn: 2 }).find((r) => r.model === 'x')).toMatchObject({
      win: 1,
      loss: 0,
      tie: 0,
      error: 1,
    });
    expect(pairwiseStandings(outcomes, { models: ['y', 'z'] }).map((r) => r.model)).toEqual(['y', 'z']);
    expect(
      pairwiseStandings(outcomes, { questionIds: new Set([2, 3]) }).find((r) => r.model === 'x'),
    ).toMatchObject({ win: 0, loss: 1, tie: 1 });
  });
});

describe('singleStandings (protocol §4.2)', () => {
  it('the overall score is the mean over rows, not the mean of the turn means; unparsed scores are counted and dropped', () => {
    const s = (turn: number, score: number | null, questionId = 1): SingleScore => ({
      questionId,
      turn,
      model: 'm',
      score,
    });
    // turn 1: 10, 8, 6 (mean 8); turn 2: 2 and one unparsed (mean 2). Rows: (10+8+6+2)/4 = 6.5; turn means would give 5.
    const rows = singleStandings([s(1, 10, 1), s(1, 8, 2), s(1, 6, 3), s(2, 2, 1), s(2, null, 2)]);
    expect(rows).toEqual([{ model: 'm', turn1: 8, turn2: 2, score: 6.5, n: 4, error: 1 }]);
  });

  it('sorts by score; a model with no parsed score has nulls and sorts last', () => {
    const rows = singleStandings([
      { questionId: 1, turn: 1, model: 'low', score: 3 },
      { questionId: 1, turn: 1, model: 'none', score: null },
      { questionId: 1, turn: 1, model: 'high', score: 9 },
    ]);
    expect(rows.map((r) => r.model)).toEqual(['high', 'low', 'none']);
    expect(rows[2]).toEqual({ model: 'none', turn1: null, turn2: null, score: null, n: 0, error: 1 });
  });

  it('model and question filters', () => {
    const scores: SingleScore[] = [
      { questionId: 1, turn: 1, model: 'a', score: 4 },
      { questionId: 2, turn: 1, model: 'a', score: 8 },
      { questionId: 1, turn: 1, model: 'b', score: 5 },
    ];
    expect(singleStandings(scores, { models: ['a'], questionIds: new Set([2]) })).toEqual([
      { model: 'a', turn1: 8, turn2: null, score: 8, n: 1, error: 0 },
    ]);
  });
});
