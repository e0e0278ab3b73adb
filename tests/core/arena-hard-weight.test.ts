// Arena-Hard's weighting (a strong verdict counts three times, each game on its own), checked against a
// computation by hand.
import { describe, expect, it } from 'vitest';
import { bradleyTerry } from '../../src/core/ratings.ts';
import { pairwiseStandings } from '../../src/core/standings.ts';
import { arenaHardBattles, weightedStandings, type WeightedGame } from '../../src/core/schemes/weighting.ts';
import { outcomesFromGames } from '../../src/core/outcomes.ts';

// x is model_1 and y model_2 throughout. In AB, x is shown as A; in BA, y is shown as A.
const g = (
  questionId: number,
  order: 'AB' | 'BA',
  verdict: WeightedGame['verdict'],
  strong = false,
  turn = 1,
): WeightedGame => ({ questionId, turn, model1: 'x', model2: 'y', order, verdict, strong });
const GAMES: WeightedGame[] = [
  g(1, 'AB', 'model_1', true), //  [[A>>B]]: x strongly       -> x wins 3
  g(1, 'BA', 'model_1'), //        [[B>A]] (B = x): x slightly -> x wins 1
  g(2, 'AB', 'tie'), //            [[A=B]]                     -> 1 tie
  g(2, 'BA', 'model_2'), //        [[A>B]] (A = y): y slightly -> y wins 1
  g(3, 'AB', 'model_2', true), //  [[B>>A]]: y strongly        -> y wins 3
  g(3, 'BA', 'model_2'), //        [[A>B]] (A = y): y slightly -> y wins 1
  g(4, 'AB', 'error'), //          unparsable: match 4 is left out whole
  g(4, 'BA', 'model_1', true),
  g(5, 'AB', 'model_1'), //        match 5 has one game only: incomplete, left out
];

describe("Arena-Hard's weighting, by hand", () => {
  it('battles: x wins 3 + 1, ties 1, y wins 1 + 3 + 1, in match then AB-BA order; an error match and an incomplete one are left out', () => {
    const battles = arenaHardBattles(GAMES);
    expect(battles.map((b) => b.score)).toEqual([1, 1, 1, 1, 0.5, 0, 0, 0, 0, 0]);
    expect(battles.every((b) => b.a === 'x' && b.b === 'y')).toBe(true);
    expect(arenaHardBattles(GAMES, 1).map((b) => b.score)).toEqual([1, 1, 0.5, 0, 0, 0]);
  });

  it('standings: x 4 wins, 5 losses, 1 tie -> (4 + 0.5) / 10 = 0.45; y 0.55; one error match, one match whose orders disagree', () => {
    const rows = weightedStandings(GAMES);
    expect(rows).toEqual([
      {
        model: 'y',
        win: 5,
        loss: 4,
        tie: 1,
        error: 1,
        inconsistent: 1,
        winRate: 0.5,
        lossRate: 0.4,
        winRateAdjusted: 0.55,
      },
      {
        model: 'x',
        win: 4,
        loss: 5,
        tie: 1,
        error: 1,
        inconsistent: 1,
        winRate: 0.4,
        lossRate: 0.5,
        winRateAdjusted: 0.45,
      },
    ]);
    // unweighted (FastChat): match 1 x, match 2 inconsistent (tie), match 3 y, match 4 error -> 0.5 each
    const plain = pairwiseStandings(outcomesFromGames(GAMES));
    expect(plain.map((r) => [r.model, r.win, r.loss, r.tie, r.winRateAdjusted])).toEqual([
      ['x', 1, 1, 1, 0.5],
      ['y', 1, 1, 1, 0.5],
    ]);
  });

  it('filters: turn, models and baseline (whose own row is dropped) as in the plain standings', () => {
    const more = [...GAMES, g(1, 'AB', 'model_1', true, 2), g(1, 'BA', 'model_1', true, 2)];
    expect(weightedStandings(more, { turn: 2 }).map((r) => [r.model, r.win, r.loss])).toEqual([
      ['x', 6, 0],
      ['y', 0, 6],
    ]);
    expect(weightedStandings(more, { baseline: 'y' }).map((r) => [r.model, r.win, r.loss, r.tie])).toEqual([
      ['x', 10, 5, 1],
    ]);
    expect(weightedStandings(more, { models: ['x', 'z'] })).toEqual([]);
  });

  it('Bradley–Terry on the weighted battles: with two models the fit is closed-form, 400 log10(4.5 / 5.5) apart', () => {
    const r = Object.fromEntries(bradleyTerry(arenaHardBattles(GAMES)).map((x) => [x.model, x.rating]));
    const diff = 400 * Math.log10(4.5 / 5.5); // -34.86
    expect(r.x! - r.y!).toBeCloseTo(diff, 6);
    expect(r.x! - r.y!).toBeCloseTo(-34.86, 2);
    // weight 1 (every game once): 2.5 of 6 battles for x
    const plain = Object.fromEntries(
      bradleyTerry(arenaHardBattles(GAMES, 1)).map((x) => [x.model, x.rating]),
    );
    expect(plain.x! - plain.y!).toBeCloseTo(400 * Math.log10(2.5 / 3.5), 6);
  });
});
