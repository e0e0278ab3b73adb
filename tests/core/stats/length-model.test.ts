// Issue #13, defect 4: one joint length model, against tests/reference/length_model.py (scipy) on the release's
// GPT-4 pair verdicts, with the answers' lengths read here straight from the release files.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { lengthControlledWinRates, type LengthMatch } from '../../../src/core/stats/length.ts';
import { LAMBDA } from '../../../src/core/stats/length-model.ts';
import { arenaJson, arenaOk, tmpDir } from '../../support/cli.ts';
import { mtbenchReleaseDb } from '../../support/mtbench-release.ts';
import { answerLengths, MTBENCH_MODELS } from '../../support/materials.ts';
import { python, pythonSkip } from '../../support/python.ts';

const MT = process.env.MTBENCH_DIR;
const MODELS = MTBENCH_MODELS;

interface Ref {
  sigma: number;
  beta: number;
  se_beta: number;
  se_beta_cluster: number;
  per_thousand: number;
  lc: Record<string, number>;
  linear: { beta: number; se: number; by: string };
}

/** The release's GPT-4 pair verdicts as matches with the judged turn's answer lengths (characters). */
function releaseMatches(): (LengthMatch & { questionId: number })[] {
  const len = answerLengths(MT!, MODELS);
  return readFileSync(join(MT!, 'human_judgments', 'mt_bench_gpt4_pair.csv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => {
      const [q, a, b, winner, , turn] = l.split(',');
      const outcome =
        winner === 'model_a'
          ? 'model_1'
          : winner === 'model_b'
            ? 'model_2'
            : winner === 'tie'
              ? 'tie'
              : 'inconsistent';
      return {
        questionId: Number(q),
        model1: a!,
        model2: b!,
        len1: len.get(`${a}/${q}`)![Number(turn) - 1]!,
        len2: len.get(`${b}/${q}`)![Number(turn) - 1]!,
        outcome,
      } as LengthMatch & { questionId: number };
    });
}

describe.skipIf(!MT || pythonSkip)(
  'joint length model on the MT-Bench release, GPT-4 judge (issue #13, defect 4)',
  () => {
    let matches: (LengthMatch & { questionId: number })[];
    let ref: Ref;
    const db = join(tmpDir('arena-length-'), 'arena.db');
    beforeAll(async () => {
      matches = releaseMatches();
      ref = python<Ref>('length_model.py', {
        matches: matches.map((m) => [
          m.questionId,
          m.model1,
          m.model2,
          m.len1,
          m.len2,
          m.outcome === 'model_1' ? 1 : m.outcome === 'model_2' ? 0 : 0.5,
        ]),
        lambda_per_match: LAMBDA,
      });
      await mtbenchReleaseDb(db, MT);
    }, 180_000);

    it('the coefficient, its standard error and every length-controlled win rate equal the Python fit', () => {
      const r = lengthControlledWinRates(matches, { rounds: 100 });
      expect(r.effect!.sigma).toBeCloseTo(ref.sigma, 9);
      expect(r.effect!.coefficient).toBeCloseTo(ref.beta, 6);
      // the standard error is clustered by question (the audit: 0.127 from the observed information, 0.180 clustered)
      expect(r.effect!.seIndependent).toBeCloseTo(ref.se_beta, 6);
      expect(r.effect!.se).toBeCloseTo(ref.se_beta_cluster, 6);
      expect(r.effect!.seIndependent).toBeCloseTo(0.127, 3);
      expect(r.effect!.se).toBeCloseTo(0.18, 3);
      expect(r.effect!.perThousandChars).toBeCloseTo(ref.per_thousand, 5);
      for (const m of r.models) expect(m.lcWinRate).toBeCloseTo(ref.lc[m.model]!, 6);
      const alpaca = r.models.find((m) => m.model === 'alpaca-13b')!;
      console.info(
        `[length model] beta ${r.effect!.coefficient.toFixed(4)} (SE ${r.effect!.se.toFixed(4)}) per tanh(Δ/${r.effect!.sigma.toFixed(0)} chars) = ${r.effect!.perThousandChars.toFixed(3)} per 1,000 chars at equal lengths; ` +
          `python ${ref.beta.toFixed(4)} (SE ${ref.se_beta.toFixed(4)}); plain BT + linear length (${ref.linear.by}): ${ref.linear.beta.toFixed(3)} (SE ${ref.linear.se.toFixed(3)}) per 1,000 chars; ` +
          `alpaca-13b ${(100 * alpaca.winRate).toFixed(1)}% -> ${(100 * alpaca.lcWinRate!).toFixed(1)}% [${(100 * alpaca.lo!).toFixed(1)}, ${(100 * alpaca.hi!).toFixed(1)}]`,
      );
      // the length effect is positive and its interval excludes 0; every lcWinRate lies in its interval
      expect(r.effect!.lo).toBeGreaterThan(0);
      for (const m of r.models) expect(m.lo! <= m.lcWinRate! && m.lcWinRate! <= m.hi!).toBe(true);
    });

    it('arena length --json: lengthEffect {coefficient, lo, hi, unit} and rows with lcWinRate, lo, hi; the headline says what length is', async () => {
      const r = await arenaJson<{
        lengthEffect: {
          coefficient: number;
          se: number;
          seIndependent: number;
          lo: number;
          hi: number;
          unit: string;
        };
        measure: string;
        models: { model: string; lcWinRate: number; lo: number; hi: number }[];
      }>(['length', '--db', db, '--judge', 'gpt-4', '--rounds', '100']);
      expect(r.lengthEffect.coefficient).toBeCloseTo(ref.beta, 6);
      expect(r.lengthEffect.se).toBeCloseTo(ref.se_beta_cluster, 6);
      expect(r.lengthEffect.seIndependent).toBeCloseTo(ref.se_beta, 6);
      expect(r.lengthEffect.lo).toBeLessThan(r.lengthEffect.coefficient);
      expect(r.lengthEffect.hi).toBeGreaterThan(r.lengthEffect.coefficient);
      expect(r.lengthEffect.unit).toMatch(/tanh\(length difference \/ \d+ characters\)/);
      expect(r.models.map((m) => m.model).sort()).toEqual([...MODELS].sort());
      for (const m of r.models) {
        expect(m.lcWinRate).toBeCloseTo(ref.lc[m.model]!, 6);
        expect(m.lo).toBeLessThanOrEqual(m.lcWinRate);
        expect(m.hi).toBeGreaterThanOrEqual(m.lcWinRate);
      }
      // the experts: matches of one question are correlated here too (the audit: 0.105 independent, 0.160 clustered)
      const h = await arenaJson<{ lengthEffect: { se: number; seIndependent: number } }>([
        'length',
        '--db',
        db,
        '--judge',
        'human',
        '--rounds',
        '20',
      ]);
      expect(h.lengthEffect.seIndependent).toBeCloseTo(0.105, 3);
      expect(h.lengthEffect.se).toBeCloseTo(0.16, 3);
      const text = await arenaOk(['length', '--db', db, '--judge', 'gpt-4', '--rounds', '50']);
      expect(text).toContain('SE 0.18 clustered by question; 0.127 if matches were independent');
      expect(text).toContain("length = characters of the judged turn's answer");
      expect(text).toContain('log-odds per 1,000 characters');
    }, 120_000);
  },
);
