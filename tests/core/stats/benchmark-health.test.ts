// `arena health` against tests/reference/benchmark_health.py on the same bootstrap draws, for GPT-4 and a synthetic
// judge (30% of GPT-4's decisive verdicts flipped) against the experts; plus the rank correlations alone.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededRng } from '../../../src/core/stats/random.ts';
import {
  benchmarkHealth,
  healthClusters,
  healthDraws,
  kendallTauB,
  spearman,
  type HealthRow,
} from '../../../src/core/stats/benchmark-health.ts';
import { arenaJson, arenaOk, runArena, tmpDir } from '../../support/cli.ts';
import {
  JUDGE_LLAMA2_DIR,
  MTBENCH_DIR,
  noMtbench,
  noMtbenchOrJudgeLlama2,
  readCsv,
  scoreOfA,
  skipWhy,
} from '../../support/materials.ts';
import { python, pythonSkip } from '../../support/python.ts';
import { mtbenchReleaseDb, releaseJudgmentsDb } from '../../support/mtbench-release.ts';

const DIR = MTBENCH_DIR;
const skipReason = skipWhy('benchmark-health', noMtbench('the real MT-Bench release'), pythonSkip);

type Battle = { cluster: number; a: string; b: string; score: 0 | 0.5 | 1 };
const ROUNDS = 200;

const battle = (r: Record<string, string>): Battle => ({
  cluster: Number(r.question_id),
  a: r.model_a!,
  b: r.model_b!,
  score: scoreOfA(r) as Battle['score'],
});

/** The MT-Bench release as `arena import mtbench` stores it (imported once per run), copied to `to`. */
const releaseDb = (to: string): Promise<string> => mtbenchReleaseDb(to, MTBENCH_DIR);

describe('rank correlations', () => {
  it('Spearman and Kendall tau-b, with ties, equal the textbook values', () => {
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 40])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
    // scipy.stats.spearmanr([1,2,3,4,5],[2,1,4,3,5]) = 0.8; kendalltau = 0.6
    expect(spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])).toBeCloseTo(0.8, 12);
    expect(kendallTauB([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])).toBeCloseTo(0.6, 12);
    // with ties: scipy.stats.kendalltau([1,1,2,3],[1,2,2,3]) = 0.8 (tau-b); spearmanr = 0.8333 (average ranks)
    expect(kendallTauB([1, 1, 2, 3], [1, 2, 2, 3])).toBeCloseTo(0.8, 12);
    expect(spearman([1, 1, 2, 3], [1, 2, 2, 3])).toBeCloseTo(5 / 6, 12);
  });

  it('a judge identical to the reference is perfectly healthy; one that reverses it agrees with it on nothing', () => {
    const rng = seededRng(2);
    const ref: Battle[] = [];
    const strength = { a: 1.5, b: 0.5, c: -0.5, d: -1.5 } as Record<string, number>;
    for (let q = 0; q < 60; q++)
      for (const [x, y] of [
        ['a', 'b'],
        ['a', 'c'],
        ['a', 'd'],
        ['b', 'c'],
        ['b', 'd'],
        ['c', 'd'],
      ])
        for (let g = 0; g < 2; g++)
          ref.push({
            cluster: q,
            a: x!,
            b: y!,
            score: rng() < 1 / (1 + Math.exp(-(strength[x!]! - strength[y!]!))) ? 1 : 0,
          });
    const same = benchmarkHealth('same', ref, 'ref', ref, { rounds: 100 });
    expect(same).toMatchObject({
      pairs: 6,
      spearman: { value: 1 },
      kendall: { value: 1 },
      opposedPairs: 0,
      brierReferenceBootstrap: 0,
    });
    // Arena-Hard's agreement: +1 for each pair both separate the same way, over all pairs; a pair the
    // reference itself leaves open counts 0, so a perfect copy scores the reference's own separability
    expect(same.referenceSeparated).toBe(same.separated);
    expect(same.agreedPairs).toBe(same.separated);
    expect(same.agreementWithConfidence).toBeCloseTo(same.referenceSeparability!, 12);
    expect(same.brier!).toBeLessThan(0.05);
    const reversed = benchmarkHealth(
      'reversed',
      ref.map((b) => ({ ...b, score: (1 - b.score) as 0 | 1 })),
      'ref',
      ref,
      { rounds: 100 },
    );
    expect(reversed).toMatchObject({
      agreedPairs: 0,
      opposedPairs: same.separated,
      spearman: { value: -1 },
      kendall: { value: -1 },
    });
    expect(reversed.agreementWithConfidence).toBeCloseTo(-same.referenceSeparability!, 12);
    expect(reversed.brier!).toBeGreaterThan(0.9);
    expect(reversed.brierReferenceBootstrap!).toBeGreaterThan(0.8);
    expect(reversed.separability).toBe(same.separability);
  });

  it('a pair the reference cannot separate scores 0 in agreement, and its Brier rests on the reference rounds', () => {
    // the reference: a and b equally strong (coin flips), both far above c; the judge: a clearly above b
    const rng = seededRng(5);
    const ref: Battle[] = [];
    const judge: Battle[] = [];
    for (let q = 0; q < 80; q++) {
      ref.push({ cluster: q, a: 'a', b: 'b', score: rng() < 0.5 ? 1 : 0 });
      judge.push({ cluster: q, a: 'a', b: 'b', score: rng() < 0.85 ? 1 : 0 });
      for (const m of ['a', 'b']) {
        ref.push({ cluster: q, a: m, b: 'c', score: rng() < 0.9 ? 1 : 0 });
        judge.push({ cluster: q, a: m, b: 'c', score: rng() < 0.9 ? 1 : 0 });
      }
    }
    const h = benchmarkHealth('judge', judge, 'ref', ref, { rounds: 200 });
    expect(h).toMatchObject({
      pairs: 3,
      separated: 3,
      referenceSeparated: 2,
      agreedPairs: 2,
      opposedPairs: 0,
    });
    expect(h.agreementWithConfidence).toBeCloseTo(2 / 3, 12);
    // against the reference's point order the a/b pair counts as settled one way; against its rounds,
    // as the coin it is, so the second score is the kinder one here
    expect(h.brierReferenceBootstrap!).toBeLessThan(h.brier!);
  });
});

describe.skipIf(!!skipReason)(
  'arena health equals an independent numpy/scipy computation on the same draws (MT-Bench release)',
  () => {
    const dir = DIR ?? '';
    const tmp = tmpDir('arena-health-');
    const db = join(tmp, 'release.db');
    let human: Battle[] = [];
    let gpt4: Battle[] = [];
    let noisy: Battle[] = [];
    beforeAll(async () => {
      human = readCsv(join(dir, 'human_judgments', 'mt_bench_human.csv'))
        .filter((r) => r.judge!.startsWith('expert'))
        .map(battle);
      const gpt4Rows = readCsv(join(dir, 'human_judgments', 'mt_bench_gpt4_pair.csv')).filter(
        (r) => r.judge === 'gpt4_pair',
      );
      gpt4 = gpt4Rows.map(battle);
      // a second judge: GPT-4 with 30% of its decisive verdicts flipped, imported as the votes of "noisy-judge"
      const rng = seededRng(77);
      const flipped = gpt4Rows.map((r): Record<string, string> => ({
        ...r,
        judge: 'noisy-judge',
        winner:
          r.winner !== 'tie' && r.winner !== 'tie (inconsistent)' && rng() < 0.3
            ? r.winner === 'model_a'
              ? 'model_b'
              : 'model_a'
            : r.winner!,
      }));
      noisy = flipped.map(battle);
      const file = join(tmp, 'noisy.csv');
      writeFileSync(
        file,
        [
          'question_id,model_a,model_b,winner,judge,turn',
          ...flipped.map((r) => [r.question_id, r.model_a, r.model_b, r.winner, r.judge, r.turn].join(',')),
        ].join('\n') + '\n',
      );
      await releaseDb(db);
      await arenaOk(['import', 'votes', file, '--db', db]);
    }, 180_000);

    it(`gpt-4 and a synthetic noisy judge against the experts (${ROUNDS} rounds)`, async () => {
      const rows = await arenaJson<HealthRow[]>([
        'health',
        '--db',
        db,
        '--judges',
        'gpt-4,noisy-judge',
        '--reference',
        'human',
        '--rounds',
        String(ROUNDS),
      ]);
      expect(rows.map((r) => r.judge)).toEqual(['gpt-4', 'noisy-judge']);
      // both judges in one reference process (the experts' fits on the same clusters and draws are made once)
      const refs = python<Omit<HealthRow, 'judge' | 'reference' | 'level' | 'rounds' | 'seed'>[]>(
        'benchmark_health.py',
        {
          reference: human.map((b) => [b.cluster, b.a, b.b, b.score]),
          level: 0.95,
          judges: [gpt4, noisy].map((jb) => {
            const clusters = healthClusters(jb, human);
            return {
              judge: jb.map((b) => [b.cluster, b.a, b.b, b.score]),
              clusters,
              draws: healthDraws(clusters.length, ROUNDS, 1).map((d) => Array.from(d)),
            };
          }),
        },
        300_000,
      );
      expect(refs).toHaveLength(2);
      for (const [row, ref] of [
        [rows[0]!, refs[0]!],
        [rows[1]!, refs[1]!],
      ] as const) {
        expect(row.models).toEqual(ref.models);
        expect(row).toMatchObject({
          pairs: ref.pairs,
          separated: ref.separated,
          referenceSeparated: ref.referenceSeparated,
          agreedPairs: ref.agreedPairs,
          opposedPairs: ref.opposedPairs,
          reference: 'human',
        });
        expect(row.separability).toBeCloseTo(ref.separability!, 12);
        expect(row.referenceSeparability).toBeCloseTo(ref.referenceSeparability!, 12);
        expect(row.agreementWithConfidence).toBeCloseTo(ref.agreementWithConfidence!, 12);
        // a round in which two models' ratings nearly coincide may order them differently under the two
        // solvers' stopping rules: one such round moves the Brier score by at most 2/rounds/pairs
        expect(Math.abs(row.brier! - ref.brier!)).toBeLessThan(2 / ROUNDS / row.pairs);
        expect(Math.abs(row.brierReferenceBootstrap! - ref.brierReferenceBootstrap!)).toBeLessThan(
          4 / ROUNDS / row.pairs,
        );
        // how stable each separated count is at this many rounds: the reference resamples the same rounds with
        // numpy's generator (not ours), so the two Monte-Carlo ranges agree within one pair at each end
        for (const k of ['separatedMonteCarlo', 'referenceSeparatedMonteCarlo'] as const) {
          expect(ref[k], k).toBeDefined();
          expect(Math.abs(row[k]!.lo - ref[k]!.lo), `${row.judge} ${k} lo`).toBeLessThanOrEqual(1);
          expect(Math.abs(row[k]!.hi - ref[k]!.hi), `${row.judge} ${k} hi`).toBeLessThanOrEqual(1);
        }
        for (const k of ['spearman', 'kendall'] as const) {
          expect(row[k].value!).toBeCloseTo(ref[k].value!, 9);
          expect(row[k].lo).toBeCloseTo(ref[k].lo, 9);
          expect(row[k].hi).toBeCloseTo(ref[k].hi, 9);
        }
        console.info(
          `[benchmark-health] ${row.judge} vs human: separability ${(100 * row.separability!).toFixed(1)}% (${row.separated}/${row.pairs}, MC ${row.separatedMonteCarlo!.lo}-${row.separatedMonteCarlo!.hi}; numpy ${ref.separatedMonteCarlo!.lo}-${ref.separatedMonteCarlo!.hi}), agreement with confidence ${row.agreementWithConfidence!.toFixed(3)}, brier ${row.brier!.toFixed(4)} (vs reference rounds ${row.brierReferenceBootstrap!.toFixed(4)}), spearman ${row.spearman.value!.toFixed(3)} [${row.spearman.lo.toFixed(3)}, ${row.spearman.hi.toFixed(3)}], kendall ${row.kendall.value!.toFixed(3)} [${row.kendall.lo.toFixed(3)}, ${row.kendall.hi.toFixed(3)}]`,
        );
      }
      // the noisy judge is the worse yardstick: it separates fewer pairs
      expect(rows[1]!.separability!).toBeLessThan(rows[0]!.separability!);
    }, 300_000);

    it('an unknown judge is an error naming the judges there are', async () => {
      const r = await runArena(['health', '--db', db, '--judges', 'gpt-5', '--reference', 'human']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/no judge named "gpt-5".*gpt-4/);
    });
  },
);

const auditSkip = skipWhy('benchmark-health audit', noMtbenchOrJudgeLlama2());

describe.skipIf(!!auditSkip)(
  "agreement with confidence reproduces the audit's figures (GPT-4 and the Llama-2 judge against the experts)",
  () => {
    const tmp = tmpDir('arena-health-audit-');
    const db = join(tmp, 'study.db');
    const LLAMA = 'llama-2-70b-instruct-v2';
    beforeAll(async () => {
      // the release with the study's judgments imported under LLAMA, once per run
      const file = join(JUDGE_LLAMA2_DIR!, 'model_judgment', 'L40-Llama-2-70b-instruct-v2.jsonl.gz');
      await releaseJudgmentsDb(db, file, LLAMA);
    }, 300_000);

    it('GPT-4 0.933 (14 of 15 pairs), Llama-2 0.800 (12 of 15); the experts separate 14 of 15', async () => {
      const rows = await arenaJson<HealthRow[]>([
        'health',
        '--db',
        db,
        '--judge',
        `gpt-4,${LLAMA}`,
        '--reference',
        'human',
        '--rounds',
        '1000',
      ]);
      const [gpt4, llama] = rows;
      expect(gpt4).toMatchObject({ judge: 'gpt-4', pairs: 15, referenceSeparated: 14, agreedPairs: 14 });
      expect(llama).toMatchObject({ judge: LLAMA, pairs: 15, referenceSeparated: 14, agreedPairs: 12 });
      expect(gpt4!.agreementWithConfidence).toBeCloseTo(0.933, 3);
      expect(llama!.agreementWithConfidence).toBeCloseTo(0.8, 3);
      for (const r of rows)
        console.info(
          `[benchmark-health audit] ${r.judge}: agreement ${r.agreementWithConfidence!.toFixed(3)}, brier vs point order ${r.brier!.toFixed(4)}, vs the experts' rounds ${r.brierReferenceBootstrap!.toFixed(4)}, separated ${r.separated}/15, experts ${r.referenceSeparated}/15`,
        );
    }, 300_000);

    it('a bootstrap count says how stable it is: at 200 rounds the separated count moves with the seed, within its Monte-Carlo range', async () => {
      const at = async (seed: number) =>
        (
          await arenaJson<HealthRow[]>([
            ...['health', '--db', db, '--judge', `gpt-4,${LLAMA}`, '--reference', 'human'],
            ...['--rounds', '200', '--seed', String(seed)],
          ])
        ).map((r) => ({ judge: r.judge, n: r.separated!, mc: r.separatedMonteCarlo! }));
      const runs = [await at(1), await at(2), await at(3), await at(4)];
      for (let j = 0; j < 2; j++) {
        const counts = runs.map((r) => r[j]!.n);
        const lo = Math.min(...runs.map((r) => r[j]!.mc.lo));
        const hi = Math.max(...runs.map((r) => r[j]!.mc.hi));
        for (const r of runs) expect(r[j]!.mc.lo <= r[j]!.n && r[j]!.n <= r[j]!.mc.hi).toBe(true);
        for (const c of counts) expect(c >= lo && c <= hi, `${counts} within [${lo}, ${hi}]`).toBe(true);
        // the count moves with the seed at 200 rounds, and the runs' ranges say so
        if (new Set(counts).size > 1) expect(runs.some((r) => r[j]!.mc.hi > r[j]!.mc.lo)).toBe(true);
      }
      expect(new Set(runs.flatMap((r) => r.map((x) => `${x.judge}:${x.n}`))).size).toBeGreaterThan(2);
    }, 300_000);
  },
);
