// Issue #13, defect 5: small-sample and degenerate kappa. Expected values are worked out by hand, and the
// count of undefined bootstrap rounds is recomputed here from the drawn questions, without src/core/stats/kappa.
import { describe, expect, it } from 'vitest';
import { drawClusterCounts } from '../../../src/core/stats/bootstrap.ts';
import {
  cohensKappa,
  comparisons,
  kappaFromConfusion,
  kappaTable,
  MIN_KAPPA_QUESTIONS,
  type Comparison,
} from '../../../src/core/stats/kappa.ts';
import { seededRng } from '../../../src/core/stats/random.ts';
import type { Vote } from '../../../src/core/types.ts';

const vote = (judge: string, q: number, winner: Vote['winner'], turn = 1): Vote => ({
  judge,
  voter: judge,
  questionId: q,
  turn,
  model1: 'x',
  model2: 'y',
  winner,
});

describe('kappa is undefined when chance agreement is 1 (issue #13, defect 5)', () => {
  it('both raters always give the same single label: po = pe = 1, kappa = 0/0', () => {
    expect(
      Number.isNaN(
        cohensKappa([
          ['a', 'a'],
          ['a', 'a'],
          ['a', 'a'],
        ]),
      ),
    ).toBe(true);
    expect(Number.isNaN(kappaFromConfusion([5, 0, 0, 0, 0, 0, 0, 0, 0], 3))).toBe(true);
    // one rater constant, the other not: pe = 0.5·1 + ... < 1, kappa defined (0 here)
    expect(
      cohensKappa([
        ['a', 'a'],
        ['a', 'b'],
      ]),
    ).toBe(0);
  });

  it('a table row with one label throughout says so and has no interval', () => {
    const v1 = Array.from({ length: 40 }, (_, q) => vote('j1', q + 1, 'model_1'));
    const v2 = Array.from({ length: 40 }, (_, q) => vote('j2', q + 1, 'model_1'));
    const row = kappaTable(comparisons(v1, v2), { rounds: 50 }).find((r) => r.setup === 'with-tie')!;
    expect(Number.isNaN(row.kappa)).toBe(true);
    expect(row).toMatchObject({
      ratio: 1,
      lo: null,
      hi: null,
      questions: 40,
      note: expect.stringMatching(/^kappa undefined: chance agreement is 1/),
    });
  });
});

describe('small samples (issue #13, defect 5)', () => {
  it(`a category on 10 questions (fewer than ${MIN_KAPPA_QUESTIONS}) gets a warning and no interval; the whole turn gets its interval`, () => {
    expect(MIN_KAPPA_QUESTIONS).toBe(30);
    const rng = seededRng(2);
    const pick = (): Vote['winner'] => (['model_1', 'model_2', 'tie'] as const)[Math.floor(rng() * 3)]!;
    const v1: Vote[] = [];
    const v2: Vote[] = [];
    for (let q = 1; q <= 80; q++) {
      const w = pick();
      v1.push(vote('j1', q, w));
      v2.push(vote('j2', q, rng() < 0.7 ? w : pick()));
    }
    const rows = kappaTable(comparisons(v1, v2), {
      rounds: 200,
      categoryOf: (q) => `cat${Math.ceil(q / 10)}`,
    });
    for (const r of rows) {
      if (r.category === 'all') {
        expect(r.questions).toBe(
          r.setup === 'with-tie'
            ? 80
            : new Set(
                v1.filter((v, k) => v.winner !== 'tie' && v2[k]!.winner !== 'tie').map((v) => v.questionId),
              ).size,
        );
        expect(r.questions).toBeGreaterThanOrEqual(30);
        expect(r.lo).not.toBeNull();
        expect(r.note).toBeUndefined();
      } else {
        expect(r.questions).toBeLessThanOrEqual(10);
        expect(r).toMatchObject({ lo: null, hi: null });
        if (Number.isNaN(r.kappa)) expect(r.note).toMatch(/^kappa undefined/);
        else
          expect(r.note).toBe(
            `${r.questions} questions (fewer than ${MIN_KAPPA_QUESTIONS}): too few for an interval`,
          );
        if (r.setup === 'with-tie') expect(Number.isFinite(r.kappa)).toBe(true); // the estimate itself is still shown
      }
    }
  });

  it('bootstrap rounds with kappa undefined are counted and reported, not silently dropped', () => {
    // 40 questions; only questions 1..3 carry a second label, so a round that draws none of them has one label only
    const comps: Comparison[] = [];
    for (let q = 1; q <= 40; q++)
      comps.push({ questionId: q, turn: 1, x: q <= 3 ? 'b' : 'a', y: q <= 3 ? (q === 1 ? 'a' : 'b') : 'a' });
    const rounds = 400;
    const [row] = kappaTable(comps, { rounds, seed: 9 }).filter((r) => r.setup === 'with-tie');
    // count the rounds again: the same seeded draws, kappa undefined exactly when no question 1..3 is drawn
    const rng = seededRng(9);
    const counts = new Float64Array(40);
    let expected = 0;
    for (let b = 0; b < rounds; b++) {
      drawClusterCounts(rng, 40, counts);
      if (!counts[0] && !counts[1] && !counts[2]) expected++;
    }
    expect(expected).toBeGreaterThan(5); // (37/40)^40 ≈ 4.4% of rounds
    expect(row!.nanRounds).toBe(expected);
    expect(row!.note).toBe(`${expected} of ${rounds} bootstrap rounds had kappa undefined and were left out`);
  });
});
