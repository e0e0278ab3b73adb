// The Bradley–Terry variants on the small leagues a site build meets (few games, separable, or tournaments that
// never met): each fit returns finite numbers, centred per group. In a worker thread with a time limit, because a
// fit that loops holds the process.
import { describe, expect, it } from 'vitest';
import { inWorker } from '../../support/bounded.ts';
import type { SmallFit } from './small-leagues.ts';

describe('Bradley–Terry variants on small leagues', () => {
  it('400 random leagues (200 of two tournaments): every fit returns, finite, each group centred at 1000', async () => {
    const fits = await inWorker<SmallFit[]>(
      new URL('./small-leagues.ts', import.meta.url),
      'fitSmallLeagues',
      [7, 400],
      60,
    );
    // the odd leagues are two tournaments: 200 leagues, 2 fits each
    const two = fits.filter((f) => f.league % 2 === 1);
    expect(two.length).toBe(400);
    expect(two.every((f) => f.groups === 2)).toBe(true);
    expect(fits.filter((f) => !f.finite)).toEqual([]);
    for (const f of fits) for (const m of f.groupMeans) expect(m).toBeCloseTo(1000, 9);
    const twoConverged = two.filter((f) => f.converged).length;
    console.log(
      `[small leagues] ${fits.length} fits, ${fits.filter((f) => !f.converged).length} not converged (said so); of two tournaments ${twoConverged} of 400 converged`,
    );
  }, 90_000);
});
