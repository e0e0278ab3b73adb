// The pure parts of the judgment-quality report and of escalation (src/core/stats/judge-quality.ts, confidence.ts).
import { describe, expect, it } from 'vitest';
import { entropyBits, gameConfidence } from '../../../src/core/stats/confidence.ts';
import {
  escalationReason,
  pearson,
  qualityRows,
  winRate,
  type QualityGame,
} from '../../../src/core/stats/judge-quality.ts';

const g = (
  q: number,
  m1: string,
  m2: string,
  order: 'AB' | 'BA',
  verdict: QualityGame['verdict'],
  reply = 'r [[A]]',
  turn = 1,
): QualityGame => ({ questionId: q, turn, model1: m1, model2: m2, order, verdict, reply });

describe('judgment quality', () => {
  it('counts matches, one- and both-game errors, empty replies, consistency and ties per turn', () => {
    const games = [
      g(1, 'x', 'y', 'AB', 'model_1'),
      g(1, 'x', 'y', 'BA', 'model_1'), // consistent
      g(2, 'x', 'y', 'AB', 'model_1'),
      g(2, 'x', 'y', 'BA', 'model_2'), // inconsistent
      g(3, 'x', 'y', 'AB', 'tie'),
      g(3, 'x', 'y', 'BA', 'tie'), // consistent tie
      g(4, 'x', 'y', 'AB', 'error', ''),
      g(4, 'x', 'y', 'BA', 'model_1'), // one game an error, one empty reply
      g(5, 'x', 'y', 'AB', 'error'),
      g(5, 'x', 'y', 'BA', 'error'), // both errors
      g(6, 'x', 'y', 'AB', 'model_2'), // half a match: a game, not a match
      g(1, 'x', 'y', 'AB', 'model_2', 'r', 2),
      g(1, 'x', 'y', 'BA', 'model_2', '  ', 2),
    ];
    const rows = qualityRows('j', games);
    expect(rows.map((r) => r.turn)).toEqual([1, 2, 0]);
    expect(rows[0]).toMatchObject({
      games: 11,
      matches: 5,
      errorsOneGame: 1,
      errorsBothGames: 1,
      emptyReplies: 1,
      consistent: 2,
      inconsistent: 1,
      ties: 1,
      meanConfidence: null,
    });
    expect(rows[1]).toMatchObject({ games: 2, matches: 1, consistent: 1, emptyReplies: 1 });
    expect(rows[2]).toMatchObject({ games: 13, matches: 6, consistent: 3 });
  });

  it('win rates: adjusted (ties half, errors out), without ties, errors as ties', () => {
    const s = {
      model: 'x',
      win: 6,
      loss: 2,
      tie: 2,
      error: 2,
      inconsistent: 0,
      winRate: 0,
      lossRate: 0,
      winRateAdjusted: 0,
    };
    expect(winRate(s, 'adjusted')).toBeCloseTo(7 / 10, 12);
    expect(winRate(s, 'without-ties')).toBeCloseTo(6 / 8, 12);
    expect(winRate(s, 'errors-as-ties')).toBeCloseTo(8 / 12, 12);
  });

  it("Pearson's r matches numpy.corrcoef", () => {
    expect(pearson([1, 2, 3, 4], [2, 4, 5, 9])).toBeCloseTo(0.9647638212377321, 12);
    expect(pearson([0.2, 0.5, 0.9], [0.1, 0.7, 0.8])).toBeCloseTo(0.890006673750923, 12);
    expect(pearson([1, 1, 1], [1, 2, 3])).toBeNull();
    expect(pearson([1], [1])).toBeNull();
  });
});

describe('confidence and escalation', () => {
  it('a game is as confident as its verdict probability; a match as its less confident game', () => {
    expect(gameConfidence({ A: 0.7, B: 0.2, C: 0.1 }, 'AB', 'model_1')).toBe(0.7);
    expect(gameConfidence(null, 'AB', 'model_1')).toBeNull();
    expect(entropyBits({ A: 0.5, B: 0.5, C: 0 })).toBeCloseTo(1, 12);
  });

  it('escalates missing, unparsable, inconsistent and low-confidence matches, and nothing else', () => {
    const v = (verdict: QualityGame['verdict'], confidence: number | null) => ({ verdict, confidence });
    expect(escalationReason(undefined, v('model_1', 0.9), 0.6)).toBe('missing');
    expect(escalationReason(v('error', null), v('model_1', 0.9), 0.6)).toBe('error');
    expect(escalationReason(v('model_1', 0.9), v('model_2', 0.9), 0.6)).toBe('inconsistent');
    expect(escalationReason(v('model_1', 0.9), v('model_1', 0.59), 0.6)).toBe('low-confidence');
    expect(escalationReason(v('model_1', 0.9), v('model_1', null), 0.6)).toBe('low-confidence');
    expect(escalationReason(v('model_1', 0.9), v('model_1', 0.6), 0.6)).toBeNull();
    expect(escalationReason(v('tie', 0.8), v('tie', 0.7), 0.6)).toBeNull();
  });

  it('with a SoftEnt-Cali bar, also escalates a confident match whose game is above it or was not scored', () => {
    const r = (reliability: number | null) => ({ verdict: 'model_1' as const, confidence: 0.9, reliability });
    expect(escalationReason(r(0.2), r(0.7), 0.6, 0.5)).toBe('unreliable');
    expect(escalationReason(r(0.2), r(null), 0.6, 0.5)).toBe('unreliable');
    expect(escalationReason(r(0.2), r(0.5), 0.6, 0.5)).toBeNull();
    expect(escalationReason(r(0.2), r(0.7), 0.6)).toBeNull();
    // the earlier reasons come first
    expect(escalationReason({ ...r(0.9), confidence: 0.3 }, r(0.9), 0.6, 0.5)).toBe('low-confidence');
  });
});
