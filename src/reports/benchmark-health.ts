// Benchmark health of judges against a reference judge, read from the store (core/stats/benchmark-health.ts).
import { benchmarkHealth, type HealthOptions, type HealthRow } from '../core/stats/benchmark-health.ts';
import { ArenaError } from '../core/types.ts';
import type { Store } from '../storage/store.ts';
import { clusteredBattles } from './analytics.ts';

/** One row per judge: its health against `reference` (judge and reference resampled on the same question draws). */
export async function healthReport(
  store: Store,
  judges: string[],
  reference: string,
  o: HealthOptions & { turn?: number } = {},
): Promise<HealthRow[]> {
  const known = new Set((await store.games.judges()).map((j) => j.judge));
  for (const j of [...judges, reference])
    if (!known.has(j))
      throw new ArenaError(
        `no judge named "${j}" (judges: ${[...known].sort().join(', ') || 'none yet'}; see \`arena judges\`)`,
      );
  const rb = await clusteredBattles(store, reference, o.turn);
  const out: HealthRow[] = [];
  for (const j of judges)
    out.push(benchmarkHealth(j, await clusteredBattles(store, j, o.turn), reference, rb, o));
  return out;
}
