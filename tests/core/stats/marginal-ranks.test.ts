// Marginal rank ranges (Mogstad et al.) beside the joint ones on the MT-Bench experts' votes: the audit's figures,
// and the marginal range never wider than the joint one.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  marginalRankBounds,
  rankBounds,
  simultaneousDifferences,
} from '../../../src/core/stats/rank-intervals.ts';
import { arenaJson, arenaOk, tmpDir } from '../../support/cli.ts';
import { mtbenchReleaseDb } from '../../support/mtbench-release.ts';

const MT = process.env.MTBENCH_DIR;

describe('marginal rank bounds', () => {
  it('are within the joint ones, and equal them with two models', () => {
    const est = [0, 30, 60, 90];
    const cov = new Float64Array(16);
    for (let k = 0; k < 4; k++) cov[k * 5] = 225;
    const joint = rankBounds(simultaneousDifferences(est, cov, 0.95));
    const marginal = marginalRankBounds(est, cov, 0.95);
    joint.forEach((j, k) => {
      expect(marginal[k]!.best).toBeGreaterThanOrEqual(j.best);
      expect(marginal[k]!.worst).toBeLessThanOrEqual(j.worst);
    });
    const two = new Float64Array([100, 0, 0, 100]);
    expect(marginalRankBounds([0, 25], two, 0.95)).toEqual(
      rankBounds(simultaneousDifferences([0, 25], two, 0.95)),
    );
  });
});

describe.skipIf(!MT)('marginal and joint rank ranges of the MT-Bench experts', () => {
  const db = join(tmpDir('arena-marginal-'), 'arena.db');
  beforeAll(async () => {
    await mtbenchReleaseDb(db, MT);
  }, 120_000);

  it('gpt-4 is 1-1 marginally and 1-2 jointly (arena intervals --json)', async () => {
    const r = await arenaJson<{
      ratings: {
        rows: {
          model: string;
          rankBest: number;
          rankWorst: number;
          marginalRankBest: number;
          marginalRankWorst: number;
        }[];
      };
    }>(['intervals', '--db', db, '--judge', 'human']);
    const g = r.ratings.rows.find((x) => x.model === 'gpt-4')!;
    expect([g.rankBest, g.rankWorst]).toEqual([1, 2]);
    expect([g.marginalRankBest, g.marginalRankWorst]).toEqual([1, 1]);
    for (const x of r.ratings.rows) {
      expect(x.marginalRankBest).toBeGreaterThanOrEqual(x.rankBest);
      expect(x.marginalRankWorst).toBeLessThanOrEqual(x.rankWorst);
    }
    const text = await arenaOk(['intervals', '--db', db, '--judge', 'human']);
    expect(text).toContain('rank range (joint)');
    expect(text).toContain('rank range (marginal)');
  }, 120_000);
});
