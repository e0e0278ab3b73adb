// Rank and sandwich intervals against tests/reference/sandwich_bt.py (pseudo-inverse fit, numpy multivariate-t),
// on the release's expert votes and GPT-4 pair outcomes read from the CSVs; plus unit checks of rank bounds.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { battleTable } from '../../../src/core/stats/battle-table.ts';
import { bootstrapBradleyTerry } from '../../../src/core/stats/rating-bootstrap.ts';
import {
  rankBounds,
  sampleCovariance,
  simultaneousDifferences,
} from '../../../src/core/stats/rank-intervals.ts';
import { sandwichBradleyTerry, sandwichCovariance } from '../../../src/core/stats/sandwich.ts';
import { normalQuantile, tQuantile } from '../../../src/core/stats/normal.ts';
import { arenaJson, tmpDir } from '../../support/cli.ts';
import { MTBENCH_DIR, noMtbench, readCsv, scoreOfA, skipWhy } from '../../support/materials.ts';
import { mtbenchReleaseDb } from '../../support/mtbench-release.ts';
import { python, pythonSkip } from '../../support/python.ts';

const DIR = MTBENCH_DIR;
const skipReason = skipWhy('ranks-sandwich', noMtbench('the real MT-Bench release'), pythonSkip);

type Battle = [cluster: number, a: string, b: string, score: number];

const readBattles = (file: string, keep: (r: Record<string, string>) => boolean): Battle[] =>
  readCsv(file)
    .filter(keep)
    .map((r) => [Number(r.question_id), r.model_a!, r.model_b!, scoreOfA(r)]);

interface PyResult {
  models: Record<
    string,
    {
      rating: number;
      se: number;
      lo: number;
      hi: number;
      rankBest: number;
      rankWorst: number;
      marginalRankBest: number;
      marginalRankWorst: number;
    }
  >;
  critical: number;
  /** per model: the max-t critical value over its own differences (marginal rank bounds) */
  marginalCritical: Record<string, number>;
  clusters: number;
}

const sandwichReference = (battles: Battle[], level = 0.95) =>
  python<PyResult>('sandwich_bt.py', { battles, level }, 120_000);

describe('rank bounds from simultaneous difference intervals', () => {
  it('best = 1 + models significantly above, worst = n − models significantly below', () => {
    // three models: 0 clearly above 1 and 2; 1 and 2 indistinguishable
    const est = [1200, 1000, 990];
    const cov = Float64Array.from([100, 0, 0, 0, 100, 0, 0, 0, 100]);
    const d = simultaneousDifferences(est, cov, 0.95, { seed: 3 });
    expect(rankBounds(d)).toEqual([
      { best: 1, worst: 1 },
      { best: 2, worst: 3 },
      { best: 2, worst: 3 },
    ]);
    // three independent pairs with equal se: the max-|t| of 3 correlated normals lies between the
    // marginal 1.96 and the Bonferroni 2.39
    expect(d.critical).toBeGreaterThan(normalQuantile(0.975));
    expect(d.critical).toBeLessThan(normalQuantile(1 - 0.025 / 3));
  });

  it('sample covariance equals the textbook formula, with the CR1 factor', () => {
    const rows = [
      Float64Array.of(1, 2),
      Float64Array.of(3, 1),
      Float64Array.of(2, 6),
      Float64Array.of(NaN, 0),
    ];
    const c = sampleCovariance(rows, 2);
    // by hand: means 2, 3; deviations (-1,-1), (1,-2), (0,3)
    expect(Array.from(c)).toEqual([1, -0.5, -0.5, 7]);
    expect(sampleCovariance(rows, 2, 5)[0]).toBeCloseTo(1.25, 12);
  });

  it("Student's t quantile matches scipy's to 1e-6 for 79 degrees of freedom", () => {
    expect(tQuantile(0.975, 79)).toBeCloseTo(1.9904502102301285, 6);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 8);
  });

  it('bootstrap rows carry rank bounds around Rank (UB), and a preliminary mark by battles and by width', () => {
    const battles: { cluster: number; a: string; b: string; score: 0 | 1 }[] = [];
    for (let q = 0; q < 40; q++)
      for (const [a, b, p] of [
        ['x', 'y', 0.9],
        ['y', 'z', 0.5],
        ['x', 'z', 0.9],
      ] as const)
        for (let g = 0; g < 4; g++)
          battles.push({ cluster: q, a, b, score: ((q * 7 + g * 3) % 10) / 10 < p ? 1 : 0 });
    const r = bootstrapBradleyTerry(battleTable(battles), { rounds: 200 });
    const by = Object.fromEntries(r.rows.map((x) => [x.model, x]));
    expect(by.x).toMatchObject({ rank: 1, rankBest: 1, rankWorst: 1, preliminary: false, battles: 320 });
    expect(by.y).toMatchObject({ rankBest: 2, rankWorst: 3 });
    expect(by.z).toMatchObject({ rankBest: 2, rankWorst: 3 });
    // a newcomer with one win and one loss: too few battles, and an interval hundreds of points wide
    const r2 = bootstrapBradleyTerry(
      battleTable([
        ...battles,
        { cluster: 0, a: 'x', b: 'new', score: 1 },
        { cluster: 1, a: 'z', b: 'new', score: 0 },
      ]),
      { rounds: 200 },
    );
    const n = r2.rows.find((x) => x.model === 'new')!;
    expect(n).toMatchObject({ battles: 2, preliminary: true });
    expect(n.rankWorst! - n.rankBest!).toBeGreaterThanOrEqual(2);
    // the thresholds are options: 2 battles suffice and any width passes
    const r3 = bootstrapBradleyTerry(battleTable(battles), { rounds: 200, minBattles: 400 });
    expect(r3.rows.every((x) => x.preliminary)).toBe(true);
    for (const x of [...r.rows, ...r2.rows]) {
      expect(x.rankBest).toBeLessThanOrEqual(x.rankWorst!);
    }
  });
});

describe('sandwich on degenerate data', () => {
  it('one question gives no interval (not a zero-width one), and the model is preliminary', () => {
    const t = battleTable([
      { cluster: 1, a: 'x', b: 'y', score: 1 },
      { cluster: 1, a: 'x', b: 'y', score: 0 },
    ]);
    // minQuestions 0: not marked sparse, so the missing interval comes from the single cluster itself
    for (const r of [
      sandwichBradleyTerry(t, { minQuestions: 0, minQuestionsForIntervals: 0 }),
      sandwichBradleyTerry(t, { minQuestionsForIntervals: 0 }),
    ])
      for (const row of r.rows)
        expect(row).toMatchObject({ lo: null, hi: null, rankBest: 1, rankWorst: 2, preliminary: true });
  });
});

describe.skipIf(!!skipReason)(
  'sandwich intervals and rank bounds equal an independent Python computation (MT-Bench release)',
  () => {
    const dir = DIR ?? '';
    const db = join(tmpDir('arena-ranks-'), 'release.db');
    let human: Battle[] = [];
    let gpt4: Battle[] = [];
    beforeAll(async () => {
      human = readBattles(join(dir, 'human_judgments', 'mt_bench_human.csv'), (r) =>
        r.judge!.startsWith('expert'),
      );
      gpt4 = readBattles(
        join(dir, 'human_judgments', 'mt_bench_gpt4_pair.csv'),
        (r) => r.judge === 'gpt4_pair',
      );
      await mtbenchReleaseDb(db, dir); // `arena import mtbench --dir`, once per run
    }, 180_000);

    for (const [judge, get] of [
      ['human', () => human],
      ['gpt-4', () => gpt4],
    ] as const) {
      it(`${judge}: ratings, sandwich standard errors, t intervals, max-t critical value and rank bounds`, async () => {
        const ref = sandwichReference(get());
        const ours = await arenaJson<{
          ratings: {
            method: string;
            rows: {
              model: string;
              rating: number;
              lo: number;
              hi: number;
              rankBest: number;
              rankWorst: number;
              marginalRankBest: number;
              marginalRankWorst: number;
              rank: number;
            }[];
          };
        }>(['intervals', '--db', db, '--judge', judge, '--method', 'sandwich']);
        expect(ours.ratings.method).toBe('sandwich');
        expect(ours.ratings.rows.map((r) => r.model).sort()).toEqual(Object.keys(ref.models).sort());
        for (const r of ours.ratings.rows) {
          const p = ref.models[r.model]!;
          expect(Math.abs(r.rating - p.rating), `${r.model} rating`).toBeLessThan(1e-5);
          expect(Math.abs(r.lo - p.lo), `${r.model} lo`).toBeLessThan(1e-4);
          expect(Math.abs(r.hi - p.hi), `${r.model} hi`).toBeLessThan(1e-4);
          expect([r.rankBest, r.rankWorst], r.model).toEqual([p.rankBest, p.rankWorst]);
          expect([r.marginalRankBest, r.marginalRankWorst], `${r.model} marginal`).toEqual([
            p.marginalRankBest,
            p.marginalRankWorst,
          ]);
        }
        if (judge === 'human') {
          // the audit's figures: gpt-4 ranks 1-1 on its own comparisons, 1-2 jointly
          expect([ref.models['gpt-4']!.marginalRankBest, ref.models['gpt-4']!.marginalRankWorst]).toEqual([
            1, 1,
          ]);
          expect([ref.models['gpt-4']!.rankBest, ref.models['gpt-4']!.rankWorst]).toEqual([1, 2]);
        }
        // the critical value itself, from our 10,000 draws against numpy's 200,000
        const t = battleTable(
          get().map(([cluster, a, b, score]) => ({ cluster, a, b, score: score as 0 | 0.5 | 1 })),
        );
        const s = sandwichCovariance(t);
        expect(s.clusters).toBe(ref.clusters);
        const c = simultaneousDifferences(s.ratings, s.covariance, 0.95, { df: s.clusters - 1 }).critical;
        expect(Math.abs(c / ref.critical - 1)).toBeLessThan(0.02);
        // and each model's own critical value (marginal rank bounds): below the joint one, equal to numpy's
        for (const [model, ck] of Object.entries(ref.marginalCritical)) {
          expect(ck, model).toBeLessThan(ref.critical);
          expect(ck, model).toBeGreaterThan(normalQuantile(0.975));
        }
        console.info(
          `[ranks-sandwich] ${judge}: max-t critical value ours ${c.toFixed(4)}, numpy ${ref.critical.toFixed(4)}; rank bounds ${ours.ratings.rows.map((r) => `${r.model} ${r.rankBest}-${r.rankWorst}`).join(', ')}`,
        );
      }, 120_000);
    }
  },
);
