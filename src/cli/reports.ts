// The write path of the stored reports (src/reports/site/stored.ts): after a command changed games (import, run,
// refresh, reparse, prune) the reports of a database that holds them are brought up to date, each recomputed
// only where its data changed; `arena publish`, `arena start` and `arena reports --rebuild` do the same on any
// database, one that never held reports included (every report missing or stale is computed, none other).
import { buildReports, type BuildResult } from '../reports/site/build.ts';
import { STATE } from '../reports/site/stored.ts';
import type { Store } from '../storage/store.ts';
import { openStore } from './shared.ts';

/** "reports: 12 recomputed, 103 current, 2 removed (3.1 s)" */
export const reportsLine = (r: BuildResult): string =>
  `reports: ${r.computed} recomputed, ${r.read} current${r.removed ? `, ${r.removed} removed` : ''} (${(r.ms / 1000).toFixed(1)} s)`;

/**
 * Bring the stored reports of `store` up to date: always with `force`, else only where the database holds
 * reports already (a database never served or published is left as it is: the site computes what it lacks).
 */
export async function updateReports(
  store: Store,
  o: { force?: boolean; log?: (m: string) => void; progress?: boolean } = {},
): Promise<BuildResult | undefined> {
  if (!o.force && !(await store.reports.get([STATE])).length) return undefined;
  const log = o.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const r = await buildReports(store, {
    ...(o.progress ? { progress: (step, k, n) => log(`reports ${k}/${n}: ${step}`) } : {}),
  });
  log(reportsLine(r));
  return r;
}

/** updateReports on the database file `db` (opened for this, closed after). */
export async function updateReportsOf(
  db: string,
  o: { force?: boolean; log?: (m: string) => void; progress?: boolean } = {},
): Promise<BuildResult | undefined> {
  if (db === ':memory:') return undefined;
  const store = openStore(db);
  try {
    return await updateReports(store, o);
  } finally {
    await store.close();
  }
}
