// Benchmark health of judges against a reference judge, read from the store (core/stats/benchmark-health.ts).
import { benchmarkHealth, type HealthOptions, type HealthRow } from '../core/stats/benchmark-health.ts';
import { battleTable, type ClusteredBattle } from '../core/stats/battle-table.ts';
import { estimability, type Estimability } from '../core/stats/separation.ts';
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
  const { rows, unrated } = await healthRows(store, judges, reference, o);
  if (unrated.length) throw new ArenaError(unrated[0]!.why);
  return rows;
}

/** The same rows, with the judges the reference cannot rate set aside with the reason instead of refused. */
export async function healthRows(
  store: Store,
  judges: string[],
  reference: string,
  o: HealthOptions & { turn?: number } = {},
): Promise<{ rows: HealthRow[]; unrated: { judge: string; why: string }[] }> {
  const known = new Set((await store.games.judges()).map((j) => j.judge));
  for (const j of [...judges, reference])
    if (!known.has(j))
      throw new ArenaError(
        `no judge named "${j}" (judges: ${[...known].sort().join(', ') || 'none yet'}; see \`arena judges\`)`,
      );
  const rb = await clusteredBattles(store, reference, o.turn);
  const rows: HealthRow[] = [];
  const unrated: { judge: string; why: string }[] = [];
  for (const j of judges) {
    const jb = await clusteredBattles(store, j, o.turn);
    const why = unratedReason(reference, rb, jb);
    if (why) unrated.push({ judge: j, why });
    else rows.push(benchmarkHealth(j, jb, reference, rb, o));
  }
  return { rows, unrated };
}

const WHY: Record<Exclude<Estimability, 'ok' | 'missing'>, string> = {
  above: 'never lost to the others',
  below: 'never beat the others',
  apart: 'met none of the others',
};

/**
 * Why a reference cannot rate the models a judge judged (undefined when it can): its verdicts give them no finite
 * Bradley–Terry ratings, so every figure against it would be an artefact (a few annotator votes, usually).
 */
function unratedReason(reference: string, rb: ClusteredBattle[], jb: ClusteredBattle[]): string | undefined {
  const judged = new Set(jb.flatMap((b) => [b.a, b.b]));
  const both = rb.filter((b) => judged.has(b.a) && judged.has(b.b));
  const c = battleTable(both).pairs;
  const { status, separated } = estimability(c);
  if (!separated) return undefined;
  const off = (Object.keys(WHY) as (keyof typeof WHY)[])
    .map((s) => [c.models.filter((_, k) => status[k] === s), WHY[s]] as const)
    .filter(([ms]) => ms.length)
    .map(([ms, why]) => `${ms.join(', ')} ${why}`);
  return `the reference "${reference}" cannot rate these models yet: in its ${both.length} verdicts over ${c.models.length} models, ${off.join('; ')}, so Bradley–Terry has no finite ratings for them (Ford 1957); collect more votes, or compare on the models it rates`;
}
