// Honest intervals after adaptive sampling: simulated six-model leagues (tests/support/league-sim.ts) played by the
// scheduler until it stops; 95% intervals of rating differences must cover the full-design fit, and a uniform
// sample of as many matches gives wider ranks. bench/fewer-calls.ts --coverage 100 gives the full figure.
import { describe, expect, it } from 'vitest';
import { seededRng } from '../../../src/core/stats/random.ts';
import { intervalCoverage, league, populationRatings, settledRun } from '../../support/league-sim.ts';

const REPLICATES = 8;
const THETA = [-1.5, -0.9, -0.3, 0.3, 0.9, 1.5];

describe('intervals after a settled run', () => {
  it('cover as 95% intervals should, and beat a uniform sample of the same size', { timeout: 60_000 }, () => {
    const truth = populationRatings(THETA, {}, 1000);
    let covered = 0;
    let all = 0;
    let adaptiveWidth = 0;
    let uniformWidth = 0;
    let share = 0;
    for (let r = 0; r < REPLICATES; r++) {
      const l = league(6, 500 + r, {}, THETA);
      const s = settledRun(l);
      const a = intervalCoverage(l, s.played, truth)!;
      const rng = seededRng(900 + r);
      const keys = l.matches
        .map((m) => m.key)
        .sort(() => rng() - 0.5)
        .slice(0, s.played.size);
      const u = intervalCoverage(l, keys, truth)!;
      covered += a.marginal / REPLICATES;
      all += Number(a.simultaneous);
      adaptiveWidth += a.width;
      uniformWidth += u.width;
      share += s.played.size / l.matches.length / REPLICATES;
    }
    // 8 × 15 correlated intervals: a loose floor here, the bench measures >= 93% over 100 replicates
    expect(covered).toBeGreaterThanOrEqual(0.85);
    expect(all).toBeGreaterThanOrEqual(REPLICATES - 1);
    expect(share).toBeLessThan(0.6);
    expect(adaptiveWidth).toBeLessThan(0.75 * uniformWidth);
  });
});
