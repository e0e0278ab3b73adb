// The write path of the stored reports (src/reports/site/stored.ts): after a command changed games (import, run,
// refresh, reparse, prune) the reports of a database that holds them are brought up to date, each recomputed
// only where its data changed; `arena publish`, `arena start` and `arena reports --rebuild` do the same on any
// database, one that never held reports included (every report missing or stale is computed, none other).
import { buildReports, type BuildResult } from '../reports/site/build.ts';
import { ArenaError } from '../core/types.ts';
import { STATE } from '../reports/site/stored.ts';
import type { Store } from '../storage/store.ts';
import { createApp } from '../web/app.ts';
import { PAGE_VIEW, renderPages, type PageOptions } from '../web/prerender.ts';
import { openStore } from './shared.ts';

/** The Worker's options that change its pages (wrangler.toml's [vars]): what the pages are rendered with. */
export interface WorkerPages extends PageOptions {
  /** /annotate on: the site's votes change its pages between publishes, so none is pre-rendered */
  annotate?: boolean;
}

/** The Worker's page options from its vars (SITE_URL, INTERVALS, ANNOTATE), as src/entry/worker.ts reads them. */
export function workerPages(vars: Record<string, string>): WorkerPages {
  const intervals = vars.INTERVALS;
  if (intervals !== undefined && intervals !== 'bootstrap' && intervals !== 'sandwich')
    throw new ArenaError(
      `wrangler.toml [vars]: INTERVALS must be "bootstrap" or "sandwich", got "${intervals}"`,
    );
  return {
    ...(vars.SITE_URL ? { siteUrl: vars.SITE_URL } : {}),
    ...(intervals ? { intervals } : {}),
    annotate: vars.ANNOTATE === 'on',
  };
}

/**
 * Render the pages the home page links to, as the Worker made with `o` would, and store them for it
 * (src/web/prerender.ts), replacing those stored before; none when the stored reports are not built or with
 * /annotate on. Returns how many.
 */
export async function prerenderPages(store: Store, o: WorkerPages): Promise<number> {
  const old = (await store.reports.index()).filter((r) => r.view === PAGE_VIEW);
  if (old.length) await store.reports.remove(old);
  const [state] = await store.reports.get([STATE]);
  if (!state || o.annotate) return 0;
  const { annotate: _a, ...options } = o;
  const app = createApp({ store, reports: 'read', ...options });
  // a run still marked running shows as interrupted once its heartbeat is old: /runs changes with the clock
  const running = (await store.runs.list(30)).some((r) => r.status === 'running');
  const rows = await renderPages(app.fetch, options, state.body, (p) => running && p === '/runs');
  await store.reports.put(rows);
  return rows.length;
}

/** "reports: 12 recomputed, 103 current, 2 removed (3.1 s)" */
export const reportsLine = (r: BuildResult): string =>
  `reports: ${r.computed} recomputed, ${r.read} current${r.removed ? `, ${r.removed} removed` : ''} (${(r.ms / 1000).toFixed(1)} s)`;

/**
 * Bring the stored reports of `store` up to date: always with `force`, else only where the database holds
 * reports already (a database never served or published is left as it is: the site computes what it lacks).
 */
export async function updateReports(
  store: Store,
  o: { force?: boolean; log?: (m: string) => void; progress?: boolean; pages?: WorkerPages } = {},
): Promise<BuildResult | undefined> {
  if (!o.force && !(await store.reports.get([STATE])).length) return undefined;
  const log = o.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const r = await buildReports(store, {
    ...(o.progress ? { progress: (step, k, n) => log(`reports ${k}/${n}: ${step}`) } : {}),
  });
  log(reportsLine(r));
  if (o.pages) log(`pages for the Worker: ${await prerenderPages(store, o.pages)} rendered`);
  return r;
}

/** updateReports on the database file `db` (opened for this, closed after). */
export async function updateReportsOf(
  db: string,
  o: { force?: boolean; log?: (m: string) => void; progress?: boolean; pages?: WorkerPages } = {},
): Promise<BuildResult | undefined> {
  if (db === ':memory:') return undefined;
  const store = openStore(db);
  try {
    return await updateReports(store, o);
  } finally {
    await store.close();
  }
}
