// Simulation: with question effects shared by turns and orders, resampling questions should cover the true
// Bradley–Terry ratings about 95% of the time, resampling single games visibly less.
import { describe, expect, it } from 'vitest';
import { expectedLogistic, sigmoid } from '../../support/logistic.ts';
import { battleTable, type ClusteredBattle } from '../../../src/core/stats/battle-table.ts';
import { bootstrapRatingSamples } from '../../../src/core/stats/rating-bootstrap.ts';
import { columnIntervals } from '../../../src/core/stats/bootstrap.ts';
import { normal, seededRng, type Rng } from '../../../src/core/stats/random.ts';
import { fitBradleyTerry, type CollapsedBattles } from '../../../src/core/ratings.ts';
import { sampleCovariance, simultaneousDifferences } from '../../../src/core/stats/rank-intervals.ts';
import { normalQuantile, tQuantile } from '../../../src/core/stats/normal.ts';
import { sandwichCovariance } from '../../../src/core/stats/sandwich.ts';

const MODELS = 8;
const QUESTIONS = 80;
// BT_SIM_TOURNAMENTS=800 gives tighter figures (the README quotes both)
const TOURNAMENTS = Number(process.env.BT_SIM_TOURNAMENTS ?? 200);
const ROUNDS = 200;
const THETA = Array.from({ length: MODELS }, (_, k) => -0.35 + (0.7 * k) / (MODELS - 1)); // log10 units
const EFFECT_SD = 0.7; // per (question, model) effect, natural logit units
const TIE_MIN = 0.05;
const TIE_MAX = 0.45;
const names = THETA.map((_, k) => `m${k}`);

/** The population Bradley–Terry ratings this generator implies: the estimand of the fit. */
function trueRatings(): Float64Array {
  const meanTie = (TIE_MIN + TIE_MAX) / 2;
  const c: CollapsedBattles = {
    models: names,
    i: new Int32Array(0),
    j: new Int32Array(0),
    w: new Float64Array(0),
    s: new Float64Array(0),
  };
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

describe('bootstrap and sandwich intervals of Bradley–Terry ratings (simulation)', () => {
  it(`question-level 95% intervals (bootstrap and sandwich) cover the truth 93–97% of the time over ${TOURNAMENTS} tournaments; game-level covers visibly less; simultaneous difference intervals cover all pairs together 93–97%`, () => {
    const truth = trueRatings();
    const rng = seededRng(20240611);
    const covered = { question: 0, game: 0, sandwich: 0, sandwichGame: 0 };
    // family-wise: every one of the 28 pairwise differences inside its simultaneous interval at once
    const family = { bootstrap: 0, sandwich: 0, marginalAll: 0 };
    const z = normalQuantile(0.975);
    let total = 0;
    for (let t = 0; t < TOURNAMENTS; t++) {
      const table = battleTable(tournament(rng));
      const full = fitBradleyTerry(table.pairs);
      const order = table.pairs.models.map((m) => names.indexOf(m));
      const tr = order.map((k) => truth[k]!);
      const allCovered = (d: { lo: Float64Array; hi: Float64Array }) => {
        for (let i = 0; i < MODELS; i++)
          for (let j = i + 1; j < MODELS; j++) {
            const x = tr[i]! - tr[j]!;
            if (!(d.lo[i * MODELS + j]! <= x && x <= d.hi[i * MODELS + j]!)) return false;
          }
        return true;
      };
      for (const unit of ['question', 'game'] as const) {
        const samples = bootstrapRatingSamples(table, { unit, rounds: ROUNDS, seed: 1000 + t, init: full });
        const iv = columnIntervals(samples, MODELS, 0.95);
        iv.forEach((x, k) => {
          if (x.lo <= tr[k]! && tr[k]! <= x.hi) covered[unit]++;
        });
        if (unit === 'question') {
          const se = simultaneousDifferences(full, sampleCovariance(samples, MODELS, QUESTIONS), 0.95, {
            df: QUESTIONS - 1,
            draws: 2000,
            seed: 7000 + t,
          });
          if (allCovered(se)) family.bootstrap++;
          // the same intervals without the max-t correction (1.96 per pair) cover all 28 together far less often
          const marginal = { lo: new Float64Array(MODELS * MODELS), hi: new Float64Array(MODELS * MODELS) };
          for (let k = 0; k < MODELS * MODELS; k++) {
            const mid = (se.lo[k]! + se.hi[k]!) / 2;
            const half = ((se.hi[k]! - se.lo[k]!) / 2 / se.critical) * z;
            marginal.lo[k] = mid - half;
            marginal.hi[k] = mid + half;
          }
          if (allCovered(marginal)) family.marginalAll++;
        }
      }
      for (const unit of ['question', 'game'] as const) {
        const s = sandwichCovariance(table, unit);
        const tq = tQuantile(0.975, s.clusters - 1);
        for (let k = 0; k < MODELS; k++) {
          const h = tq * Math.sqrt(s.covariance[k * MODELS + k]!);
          if (s.ratings[k]! - h <= tr[k]! && tr[k]! <= s.ratings[k]! + h)
            covered[unit === 'question' ? 'sandwich' : 'sandwichGame']++;
        }
        if (
          unit === 'question' &&
          allCovered(
            simultaneousDifferences(s.ratings, s.covariance, 0.95, {
              df: s.clusters - 1,
              draws: 2000,
              seed: 7000 + t,
            }),
          )
        )
          family.sandwich++;
      }
      total += MODELS;
    }
    const rate = (x: number, of = total) => `${((100 * x) / of).toFixed(1)}%`;
    console.log(
      `coverage over ${TOURNAMENTS} tournaments x ${MODELS} models (nominal 95%): bootstrap question-level ${rate(covered.question)}, game-level ${rate(covered.game)}; ` +
        `sandwich clustered by question ${rate(covered.sandwich)}, one cluster per game ${rate(covered.sandwichGame)}; ` +
        `all 28 differences at once: simultaneous (max-t) bootstrap ${rate(family.bootstrap, TOURNAMENTS)}, sandwich ${rate(family.sandwich, TOURNAMENTS)}, marginal 1.96 intervals ${rate(family.marginalAll, TOURNAMENTS)}`,
    );
    const q = covered.question / total;
    const g = covered.game / total;
    const sw = covered.sandwich / total;
    expect(q).toBeGreaterThanOrEqual(0.93);
    expect(q).toBeLessThanOrEqual(0.97);
    expect(g).toBeLessThan(q - 0.1);
    expect(sw).toBeGreaterThanOrEqual(0.93);
    expect(sw).toBeLessThanOrEqual(0.97);
    expect(covered.sandwichGame / total).toBeLessThan(sw - 0.1);
    for (const f of [family.bootstrap, family.sandwich]) {
      expect(f / TOURNAMENTS).toBeGreaterThanOrEqual(0.93);
      expect(f / TOURNAMENTS).toBeLessThanOrEqual(0.97);
    }
    expect(family.marginalAll / TOURNAMENTS).toBeLessThan(0.9);
  }, 600_000);
});
