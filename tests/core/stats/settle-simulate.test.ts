// The dry run's simulated outcomes (core/stats/settle-simulate.ts): a model with no stored game (a nightly
// refresh's new model) plays like a model drawn from the rated league, not like a coin against everyone.
import { describe, expect, it } from 'vitest';
import type { MatchOutcome } from '../../../src/core/types.ts';
import { seededRng } from '../../../src/core/stats/random.ts';
import { fitRanks } from '../../../src/core/stats/settle.ts';
import { ratingDraw } from '../../../src/core/stats/settle-simulate.ts';
import { scoreOf } from '../../../src/core/outcomes.ts';

// a > b > c > d on 30 questions, each beating the next 3 games in 5 and the rest 4 in 5 (no ties stored)
const RATED = ['a', 'b', 'c', 'd'];
function stored(): MatchOutcome[] {
  const out: MatchOutcome[] = [];
  for (let q = 0; q < 30; q++)
    for (let i = 0; i < 4; i++)
      for (let j = i + 1; j < 4; j++) {
        const wins = j === i + 1 ? q % 5 < 3 : q % 5 < 4;
        out.push({
          questionId: q,
          turn: 1,
          model1: RATED[i]!,
          model2: RATED[j]!,
          outcome: wins ? 'model_1' : 'model_2',
        });
      }
  return out;
}

describe('ratingDraw', () => {
  it('draws a new model from the rated models spread, once per simulated run', () => {
    const outcomes = stored();
    const models = [...RATED, 'e'];
    const battles = outcomes.map((m) => ({
      a: m.model1,
      b: m.model2,
      score: scoreOf(m.outcome),
      cluster: m.questionId,
    }));
    const fit = fitRanks(RATED, battles, 0.95)!;
    const r = [...fit.ratings];
    const mean = r.reduce((s, x) => s + x, 0) / 4;
    const sd = Math.sqrt(r.reduce((s, x) => s + (x - mean) ** 2, 0) / 4);
    const tie = 1 / (outcomes.length + 2);
    // P(e wins against x) = (1 − tie) E[1 / (1 + 10^(−(R − r_x)/400))], R ~ N(mean, sd²), by the trapezoid rule
    const expected = (x: number) => {
      let s = 0;
      let w = 0;
      for (let z = -8; z <= 8; z += 0.001) {
        const f = Math.exp((-z * z) / 2);
        s += f / (1 + 10 ** (-(mean + sd * z - x) / 400));
        w += f;
      }
      return (1 - tie) * (s / w);
    };
    const draws = ratingDraw({ models, outcomes });
    const rng = seededRng(7);
    const wins = new Map(RATED.map((m) => [m, 0]));
    const RUNS = 4000;
    for (let k = 0; k < RUNS; k++) {
      const draw = draws(rng);
      for (const m of RATED)
        if (draw({ key: m, a: 'e', b: m, cluster: 0 }, rng) === 'model_1') wins.set(m, wins.get(m)! + 1);
    }
    RATED.forEach((m, k) => expect(wins.get(m)! / RUNS).toBeCloseTo(expected(r[k]!), 1));
    // far from a coin: e beats the weakest far more often than the strongest
    expect(wins.get('a')! / RUNS).toBeLessThan(0.4);
    expect(wins.get('d')! / RUNS).toBeGreaterThan(0.6);
    // one rating per run: a run's 100 matches against c vary between runs far more than a coin's would
    const shares = Array.from({ length: 300 }, () => {
      const draw = draws(rng);
      let w = 0;
      for (let k = 0; k < 100; k++)
        if (draw({ key: 'c', a: 'e', b: 'c', cluster: 0 }, rng) === 'model_1') w++;
      return w / 100;
    });
    const m = shares.reduce((s, x) => s + x, 0) / shares.length;
    const v = shares.reduce((s, x) => s + (x - m) ** 2, 0) / (shares.length - 1);
    expect(v).toBeGreaterThan((4 * m * (1 - m)) / 100);
  });

  it('keeps the fitted ratings for the rated models, and a coin when nothing can be fitted', () => {
    const outcomes = stored();
    const rng = seededRng(3);
    const draw = ratingDraw({ models: [...RATED, 'e'], outcomes })(rng);
    let ad = 0;
    for (let k = 0; k < 2000; k++)
      if (draw({ key: 'k', a: 'a', b: 'd', cluster: 0 }, rng) === 'model_1') ad++;
    expect(ad / 2000).toBeGreaterThan(0.8);
    const coin = ratingDraw({ models: ['p', 'q'], outcomes: [] })(rng);
    let pq = 0;
    for (let k = 0; k < 2000; k++)
      if (coin({ key: 'k', a: 'p', b: 'q', cluster: 0 }, rng) === 'model_1') pq++;
    // no fit: every match a coin, after the stored tie share (no games: one tie in two)
    expect(Math.abs(pq / 2000 - 0.25)).toBeLessThan(0.04);
  });
});
