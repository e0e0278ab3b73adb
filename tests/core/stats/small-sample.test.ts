// Below MIN_QUESTIONS_FOR_INTERVALS questions the question bootstrap and sandwich undercover (87.8% at 10 questions):
// no 95% interval or rank range, and the note says why; at or above it, both are shown.
import { describe, expect, it } from 'vitest';
import { battleTable, type ClusteredBattle } from '../../../src/core/stats/battle-table.ts';
import { bootstrapBradleyTerry } from '../../../src/core/stats/rating-bootstrap.ts';
import { MIN_QUESTIONS_FOR_INTERVALS } from '../../../src/core/stats/rating-rows.ts';
import { sandwichBradleyTerry } from '../../../src/core/stats/sandwich.ts';
import { seededRng } from '../../../src/core/stats/random.ts';

const STRENGTH: Record<string, number> = { a: 1, b: 0.3, c: -0.3, d: -1 };

function battles(questions: number): ClusteredBattle[] {
  const rng = seededRng(9);
  const out: ClusteredBattle[] = [];
  const ms = Object.keys(STRENGTH);
  for (let q = 0; q < questions; q++)
    for (let i = 0; i < ms.length; i++)
      for (let j = i + 1; j < ms.length; j++)
        for (let g = 0; g < 2; g++) {
          const p = 1 / (1 + Math.exp(-(STRENGTH[ms[i]!]! - STRENGTH[ms[j]!]!)));
          out.push({ cluster: q, a: ms[i]!, b: ms[j]!, score: rng() < p ? 1 : 0 });
        }
  return out;
}

describe('small samples: no interval and no rank range below the question minimum', () => {
  it('the threshold is one named constant, 30 questions', () => {
    expect(MIN_QUESTIONS_FOR_INTERVALS).toBe(30);
  });

  for (const [name, fit] of [
    ['bootstrap', (t: ReturnType<typeof battleTable>) => bootstrapBradleyTerry(t, { rounds: 200 })],
    ['sandwich', (t: ReturnType<typeof battleTable>) => sandwichBradleyTerry(t)],
  ] as const)
    it(`${name}: 10 questions give ratings without intervals or rank ranges, saying why; 30 give both`, () => {
      const few = fit(battleTable(battles(10)));
      expect(few.fewQuestions).toBe(10);
      for (const r of few.rows) {
        expect(r.rating, r.model).not.toBeNull();
        expect([r.lo, r.hi, r.rankBest, r.rankWorst, r.marginalRankBest, r.marginalRankWorst]).toEqual([
          null,
          null,
          null,
          null,
          null,
          null,
        ]);
        expect(r.note).toBe(
          'rated on 10 questions (fewer than 30): the question bootstrap needs about 30 for a 95% interval to hold, so no interval or rank range is shown',
        );
      }
      const enough = fit(battleTable(battles(MIN_QUESTIONS_FOR_INTERVALS)));
      expect(enough.fewQuestions).toBeUndefined();
      for (const r of enough.rows) {
        expect(r.lo, r.model).not.toBeNull();
        expect(r.rankBest, r.model).not.toBeNull();
        expect(r.note).toBeUndefined();
      }
    });
});
