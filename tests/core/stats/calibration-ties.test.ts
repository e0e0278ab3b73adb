// MEC + BPC must decide exact ties exactly (means of k samples are not exact floats): expectations worked out
// with fractions, and a brute force over small score patterns against an exact rational comparison.
import { describe, expect, it } from 'vitest';
import { calibrate, type ScoreSample } from '../../../src/core/stats/calibration.ts';

const reply = (a: number | string, b: number | string) =>
  `Evaluation evidence: ...\nScore of the Assistant 1: ${a}\nScore of the Assistant 2: ${b}`;

/** AB samples give (model 1, model 2) as (first, second); BA samples show model 2 first. */
function samples(ab: [number, number][], ba: [number, number][]): ScoreSample[] {
  return [
    ...ab.map(([s1, s2], k) => ({ order: 'AB' as const, sample: k, reply: reply(s1, s2) })),
    ...ba.map(([s1, s2], k) => ({ order: 'BA' as const, sample: k, reply: reply(s2, s1) })),
  ];
}

describe('MEC + BPC: exact ties (issue #13, defect 1)', () => {
  it("the issue's example: model 1 scores 6,6,6 and 7,7,6, model 2 6,6,7 and 6,6,7: both average 19/3, a tie", () => {
    // model 1: (6+6+6)/3 = 6 and (7+7+6)/3 = 20/3, BPC (6 + 20/3)/2 = 19/3
    // model 2: (6+6+7)/3 = 19/3 in both orders, BPC 19/3
    const m = calibrate(
      samples(
        [
          [6, 6],
          [6, 6],
          [6, 7],
        ],
        [
          [7, 6],
          [7, 6],
          [6, 7],
        ],
      ),
    );
    expect(m.verdict).toBe('tie');
  });

  it('different sample counts per order (2 and 3 valid) still compare exactly', () => {
    // AB: model 1 (7+8)/2 = 15/2, model 2 (7+7)/2 = 7 -> +1/2; BA: model 1 (6+6+6)/3 = 6, model 2 (6+7+6.5)/3 = 19.5/3 = 6.5 -> -1/2
    const m = calibrate([
      ...samples(
        [
          [7, 7],
          [8, 7],
        ],
        [
          [6, 6],
          [6, 7],
          [6, 6.5],
        ],
      ),
      { order: 'AB', sample: 9, reply: 'no scores' },
    ]);
    expect(m.verdict).toBe('tie');
    expect(m.unparsable).toBe(1);
  });

  it('over every pattern of 3 samples per order with scores 5..7, the verdict is the exact rational comparison', () => {
    // exact: sum over orders of (sum of model-1 scores - sum of model-2 scores) / n, with a common denominator
    const scores = [5, 6, 7];
    const triples: [number, number][][] = [];
    const pairs: [number, number][] = scores.flatMap((a) => scores.map((b) => [a, b] as [number, number]));
    // a deterministic subset of all (9^3)^2 patterns: every AB triple against 40 BA triples
    for (let x = 0; x < 729; x++)
      triples.push([pairs[x % 9]!, pairs[Math.floor(x / 9) % 9]!, pairs[Math.floor(x / 81)]!]);
    let ties = 0;
    let wrong = 0;
    for (let x = 0; x < 729; x++)
      for (let y = 0; y < 729; y += 19) {
        const ab = triples[x]!;
        const ba = triples[y]!;
        const d = (t: [number, number][]) => t.reduce((s, [a, b]) => s + a - b, 0); // integer sums, n = 3 both
        const exact = Math.sign(d(ab) + d(ba));
        if (exact === 0) ties++;
        const v = calibrate(samples(ab, ba)).verdict;
        if (v !== (exact > 0 ? 'model_1' : exact < 0 ? 'model_2' : 'tie')) wrong++;
      }
    expect(ties).toBeGreaterThan(1000);
    expect(wrong).toBe(0);
  });
});
