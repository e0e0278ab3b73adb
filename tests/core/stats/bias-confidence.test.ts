// Issue #13, defect 6: a sampled verdict's confidence, position bias's uncertainty, which game of a slot counts in
// conflict rates. Expected values by hand or from tests/reference/position_bias.py, never by src/core.
import { describe, expect, it } from 'vitest';
import { positionBias, type BiasGame } from '../../../src/core/stats/bias.ts';
import { calibrate } from '../../../src/core/stats/calibration.ts';
import { gameConfidence } from '../../../src/core/stats/confidence.ts';
import { qualityRows } from '../../../src/core/stats/judge-quality.ts';
import { normal, seededRng } from '../../../src/core/stats/random.ts';
import { signTestP } from '../../../src/core/stats/sign-test.ts';
import { outcomesFromGames } from '../../../src/core/outcomes.ts';
import { python, pythonSkip } from '../../support/python.ts';

describe('confidence of a sampled verdict (issue #13, defect 6)', () => {
  it('is p[verdict], not the largest probability', () => {
    const p = { A: 0.6, B: 0.3, C: 0.1 };
    // sampled above temperature 0, the judge said B: in order AB that is model 2, in BA model 1
    expect(gameConfidence(p, 'AB', 'model_2')).toBe(0.3);
    expect(gameConfidence(p, 'BA', 'model_1')).toBe(0.3);
    expect(gameConfidence(p, 'AB', 'tie')).toBe(0.1);
    expect(gameConfidence(p, 'BA', 'model_2')).toBe(0.6);
    expect(gameConfidence(p, 'AB', 'error')).toBeNull();
    expect(gameConfidence(null, 'AB', 'model_1')).toBeNull();
  });
});

describe('one rule picks the game of a slot for conflicts (issue #13, defect 6)', () => {
  // one match, two MEC samples per order; sample 1 was stored after sample 0 and disagrees with it
  const games = [
    {
      questionId: 1,
      category: 'writing',
      turn: 1,
      model1: 'x',
      model2: 'y',
      order: 'AB' as const,
      verdict: 'model_1' as const,
      sample: 0,
    },
    {
      questionId: 1,
      category: 'writing',
      turn: 1,
      model1: 'x',
      model2: 'y',
      order: 'BA' as const,
      verdict: 'model_1' as const,
      sample: 0,
    },
    {
      questionId: 1,
      category: 'writing',
      turn: 1,
      model1: 'x',
      model2: 'y',
      order: 'AB' as const,
      verdict: 'model_1' as const,
      sample: 1,
    },
    {
      questionId: 1,
      category: 'writing',
      turn: 1,
      model1: 'x',
      model2: 'y',
      order: 'BA' as const,
      verdict: 'model_2' as const,
      sample: 1,
    },
  ];
  it('position bias, outcomes, the judge-quality report and the calibrated first sample all use sample 0', () => {
    const [row] = positionBias(games, ['pair'], { rounds: 50 });
    expect(row!.matches).toBe(1);
    expect(row!.conflict).toBe(0); // sample 0 agrees in both orders
    expect(outcomesFromGames(games)).toEqual([expect.objectContaining({ outcome: 'model_1' })]);
    expect(
      qualityRows(
        'j',
        games.map((g) => ({ ...g, reply: 'r' })),
      )[0],
    ).toMatchObject({ matches: 1, consistent: 1, inconsistent: 0 });
    const reply = (a: number, b: number) => `Score of the Assistant 1: ${a}\nScore of the Assistant 2: ${b}`;
    const m = calibrate([
      { order: 'AB', sample: 0, reply: reply(8, 6) },
      { order: 'BA', sample: 0, reply: reply(6, 8) },
      { order: 'AB', sample: 1, reply: reply(8, 6) },
      { order: 'BA', sample: 1, reply: reply(8, 6) },
    ]);
    expect(m.single).toEqual({ ab: 'model_1', ba: 'model_1' });
  });
  it('among games with the same sample index, the one stored last counts (a rerun replaces)', () => {
    const rerun = [...games.slice(0, 2), { ...games[1]!, verdict: 'model_2' as const }];
    expect(positionBias(rerun, ['pair'], { rounds: 50 })[0]!.conflict).toBe(1);
    expect(outcomesFromGames(rerun)[0]!.outcome).toBe('inconsistent');
  });
});

describe('sign test', () => {
  it('hand-worked values: 16 of 18 conflicts favouring the first answer, and the edges', () => {
    // P(X <= 2) for Binomial(18, 1/2) = (1 + 18 + 153) / 2^18 = 172 / 262144; two-sided: twice that
    expect(signTestP(16, 18)).toBeCloseTo((2 * 172) / 262144, 14);
    expect(signTestP(2, 18)).toBeCloseTo((2 * 172) / 262144, 14);
    expect(signTestP(5, 10)).toBe(1);
    expect(signTestP(0, 0)).toBeNull();
  });
});

describe.skipIf(pythonSkip)(
  'position-bias uncertainty against numpy/scipy (tests/reference/position_bias.py)',
  () => {
    /** A judge that favours the answer shown first, with per-question effects, ties, errors and a second MEC sample. */
    function biasedJudge(seed: number, questions: number): BiasGame[] {
      const rng = seededRng(seed);
      const out: BiasGame[] = [];
      const sig = (x: number) => 1 / (1 + Math.exp(-x));
      for (let q = 1; q <= questions; q++) {
        const e = 0.8 * normal(rng);
        for (const turn of [1, 2])
          for (const sample of rng() < 0.2 ? [0, 1] : [0])
            for (const order of ['AB', 'BA'] as const) {
              const u = rng();
              const verdict =
                u < 0.03
                  ? 'error'
                  : u < 0.2
                    ? 'tie'
                    : rng() < sig(0.2 + e + (order === 'AB' ? 0.7 : -0.7))
                      ? 'model_1'
                      : 'model_2';
              out.push({
                questionId: q,
                category: 'c',
                turn,
                model1: 'x',
                model2: 'y',
                order,
                verdict,
                sample,
              });
            }
      }
      return out;
    }

    for (const [seed, questions] of [
      [3, 80],
      [17, 30],
    ] as const)
      it(`per-order win rates, intervals, conflicts and the sign test (${questions} questions)`, () => {
        const games = biasedJudge(seed, questions);
        const rounds = 20000;
        const ref = python<Record<string, number | null>>('position_bias.py', {
          games: games.map((g) => ({
            q: g.questionId,
            t: g.turn,
            order: g.order,
            verdict: g.verdict,
            sample: g.sample,
          })),
          rounds,
          level: 0.95,
          seed,
        });
        const [row] = positionBias(games, ['pair'], { rounds, level: 0.95, seed });
        expect(row!.winFirst).toBeCloseTo(ref.winFirst!, 12);
        expect(row!.winSecond).toBeCloseTo(ref.winSecond!, 12);
        expect([row!.favoursFirst, row!.favoursSecond, row!.withTie, row!.matches]).toEqual([
          ref.favoursFirst,
          ref.favoursSecond,
          ref.withTie,
          ref.matches,
        ]);
        expect(row!.signTestP).toBeCloseTo(ref.signTestP!, 12);
        // two bootstraps with different random streams: equal up to Monte Carlo noise of 20,000 rounds
        for (const k of ['winFirstLo', 'winFirstHi', 'winSecondLo', 'winSecondHi'] as const)
          expect(Math.abs(row![k]! - ref[k]!)).toBeLessThan(0.012);
        console.info(
          `[bias reference] ${questions} questions: first ${row!.winFirst!.toFixed(3)} [${row!.winFirstLo!.toFixed(3)}, ${row!.winFirstHi!.toFixed(3)}] vs numpy [${ref.winFirstLo!.toFixed(3)}, ${ref.winFirstHi!.toFixed(3)}]; sign test p ${row!.signTestP!.toExponential(3)} (scipy ${ref.signTestP!.toExponential(3)})`,
        );
      });
  },
);
