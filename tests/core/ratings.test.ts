import { describe, expect, it } from 'vitest';
import { battleTable } from '../../src/core/stats/battle-table.ts';
import {
  battlesFromOutcomes,
  battlesFromVotes,
  bradleyTerry,
  onlineElo,
  type Battle,
  type Rating,
} from '../../src/core/ratings.ts';

const asMap = (r: Rating[]) => Object.fromEntries(r.map((x) => [x.model, x.rating]));
const b = (a: string, bb: string, score: Battle['score']): Battle => ({ a, b: bb, score });

describe('onlineElo (K=4, base 10, scale 400, start 1000; protocol §7)', () => {
  it('follows a hand-computed sequence', () => {
    // 1. a beats b at 1000/1000: p = 0.5, Δ = 4(1 − 0.5) = 2            → a 1002, b 998
    // 2. b ties a: p = 1/(1 + 10^((1002 − 998)/400)) = 0.4942437915888…, Δ = 4(0.5 − p) = 0.0230248336…
    //                                                                     → b 998.0230248336, a 1001.9769751664
    // 3. c beats a: p = 1/(1 + 10^((1001.97697… − 1000)/400)) = 0.4971549347…, Δ = 2.0113802610…
    //                                                                     → c 1002.0113802610, a 999.9655949053
    // 4. c beats b (b is model_a, score 0): p = 1/(1 + 10^((1002.01138… − 998.02302…)/400)) = 0.4942605473…,
    //    Δ = 4(0 − p) = −1.9770421890                                     → b 996.0459826446, c 1003.9884224501
    const r = asMap(onlineElo([b('a', 'b', 1), b('b', 'a', 0.5), b('c', 'a', 1), b('b', 'c', 0)]));
    expect(r.a).toBeCloseTo(999.9655949053114, 9);
    expect(r.b).toBeCloseTo(996.0459826445992, 9);
    expect(r.c).toBeCloseTo(1003.9884224500894, 9);
    expect(r.a! + r.b! + r.c!).toBeCloseTo(3000, 9); // zero-sum updates
  });

  it('K scales the first step; order matters', () => {
    expect(asMap(onlineElo([b('a', 'b', 1)], 32))).toEqual({ a: 1016, b: 984 });
    const one = asMap(onlineElo([b('a', 'b', 1), b('a', 'b', 0)]));
    const two = asMap(onlineElo([b('a', 'b', 0), b('a', 'b', 1)]));
    expect(one.a).not.toBeCloseTo(two.a!, 6);
    expect(one.a! - 1000).toBeCloseTo(-(two.a! - 1000), 9); // mirror images
  });

  it('sorts by rating, descending', () => {
    expect(onlineElo([b('low', 'high', 0)]).map((r) => r.model)).toEqual(['high', 'low']);
  });
});

describe('bradleyTerry (MLE, ties half a win, mean 1000)', () => {
  it('two models, 3 wins to 1: the gap is 400·log10(3), centred on 1000', () => {
    const r = asMap(bradleyTerry([b('a', 'b', 1), b('a', 'b', 1), b('b', 'a', 0), b('a', 'b', 0)]));
    const half = (400 * Math.log10(3)) / 2; // 95.424250943…
    expect(r.a).toBeCloseTo(1000 + half, 6);
    expect(r.b).toBeCloseTo(1000 - half, 6);
  });

  it('symmetric results give equal ratings: all ties, a balanced cycle, even head-to-head', () => {
    for (const battles of [
      [b('a', 'b', 0.5), b('b', 'c', 0.5), b('c', 'a', 0.5)],
      [b('a', 'b', 1), b('b', 'c', 1), b('c', 'a', 1)],
      [b('a', 'b', 1), b('a', 'b', 0), b('b', 'a', 1), b('b', 'a', 0)],
    ]) {
      for (const { rating } of bradleyTerry(battles)) expect(rating).toBeCloseTo(1000, 6);
    }
  });

  it('mirror-symmetric data gives mirror-symmetric ratings, and the mean is 1000', () => {
    // a beats m 3:1, m beats z 3:1 → a and z sit symmetrically around m = 1000
    const battles = [
      ...Array(3).fill(b('a', 'm', 1)),
      b('a', 'm', 0),
      ...Array(3).fill(b('m', 'z', 1)),
      b('m', 'z', 0),
    ];
    const r = asMap(bradleyTerry(battles));
    expect(r.m).toBeCloseTo(1000, 6);
    expect(r.a! - 1000).toBeCloseTo(1000 - r.z!, 6);
    expect(r.a).toBeGreaterThan(1000);
  });

  it('the orientation of a battle does not matter', () => {
    const x = bradleyTerry([
      b('a', 'b', 1),
      b('a', 'b', 1),
      b('a', 'b', 0),
      b('b', 'c', 0.5),
      b('c', 'b', 1),
    ]);
    const y = bradleyTerry([
      b('b', 'a', 0),
      b('a', 'b', 1),
      b('b', 'a', 1),
      b('c', 'b', 0.5),
      b('b', 'c', 0),
    ]);
    const [mx, my] = [asMap(x), asMap(y)];
    for (const m of ['a', 'b', 'c']) expect(mx[m]).toBeCloseTo(my[m]!, 6);
  });

  it('the battle table counts each unordered pair once, scores from the first-seen side', () => {
    const c = battleTable([b('a', 'b', 1), b('b', 'a', 1), b('a', 'b', 0.5)]).pairs;
    expect(c.models).toEqual(['a', 'b']);
    expect([...c.w]).toEqual([3]);
    expect([...c.s]).toEqual([1.5]); // a: 1 + 0 + 0.5
  });
});

describe('battles from outcomes and votes', () => {
  it('errors are left out; inconsistent and tie are half a win', () => {
    const m = (outcome: 'model_1' | 'model_2' | 'tie' | 'inconsistent' | 'error') => ({
      questionId: 1,
      turn: 1,
      model1: 'p',
      model2: 'q',
      outcome,
    });
    expect(
      battlesFromOutcomes([m('model_1'), m('model_2'), m('tie'), m('inconsistent'), m('error')]),
    ).toEqual([b('p', 'q', 1), b('p', 'q', 0), b('p', 'q', 0.5), b('p', 'q', 0.5)]);
  });

  it('votes keep their orientation', () => {
    const v = (winner: 'model_1' | 'model_2' | 'tie' | 'inconsistent') => ({
      judge: 'human',
      voter: 'expert_1',
      questionId: 1,
      turn: 1,
      model1: 'q',
      model2: 'p',
      winner,
    });
    expect(battlesFromVotes([v('model_1'), v('model_2'), v('tie'), v('inconsistent')])).toEqual([
      b('q', 'p', 1),
      b('q', 'p', 0),
      b('q', 'p', 0.5),
      b('q', 'p', 0.5),
    ]);
  });
});
