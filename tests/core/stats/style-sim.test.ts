// Simulation: do style control's 95% question-bootstrap intervals cover the true style coefficients and
// style-controlled ratings 93–97% of the time? Each answer's length and list count are drawn once per question
// (so a question's battles are correlated), the judge follows the contextual Bradley–Terry model with 20% ties;
// the truth is the fit on 8,000 questions.
import { describe, expect, it } from 'vitest';
import { normal, seededRng, type Rng } from '../../../src/core/stats/random.ts';
import { styleControl, type StyleBattle } from '../../../src/core/stats/style.ts';

const MODELS = 6;
const QUESTIONS = 80;
const TOURNAMENTS = Number(process.env.STYLE_SIM_TOURNAMENTS ?? 120);
const ROUNDS = Number(process.env.STYLE_SIM_ROUNDS ?? 400);
const THETA = [0.3, 0.15, 0.05, -0.05, -0.15, -0.3]; // log10 units
const MEAN_LEN = [1400, 900, 1100, 700, 1000, 600];
const LIST_RATE = [4, 1, 2, 0.5, 3, 0.5];
const BETA = { length: 2.0, lists: 0.8 }; // per unit of the normalised difference (a − b)/(a + b + 1)
const names = THETA.map((_, k) => `m${k}`);

function poisson(rng: Rng, mean: number): number {
  const l = Math.exp(-mean);
  let k = 0;
  let p = rng();
  while (p > l) {
    k++;
    p *= rng();
  }
  return k;
}

const answer = (rng: Rng, m: number) => ({
  length: Math.round(MEAN_LEN[m]! * Math.exp(0.5 * normal(rng))),
  headers: 0,
  lists: poisson(rng, LIST_RATE[m]!),
  bold: 0,
});
const norm = (a: number, b: number) => (a - b) / (a + b + 1);

function tournament(rng: Rng): StyleBattle[] {
  const out: StyleBattle[] = [];
  for (let q = 0; q < QUESTIONS; q++) {
    const style = THETA.map((_, m) => answer(rng, m));
    for (let a = 0; a < MODELS; a++)
      for (let b = a + 1; b < MODELS; b++) {
        const sa = style[a]!;
        const sb = style[b]!;
        const eta =
          Math.LN10 * (THETA[a]! - THETA[b]!) +
          BETA.length * norm(sa.length, sb.length) +
          BETA.lists * norm(sa.lists, sb.lists);
        const u = rng();
        // ties: 20% of battles, otherwise the logistic model (a tie scores 1/2, as the likelihood counts it)
        const score = u < 0.2 ? 0.5 : rng() < 1 / (1 + Math.exp(-eta)) ? 1 : 0;
        out.push({
          a: names[a]!,
          b: names[b]!,
          score: score as 0 | 0.5 | 1,
          cluster: q,
          styleA: sa,
          styleB: sb,
        });
      }
  }
  return out;
}

/** Root mean square of each normalised difference over the generator's pairs (a million draws). */
function populationRms(): { length: number; lists: number } {
  const rng = seededRng(99);
  let l = 0;
  let s = 0;
  let n = 0;
  for (let k = 0; k < 1_000_000 / 15; k++)
    for (let a = 0; a < MODELS; a++)
      for (let b = a + 1; b < MODELS; b++) {
        const x = answer(rng, a);
        const y = answer(rng, b);
        l += norm(x.length, y.length) ** 2;
        s += norm(x.lists, y.lists) ** 2;
        n++;
      }
  return { length: Math.sqrt(l / n), lists: Math.sqrt(s / n) };
}

describe('style control intervals (simulation)', () => {
  it(`95% question-bootstrap intervals cover the true coefficients and ratings 93–97% of the time over ${TOURNAMENTS} tournaments`, () => {
    const rms = populationRms();
    // with 20% ties scored 1/2 the expected score is 0.1 + 0.8 σ(η), whose logit is not η: the estimand is
    // what the fit converges to, so the truth is the fit on 100 tournaments' battles pooled (8,000 questions)
    const big = styleControl(
      Array.from({ length: 100 }, (_, k) => tournament(seededRng(5000 + k))).flat(),
      ['length', 'markdown'],
      { rounds: 1 },
    );
    const truth = {
      length: big.features.find((f) => f.feature === 'length')!.coefficient,
      lists: big.features.find((f) => f.feature === 'lists')!.coefficient,
    };
    const trueRating = new Map(big.rows.map((r) => [r.model, r.rating]));
    const rng = seededRng(424242);
    const covered = { length: 0, lists: 0, ratings: 0 };
    for (let t = 0; t < TOURNAMENTS; t++) {
      const r = styleControl(tournament(rng), ['length', 'markdown'], { rounds: ROUNDS, seed: 100 + t });
      for (const f of r.features)
        if (
          f.lo! <= truth[f.feature as 'length' | 'lists'] &&
          truth[f.feature as 'length' | 'lists'] <= f.hi!
        )
          covered[f.feature as 'length' | 'lists']++;
      for (const row of r.rows)
        if (row.lo! <= trueRating.get(row.model)! && trueRating.get(row.model)! <= row.hi!) covered.ratings++;
    }
    const pct = (x: number, of: number) => `${((100 * x) / of).toFixed(1)}%`;
    console.log(
      `style control coverage over ${TOURNAMENTS} tournaments (nominal 95%): length coefficient ${pct(covered.length, TOURNAMENTS)}, lists coefficient ${pct(covered.lists, TOURNAMENTS)}, style-controlled ratings ${pct(covered.ratings, TOURNAMENTS * MODELS)} ` +
        `(true coefficients per sd: length ${truth.length.toFixed(3)} = ${(truth.length / rms.length).toFixed(2)} per unit, lists ${truth.lists.toFixed(3)} = ${(truth.lists / rms.lists).toFixed(2)} per unit)`,
    );
    const both = (covered.length + covered.lists) / (2 * TOURNAMENTS);
    expect(both).toBeGreaterThanOrEqual(0.93);
    expect(both).toBeLessThanOrEqual(0.97);
    expect(covered.ratings / (TOURNAMENTS * MODELS)).toBeGreaterThanOrEqual(0.93);
    expect(covered.ratings / (TOURNAMENTS * MODELS)).toBeLessThanOrEqual(0.97);
  }, 1_200_000);
});
