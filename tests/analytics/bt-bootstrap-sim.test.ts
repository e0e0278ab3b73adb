// Simulation: do the 95% bootstrap intervals of Bradley–Terry ratings cover the truth 95% of the time?
// Tournaments are drawn from known strengths with per-question difficulty (a tie rate) and per-question
// model effects shared by both turns and both orders, so games of a question are correlated: resampling
// questions should cover about 95%, resampling single games (which ignores that) visibly less.
import { describe, expect, it } from 'vitest';
import { battleTable, bootstrapRatingSamples, columnIntervals, type ClusteredBattle } from '../../src/core/bootstrap.ts';
import { normal, seededRng, type Rng } from '../../src/core/random.ts';
import { fitBradleyTerry, type CollapsedBattles } from '../../src/core/ratings.ts';

const MODELS = 8;
const QUESTIONS = 80;
const TOURNAMENTS = 200;
const ROUNDS = 200;
const THETA = Array.from({ length: MODELS }, (_, k) => -0.35 + (0.7 * k) / (MODELS - 1)); // log10 units
const EFFECT_SD = 0.7; // per (question, model) effect, natural logit units
const TIE_MIN = 0.05;
const TIE_MAX = 0.45;
const names = THETA.map((_, k) => `m${k}`);

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** E[sigmoid(a + e)] for e ~ N(0, sd^2), by the trapezoid rule on ±10 sd (independent of the code under test). */
function expectedLogistic(a: number, sd: number): number {
  const steps = 4000;
  const h = (20 * sd) / steps;
  let sum = 0;
  for (let k = 0; k <= steps; k++) {
    const e = -10 * sd + k * h;
    const wgt = k === 0 || k === steps ? 0.5 : 1;
    sum += wgt * sigmoid(a + e) * Math.exp((-e * e) / (2 * sd * sd));
  }
  return (sum * h) / (sd * Math.sqrt(2 * Math.PI));
}

/** The population Bradley–Terry ratings this generator implies: the estimand of the fit. */
function trueRatings(): Float64Array {
  const meanTie = (TIE_MIN + TIE_MAX) / 2;
  const c: CollapsedBattles = { models: names, i: new Int32Array(0), j: new Int32Array(0), w: new Float64Array(0), s: new Float64Array(0) };
  const i: number[] = [];
  const j: number[] = [];
  const s: number[] = [];
  for (let a = 0; a < MODELS; a++)
    for (let b = a + 1; b < MODELS; b++) {
      i.push(a);
      j.push(b);
      const pWin = expectedLogistic(Math.LN10 * (THETA[a]! - THETA[b]!), EFFECT_SD * Math.SQRT2);
      s.push(meanTie * 0.5 + (1 - meanTie) * pWin);
    }
  c.i = Int32Array.from(i);
  c.j = Int32Array.from(j);
  c.w = new Float64Array(i.length).fill(1);
  c.s = Float64Array.from(s);
  return fitBradleyTerry(c);
}

function tournament(rng: Rng): ClusteredBattle[] {
  const out: ClusteredBattle[] = [];
  for (let q = 0; q < QUESTIONS; q++) {
    const tie = TIE_MIN + (TIE_MAX - TIE_MIN) * rng();
    const effect = THETA.map(() => EFFECT_SD * normal(rng));
    for (let a = 0; a < MODELS; a++)
      for (let b = a + 1; b < MODELS; b++) {
        const p = sigmoid(Math.LN10 * (THETA[a]! - THETA[b]!) + effect[a]! - effect[b]!);
        for (let game = 0; game < 4; game++) {
          // two turns x two orders of the same question
          const score = rng() < tie ? 0.5 : rng() < p ? 1 : 0;
          out.push({ cluster: q, a: names[a]!, b: names[b]!, score: score as 0 | 0.5 | 1 });
        }
      }
  }
  return out;
}

describe('bootstrap intervals of Bradley–Terry ratings (simulation)', () => {
  it(`question-level 95% intervals cover the truth 93–97% of the time over ${TOURNAMENTS} tournaments; game-level covers visibly less`, () => {
    const truth = trueRatings();
    const rng = seededRng(20240611);
    const covered = { question: 0, game: 0 };
    let total = 0;
    for (let t = 0; t < TOURNAMENTS; t++) {
      const table = battleTable(tournament(rng));
      const full = fitBradleyTerry(table.pairs);
      const order = table.pairs.models.map((m) => names.indexOf(m));
      for (const unit of ['question', 'game'] as const) {
        const iv = columnIntervals(bootstrapRatingSamples(table, { unit, rounds: ROUNDS, seed: 1000 + t, init: full }), MODELS, 0.95);
        iv.forEach((x, k) => {
          const tr = truth[order[k]!]!;
          if (x.lo <= tr && tr <= x.hi) covered[unit]++;
        });
      }
      total += MODELS;
    }
    const q = covered.question / total;
    const g = covered.game / total;
    console.log(`coverage over ${TOURNAMENTS} tournaments x ${MODELS} models: question-level ${(100 * q).toFixed(1)}%, game-level ${(100 * g).toFixed(1)}%`);
    expect(q).toBeGreaterThanOrEqual(0.93);
    expect(q).toBeLessThanOrEqual(0.97);
    expect(g).toBeLessThan(q - 0.1);
  });
});
