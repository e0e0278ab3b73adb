// Pure analytics: expected values are worked out by hand in the comments, or come from textbook examples.
import { describe, expect, it } from 'vitest';
import { agreement } from '../../../src/core/stats/agreement.ts';
import { positionBias, conflictFromOutcomes, type BiasGame } from '../../../src/core/stats/bias.ts';
import { battleTable } from '../../../src/core/stats/battle-table.ts';
import { bootstrapBradleyTerry } from '../../../src/core/stats/rating-bootstrap.ts';
import { comparisonGroups } from '../../../src/core/stats/estimable-fit.ts';
import { percentileInterval, quantileSorted, ranksFromIntervals } from '../../../src/core/stats/bootstrap.ts';
import { calibrate, conflictByGap, entropy, parseScores } from '../../../src/core/stats/calibration.ts';
import { cohensKappa, comparisons, kappaTable } from '../../../src/core/stats/kappa.ts';
import { lengthControlledWinRates, longerShare } from '../../../src/core/stats/length.ts';
import { normal, seededRng } from '../../../src/core/stats/random.ts';
import { parseReviewLabels, selectForReview, compareLabels } from '../../../src/core/stats/review.ts';
import type { Vote } from '../../../src/core/types.ts';
import { toPosition } from '../../../src/core/verdict/parse.ts';

const g = (
  q: number,
  order: 'AB' | 'BA',
  verdict: BiasGame['verdict'],
  extra: Partial<BiasGame> = {},
): BiasGame => ({
  questionId: q,
  category: 'writing',
  turn: 1,
  model1: 'x',
  model2: 'y',
  order,
  verdict,
  ...extra,
});

describe('position bias', () => {
  it('maps verdicts to the position they picked', () => {
    expect(toPosition('model_1', 'AB')).toBe('A');
    expect(toPosition('model_1', 'BA')).toBe('B');
    expect(toPosition('model_2', 'BA')).toBe('A');
    expect(toPosition('tie', 'AB')).toBe('tie');
  });

  it('per-order win rates, conflict rate and the favoured position of a hand-made judge', () => {
    const games = [
      // q1: consistent x (AB: x, BA: x)
      g(1, 'AB', 'model_1'),
      g(1, 'BA', 'model_1'),
      // q2: position A both times (AB: x, BA: y) -> conflict favouring first
      g(2, 'AB', 'model_1'),
      g(2, 'BA', 'model_2'),
      // q3: position A both times again
      g(3, 'AB', 'model_1'),
      g(3, 'BA', 'model_2'),
      // q4: position B both times (AB: y, BA: x)
      g(4, 'AB', 'model_2'),
      g(4, 'BA', 'model_1'),
      // q5: one tie -> conflict with a tie
      g(5, 'AB', 'tie'),
      g(5, 'BA', 'model_1'),
      // q6: an error -> not a complete match; the other game still counts
      g(6, 'AB', 'error'),
      g(6, 'BA', 'model_2'),
    ];
    const [r] = positionBias(games);
    // x shown first (AB, non-error): q1..q5 -> x won q1,q2,q3 = 3 of 5
    expect(r!.winFirst).toBeCloseTo(3 / 5, 12);
    // x shown second (BA): q1..q6 -> x won q1,q4,q5 = 3 of 6
    expect(r!.winSecond).toBeCloseTo(3 / 6, 12);
    // decisive games: 10 (11 non-error minus 1 tie); position A picked: AB x (q1,q2,q3) + BA y (q2,q3,q6) = 6
    expect(r!.positionA).toBeCloseTo(6 / 10, 12);
    expect(r!.games).toBe(12);
    expect(r!.errors).toBe(1);
    expect(r!.matches).toBe(5);
    expect(r!.conflict).toBeCloseTo(4 / 5, 12);
    expect([r!.favoursFirst, r!.favoursSecond, r!.withTie]).toEqual([2, 1, 1]);
  });

  it('groups by category and turn', () => {
    const rows = positionBias(
      [
        g(1, 'AB', 'model_1'),
        g(1, 'BA', 'model_2'),
        g(2, 'AB', 'model_1', { category: 'math', turn: 2 }),
        g(2, 'BA', 'model_1', { category: 'math', turn: 2 }),
      ],
      ['category', 'turn'],
    );
    expect(rows.map((r) => [r.category, r.turn, r.conflict])).toEqual([
      ['math', 2, 0],
      ['writing', 1, 1],
    ]);
  });

  it('conflict rate from recorded combined outcomes leaves errors out', () => {
    const o = (outcome: 'model_1' | 'tie' | 'inconsistent' | 'error', m1 = 'a', m2 = 'b') => ({
      questionId: 1,
      turn: 1,
      category: 'c',
      model1: m1,
      model2: m2,
      outcome,
    });
    const [all] = conflictFromOutcomes([
      o('model_1'),
      o('inconsistent'),
      o('inconsistent', 'b', 'a'),
      o('tie'),
      o('error'),
    ]);
    expect(all).toMatchObject({ pair: '*', matches: 4, inconsistent: 2, conflict: 0.5, ties: 1 });
    const byPair = conflictFromOutcomes([o('inconsistent'), o('model_1', 'b', 'a')], ['pair']);
    expect(byPair).toHaveLength(1); // orientation does not split a pair
  });
});

describe("Cohen's kappa", () => {
  it('matches the textbook example (Wikipedia: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> 0.4)', () => {
    const pairs: [string, string][] = [
      ...Array(20).fill(['y', 'y']),
      ...Array(5).fill(['y', 'n']),
      ...Array(10).fill(['n', 'y']),
      ...Array(15).fill(['n', 'n']),
    ];
    expect(cohensKappa(pairs)).toBeCloseTo(0.4, 12);
  });

  it('is 1 for perfect agreement and about 0 for independent raters', () => {
    expect(
      cohensKappa([
        ['a', 'a'],
        ['b', 'b'],
        ['t', 't'],
      ]),
    ).toBe(1);
    const rng = seededRng(5);
    const pick = () => ['a', 'b', 'tie'][Math.floor(rng() * 3)]!;
    expect(
      Math.abs(cohensKappa(Array.from({ length: 20000 }, () => [pick(), pick()] as [string, string]))),
    ).toBeLessThan(0.02);
  });

  it("the kappa table's agreement ratios are exactly agreement()'s, and intervals bracket kappa", () => {
    const rng = seededRng(11);
    const votes = (judge: string, bias: number): Vote[] => {
      const out: Vote[] = [];
      for (let q = 1; q <= 40; q++)
        for (const turn of [1, 2]) {
          const r = rng() + bias * (q % 3 === 0 ? 1 : 0);
          out.push({
            judge,
            voter: judge,
            questionId: q,
            turn,
            model1: 'm1',
            model2: 'm2',
            winner: r < 0.4 ? 'model_1' : r < 0.8 ? 'model_2' : 'tie',
          });
        }
      return out;
    };
    const v1 = votes('j1', 0);
    const v2 = votes('j2', 0.3);
    const rows = kappaTable(comparisons(v1, v2), { rounds: 300, seed: 3 });
    const ref = agreement(v1, v2);
    for (const r of ref) {
      const k = rows.find((x) => x.turn === r.turn && x.setup === r.setup && x.category === 'all')!;
      expect([k.total, k.agree, k.ratio]).toEqual([r.total, r.agree, r.ratio]);
      if (k.questions < 30)
        expect([k.lo, k.hi]).toEqual([null, null]); // too few questions: no interval (MIN_KAPPA_QUESTIONS)
      else {
        expect(k.lo).toBeLessThanOrEqual(k.kappa);
        expect(k.hi).toBeGreaterThanOrEqual(k.kappa);
      }
    }
    // the same judge twice: totals count unordered pairs, as agreement(votes, 'same') does
    const twice = [
      ...v1,
      ...v1.map((v) => ({
        ...v,
        voter: 'other',
        winner: v.winner === 'tie' ? ('model_1' as const) : v.winner,
      })),
    ];
    const same = kappaTable(comparisons(twice, 'same'), { rounds: 50, same: true });
    const sameRef = agreement(twice, 'same');
    for (const r of sameRef)
      expect(same.find((x) => x.turn === r.turn && x.setup === r.setup)!.total).toBe(r.total);
  });
});

describe('bootstrap helpers', () => {
  it("quantiles interpolate linearly as numpy's default", () => {
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantileSorted([0, 10], 0.025)).toBeCloseTo(0.25, 12);
    expect(percentileInterval([5, 1, 4, 2, 3, NaN], 0.5)).toEqual({ lo: 2, hi: 4 });
  });

  it('reports groups of models that were never compared', () => {
    const t = battleTable([
      { cluster: 1, a: 'a', b: 'b', score: 1 },
      { cluster: 1, a: 'c', b: 'd', score: 0 },
      { cluster: 2, a: 'b', b: 'e', score: 0.5 },
    ]);
    expect(comparisonGroups(t.pairs)).toEqual([
      ['a', 'b', 'e'],
      ['c', 'd'],
    ]);
    expect(bootstrapBradleyTerry(t, { rounds: 20 }).disconnected).toEqual([
      ['a', 'b', 'e'],
      ['c', 'd'],
    ]);
    expect(
      bootstrapBradleyTerry(battleTable([{ cluster: 1, a: 'a', b: 'b', score: 1 }]), { rounds: 20 })
        .disconnected,
    ).toBeUndefined();
  });

  it('rank = 1 + the number of intervals wholly above', () => {
    expect(
      ranksFromIntervals([
        { lo: 10, hi: 20 },
        { lo: 15, hi: 25 },
        { lo: 0, hi: 9 },
        { lo: 0, hi: 14 },
      ]),
    ).toEqual([1, 1, 3, 2]);
  });

  it('is reproducible from its seed, and question-level intervals are wider than game-level ones when a question decides all its games', () => {
    const rng = seededRng(1);
    const battles = [];
    for (let q = 0; q < 60; q++) {
      const winner = rng() < 0.65 ? 'a' : 'b'; // every game of a question goes the same way
      for (let k = 0; k < 8; k++)
        battles.push({ cluster: q, a: 'a', b: 'b', score: (winner === 'a' ? 1 : 0) as 0 | 1 });
    }
    const t = battleTable(battles);
    const q1 = bootstrapBradleyTerry(t, { rounds: 300, seed: 4 });
    const q2 = bootstrapBradleyTerry(t, { rounds: 300, seed: 4 });
    expect(q2).toEqual(q1);
    const gl = bootstrapBradleyTerry(t, { rounds: 300, seed: 4, unit: 'game' });
    const width = (r: typeof q1) => r.rows[0]!.hi! - r.rows[0]!.lo!;
    expect(width(q1)).toBeGreaterThan(2 * width(gl)); // sqrt(8) ≈ 2.8 in theory
    expect(q1.rows[0]).toMatchObject({ model: 'a', rank: 1 });
    expect(q1.rows[1]).toMatchObject({ model: 'b', rank: 2 });
  });
});

describe('length awareness', () => {
  it('counts decisive verdicts that went to the longer answer', () => {
    const m = (len1: number, len2: number, outcome: 'model_1' | 'model_2' | 'tie') => ({
      model1: 'x',
      model2: 'y',
      len1,
      len2,
      outcome,
    });
    expect(
      longerShare([
        m(10, 5, 'model_1'),
        m(10, 5, 'model_2'),
        m(3, 9, 'model_2'),
        m(4, 4, 'model_1'),
        m(1, 2, 'tie'),
      ]),
    ).toEqual({ decisive: 3, toLonger: 2, share: 2 / 3, equalLength: 1 });
  });

  it('the length-controlled win rate removes a length advantage', () => {
    const rng = seededRng(8);
    // "verbose" equals "terse" in quality but is always 500 chars longer, and the judge likes length
    const matches = Array.from({ length: 4000 }, () => {
      const d = 500 + 400 * normal(rng);
      return {
        model1: 'verbose',
        model2: 'terse',
        len1: 1000 + d,
        len2: 1000,
        outcome: (rng() < 1 / (1 + Math.exp(-(d / 1000) * 2)) ? 'model_1' : 'model_2') as
          'model_1' | 'model_2',
      };
    });
    const r = lengthControlledWinRates(matches, { rounds: 50 });
    const v = r.models.find((x) => x.model === 'verbose')!;
    expect(v.winRate).toBeGreaterThan(0.65);
    expect(Math.abs(v.lcWinRate! - 0.5)).toBeLessThan(0.04);
    // the truth is linear (2 log-odds per 1,000 characters); the joint model bounds it with tanh, so only
    // its sign and its interval are checked here (tests/core/stats/length-model.test.ts checks the fit itself)
    expect(r.effect!.coefficient).toBeGreaterThan(0);
    expect(r.effect!.lo).toBeGreaterThan(0);
  });
});

describe('MEC + BPC', () => {
  const reply = (s1: number | string, s2: number | string) =>
    `Evaluation evidence: fine.\nScore of the Assistant 1: ${s1}\nScore of the Assistant 2: ${s2}`;

  it('parses both scores (the last ones given), and refuses missing or out-of-range scores', () => {
    expect(parseScores(reply(7, 8.5))).toEqual({ first: 7, second: 8.5 });
    expect(parseScores(`Output: Score of the Assistant 1: <score>\n${reply(3, 4)}`)).toEqual({
      first: 3,
      second: 4,
    });
    expect(parseScores(reply('ten', 9))).toBeNull();
    expect(parseScores(reply(11, 9))).toBeNull();
    expect(parseScores('Score of the Assistant 1: 5')).toBeNull();
  });

  it('averages samples per order, then both orders; unparsable samples are excluded and counted', () => {
    const m = calibrate([
      // AB: model 1 shown first. Samples: (8,6), (9,6), unparsable
      { order: 'AB', sample: 0, reply: reply(8, 6) },
      { order: 'AB', sample: 1, reply: reply(9, 6) },
      { order: 'AB', sample: 2, reply: 'no scores' },
      // BA: model 2 shown first. Samples: first=model 2. (8,5) -> m1 5, m2 8; (7,7)
      { order: 'BA', sample: 0, reply: reply(8, 5) },
      { order: 'BA', sample: 1, reply: reply(7, 7) },
    ]);
    expect(m.ab).toEqual({ s1: 8.5, s2: 6 });
    expect(m.ba).toEqual({ s1: 6, s2: 7.5 });
    expect(m.score1).toBeCloseTo(7.25, 12);
    expect(m.score2).toBeCloseTo(6.75, 12);
    expect(m.verdict).toBe('model_1');
    expect([m.validAB, m.validBA, m.unparsable]).toEqual([2, 2, 1]);
    // sample verdicts: m1, m1, m2, tie -> entropy of (2, 1, 1) = 1.5 bits
    expect(m.entropy).toBeCloseTo(1.5, 12);
    expect(m.single).toEqual({ ab: 'model_1', ba: 'model_2' });
  });

  it('a match with no valid sample in an order is an error with a reason, never NaN', () => {
    const m = calibrate([
      { order: 'AB', sample: 0, reply: reply(8, 6) },
      { order: 'BA', sample: 0, reply: 'nothing' },
    ]);
    expect(m.verdict).toBe('error');
    expect(m.score1).toBeNull();
    expect(m.error).toBe('no valid sample in order BA (1 unparsable of 2)');
    expect(calibrate([]).error).toBe('no valid sample in order AB or BA (0 unparsable of 0)');
  });

  it('entropy in bits, and conflicts by score gap', () => {
    expect(entropy([1, 1])).toBe(1);
    expect(entropy([3, 0, 0])).toBe(0);
    expect(entropy([1, 1, 1, 1])).toBe(2);
    const close = calibrate([
      { order: 'AB', sample: 0, reply: reply(7, 6) },
      { order: 'BA', sample: 0, reply: reply(7, 6) },
    ]); // gap 0, conflict
    const far = calibrate([
      { order: 'AB', sample: 0, reply: reply(9, 3) },
      { order: 'BA', sample: 0, reply: reply(4, 8) },
    ]); // gap 5, agree
    const rows = conflictByGap([close, far]);
    expect(rows[0]).toMatchObject({ from: 0, matches: 1, conflicts: 1, conflict: 1 });
    expect(rows.at(-1)).toMatchObject({ from: 3, matches: 1, conflicts: 0, conflict: 0 });
  });
});

describe('review queue', () => {
  it('takes the top β by entropy (rounded up), errors first', () => {
    const items = [0.2, 1.5, 0, 0.9, 1.0, 0.3, 1.2, 0.1, 0.5, 0.7].map((entropy, k) => ({
      k,
      entropy,
      verdict: k === 9 ? 'error' : 'model_1',
    }));
    expect(selectForReview(items, 0.2).map((x) => x.k)).toEqual([9, 1]);
    expect(selectForReview(items, 0.25).map((x) => x.k)).toEqual([9, 1, 6]);
    expect(() => selectForReview(items, 2)).toThrow(/beta must lie in \[0, 1\]/);
  });

  it('parses labels, skips unlabelled lines, and names the line and field of a bad one', () => {
    const ok = [
      { questionId: 1, turn: 1, model1: 'a', model2: 'b', label: 'tie' },
      { questionId: 2, turn: 2, model1: 'a', model2: 'b', label: null },
    ]
      .map((x) => JSON.stringify(x))
      .join('\n');
    const r = parseReviewLabels('q.jsonl', ok);
    expect(r.unlabelled).toBe(1);
    expect(r.labels).toEqual([
      { questionId: 1, turn: 1, model1: 'a', model2: 'b', label: 'tie', voter: 'reviewer', line: 1 },
    ]);
    expect(() =>
      parseReviewLabels(
        'q.jsonl',
        `${ok}\n{"questionId": 3, "turn": 0, "model1": "a", "model2": "b", "label": "tie"}`,
      ),
    ).toThrow('q.jsonl:3: field "turn": expected a positive integer, got 0');
    expect(() => parseReviewLabels('q.jsonl', '{"questionId": 3,')).toThrow(/^q\.jsonl:1: malformed JSON/);
  });

  it('accuracy and kappa of labels', () => {
    expect(compareLabels([])).toEqual({ n: 0, accuracy: null, kappa: null });
    const c = compareLabels([
      ['a', 'a'],
      ['b', 'b'],
      ['error', 'a'],
      ['b', 'a'],
    ]);
    expect(c.accuracy).toBe(0.5);
    expect(c.n).toBe(4);
  });
});
