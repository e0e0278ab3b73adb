// The random-voter test (src/core/stats/voter-outliers.ts) against an independent scipy reference
// (tests/reference/voter_outliers.py): simulated annotators who mostly agree with the truth, one who votes at random.
import { describe, expect, it } from 'vitest';
import { seededRng } from '../../../src/core/stats/random.ts';
import { chiSquareSurvivalEven, voterOutliers } from '../../../src/core/stats/voter-outliers.ts';
import type { Vote, VoteWinner } from '../../../src/core/types.ts';
import { python, pythonSkip } from '../../support/python.ts';

const WINNERS: VoteWinner[] = ['model_1', 'model_2', 'tie'];

/** 60 matches; three careful annotators (right 80% of the time), two judges (right 85%), one random annotator. */
function simulate(seed: number): { votes: Vote[]; others: Vote[] } {
  const rng = seededRng(seed);
  const pick = (truth: VoteWinner, right: number): VoteWinner =>
    rng() < right ? truth : WINNERS.filter((w) => w !== truth)[Math.floor(rng() * 2)]!;
  const votes: Vote[] = [];
  const others: Vote[] = [];
  for (let q = 0; q < 60; q++) {
    const truth = WINNERS[Math.floor(rng() * 3)]!;
    const m = {
      questionId: 100 + (q % 30),
      turn: 1 + Math.floor(q / 30),
      model1: 'x',
      model2: q % 2 ? 'y' : 'w',
    };
    for (const voter of ['annotator_1', 'annotator_2', 'annotator_3'])
      votes.push({ judge: 'annotators', voter, ...m, winner: pick(truth, 0.8) });
    votes.push({ judge: 'annotators', voter: 'annotator_9', ...m, winner: WINNERS[Math.floor(rng() * 3)]! });
    for (const judge of ['gpt-4', 'claude'])
      others.push({ judge, voter: judge, ...m, winner: pick(truth, 0.85) });
  }
  return { votes, others };
}

describe('voterOutliers', () => {
  it('chi-square tail of even degrees of freedom: known values', () => {
    // chi2.sf(x, df) from scipy: sf(2, 2) = e^-1; sf(10, 4) = e^-5 * 6; sf(0, 6) = 1
    expect(chiSquareSurvivalEven(2, 1)).toBeCloseTo(Math.exp(-1), 15);
    expect(chiSquareSurvivalEven(10, 2)).toBeCloseTo(6 * Math.exp(-5), 15);
    expect(chiSquareSurvivalEven(0, 3)).toBe(1);
  });

  it('flags the random annotator, not the careful ones; every figure as the scipy reference computes it', () => {
    for (const seed of [1, 2, 3]) {
      const { votes, others } = simulate(seed);
      const got = voterOutliers(votes, others);
      const flagged = got.filter((g) => g.flaggedAt !== null).map((g) => g.voter);
      expect(flagged, `seed ${seed}`).toEqual(['annotator_9']);
      if (pythonSkip || seed !== 1) continue; // one reference run: scipy's start-up is slow on a loaded machine
      const ref = python<
        {
          voter: string;
          compared: number;
          agree: number;
          expected: number;
          p: number;
          flaggedAt: number | null;
        }[]
      >('voter_outliers.py', {
        votes: votes.map((v) => ({
          voter: v.voter,
          q: v.questionId,
          t: v.turn,
          m1: v.model1,
          m2: v.model2,
          w: v.winner,
        })),
        others: others.map((v) => ({
          voter: v.voter,
          q: v.questionId,
          t: v.turn,
          m1: v.model1,
          m2: v.model2,
          w: v.winner,
        })),
        alpha: 0.05,
        checkpoints: 100,
      });
      expect(got.map((g) => g.voter)).toEqual(ref.map((r) => r.voter));
      got.forEach((g, i) => {
        const r = ref[i]!;
        expect([g.compared, g.agree, g.flaggedAt], g.voter).toEqual([r.compared, r.agree, r.flaggedAt]);
        expect(g.expected).toBeCloseTo(r.expected, 12);
        expect(g.p! / r.p).toBeCloseTo(1, 9);
      });
    }
  });

  it('a voter with nothing to compare (no majority of others) is neither compared nor flagged', () => {
    const m = { questionId: 1, turn: 1, model1: 'a', model2: 'b' };
    const got = voterOutliers([{ judge: 'annotators', voter: 'annotator_1', ...m, winner: 'model_1' }], []);
    expect(got).toEqual([
      { voter: 'annotator_1', compared: 0, agree: 0, rate: 0, expected: 0.5, p: null, flaggedAt: null },
    ]);
  });
});
