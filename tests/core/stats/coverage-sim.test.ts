// Coverage of issue #13's intervals (harness of tests/reports/analytics/bt-bootstrap-sim.test.ts): do nominal 95%
// intervals cover the truth 93–97% of the time? (a) `arena bias`'s per-order win rates on data with question
// effects; (b) `arena length`'s length-controlled win rates and coefficient on data drawn from its model.
import { describe, expect, it } from 'vitest';
import { expectedLogistic, sigmoid } from '../../support/logistic.ts';
import { positionBias, type BiasGame } from '../../../src/core/stats/bias.ts';
import { lengthControlledWinRates, type LengthMatch } from '../../../src/core/stats/length.ts';
import { normal, seededRng } from '../../../src/core/stats/random.ts';

describe('coverage of the new intervals (simulation)', () => {
  it('position bias: per-order win-rate intervals (questions resampled) cover the truth 93–97% of the time', () => {
    const DATASETS = 400;
    const QUESTIONS = 80;
    const A = 0.3; // model 1's advantage
    const BIAS = 0.5; // the judge's pull towards the answer shown first
    const SD = 0.9; // question effect, shared by both turns and orders
    const TIE = 0.15;
    const truthFirst = (1 - TIE) * expectedLogistic(A + BIAS, SD);
    const truthSecond = (1 - TIE) * expectedLogistic(A - BIAS, SD);
    const rng = seededRng(424242);
    const covered = { first: 0, second: 0 };
    for (let d = 0; d < DATASETS; d++) {
      const games: BiasGame[] = [];
      for (let q = 1; q <= QUESTIONS; q++) {
        const e = SD * normal(rng);
        for (const turn of [1, 2])
          for (const order of ['AB', 'BA'] as const) {
            const verdict =
              rng() < TIE
                ? 'tie'
                : rng() < sigmoid(A + e + (order === 'AB' ? BIAS : -BIAS))
                  ? 'model_1'
                  : 'model_2';
            games.push({ questionId: q, category: 'c', turn, model1: 'x', model2: 'y', order, verdict });
          }
      }
      const [r] = positionBias(games, ['pair'], { rounds: 400, seed: 1000 + d });
      if (r!.winFirstLo! <= truthFirst && truthFirst <= r!.winFirstHi!) covered.first++;
      if (r!.winSecondLo! <= truthSecond && truthSecond <= r!.winSecondHi!) covered.second++;
    }
    const f = covered.first / DATASETS;
    const s = covered.second / DATASETS;
    console.log(
      `[coverage] position bias, ${DATASETS} data sets of ${QUESTIONS} questions: shown first ${(100 * f).toFixed(1)}%, shown second ${(100 * s).toFixed(1)}%`,
    );
    expect((f + s) / 2).toBeGreaterThanOrEqual(0.93);
    expect((f + s) / 2).toBeLessThanOrEqual(0.97);
  });

  it('length model: lcWinRate and length-coefficient intervals (questions resampled) cover the truth 93–97% of the time', () => {
    const DATASETS = 150;
    const QUESTIONS = 60;
    const THETA = [-0.6, -0.2, 0.2, 0.6];
    const MEANLEN = [300, 900, 500, 700]; // verbosity is not strength
    const BETA = 0.7;
    const rng = seededRng(777);
    let coveredLc = 0;
    let totalLc = 0;
    let coveredBeta = 0;
    for (let d = 0; d < DATASETS; d++) {
      const raw: { q: number; i: number; j: number; l1: number; l2: number }[] = [];
      for (let q = 1; q <= QUESTIONS; q++)
        for (let turn = 0; turn < 2; turn++)
          for (let i = 0; i < 4; i++)
            for (let j = i + 1; j < 4; j++)
              raw.push({
                q,
                i,
                j,
                l1: Math.max(20, MEANLEN[i]! + 250 * normal(rng)),
                l2: Math.max(20, MEANLEN[j]! + 250 * normal(rng)),
              });
      // the model standardises by the sample sd of the differences; draw the outcomes with the same sd
      const deltas = raw.map((m) => m.l1 - m.l2);
      const mean = deltas.reduce((a, b) => a + b, 0) / deltas.length;
      const sd = Math.sqrt(deltas.reduce((a, b) => a + (b - mean) ** 2, 0) / (deltas.length - 1));
      const matches: (LengthMatch & { questionId: number })[] = raw.map((m) => ({
        questionId: m.q,
        model1: `m${m.i}`,
        model2: `m${m.j}`,
        len1: m.l1,
        len2: m.l2,
        outcome:
          rng() < sigmoid(THETA[m.i]! - THETA[m.j]! + BETA * Math.tanh((m.l1 - m.l2) / sd))
            ? 'model_1'
            : 'model_2',
      }));
      const r = lengthControlledWinRates(matches, { rounds: 200, seed: 5000 + d });
      for (const row of r.models) {
        const i = Number(row.model.slice(1));
        // the estimand: the win rate at equal lengths against the opponents met (each equally often here)
        const truth = THETA.reduce((s, t, j) => (j === i ? s : s + sigmoid(THETA[i]! - t)), 0) / 3;
        totalLc++;
        if (row.lo! <= truth && truth <= row.hi!) coveredLc++;
      }
      if (r.effect!.lo! <= BETA && BETA <= r.effect!.hi!) coveredBeta++;
    }
    const lc = coveredLc / totalLc;
    const beta = coveredBeta / DATASETS;
    console.log(
      `[coverage] length model, ${DATASETS} data sets of ${QUESTIONS} questions x 4 models: lcWinRate ${(100 * lc).toFixed(1)}% of ${totalLc}, length coefficient ${(100 * beta).toFixed(1)}% of ${DATASETS}`,
    );
    expect(lc).toBeGreaterThanOrEqual(0.93);
    expect(lc).toBeLessThanOrEqual(0.97);
    expect(beta).toBeGreaterThanOrEqual(0.9);
  }, 300_000);
});
