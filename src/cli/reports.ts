// The write path of the site: after a command changed the data, the stored reports are brought up to date and the
// pages rendered from them and stored: games -> reports -> pages -> bytes served; no visitor waits for a computation.
import { buildReports, type BuildResult } from '../reports/site/build.ts';
import { ArenaError } from '../core/types.ts';
import { STATE } from '../reports/site/stored.ts';
import type { StoredPage } from '../storage/page-store.ts';
import type { Store } from '../storage/store.ts';
import { createApp } from '../web/app.ts';
import { renderPages, type PageOptions } from '../web/pages.ts';
import { withStore, log } from './shared.ts';

/** The Worker's options that change its pages; with /annotate on, its votes change them: none is stored. */
type WorkerPages = PageOptions & { annotate?: boolean };

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
 * Render and store the pages the home page links to, for `arena serve`'s options and the Worker of `worker`'s vars;
 * none before the reports are built. Unchanged rows are not written again. Returns how many pages are stored.
 */
export async function storePages(store: Store, worker?: WorkerPages): Promise<number> {
  const old = await store.pages.list();
  const [state] = await store.reports.get([STATE]);
  const sets: PageOptions[] = [{}];
  if (worker && !worker.annotate && (worker.siteUrl || worker.intervals === 'sandwich'))
    sets.push({ siteUrl: worker.siteUrl, intervals: worker.intervals });
  // a run still marked running shows as interrupted once its heartbeat is old: /runs changes with the clock
  const running = (await store.runs.list(30)).some((r) => r.status === 'running');
  const rows: StoredPage[] = [];
  for (const o of state ? sets : []) {
    const app = createApp({ store, reports: 'read', ...o });
    rows.push(...(await renderPages(app.fetch, o, state!.body, (p) => running && p === '/runs')));
  }
  const same = (a: StoredPage[]) => JSON.stringify(a.map((r) => [r.key, r.state, r.body]).sort());
  if (same(old) !== same(rows)) await store.pages.replace(rows);
  return rows.length;
}

/** "reports: 12 recomputed, 103 current, 2 removed (3.1 s)" */
export const reportsLine = (r: BuildResult): string =>
  `reports: ${r.computed} recomputed, ${r.read} current${r.removed ? `, ${r.removed} removed` : ''} (${(r.ms / 1000).toFixed(1)} s)`;

type UpdateOptions = { log?: (m: string) => void; progress?: boolean; worker?: WorkerPages };

/** Bring the stored reports of `store` up to date and render its pages from them; every write calls it. */
export async function updateReports(store: Store, o: UpdateOptions = {}): Promise<BuildResult> {
  const line = o.log ?? log;
  const r = await buildReports(store, {
    ...(o.progress ? { progress: (step, k, n) => line(`reports ${k}/${n}: ${step}`) } : {}),
  });
  line(`${reportsLine(r)}; pages: ${await storePages(store, o.worker)} rendered`);
  return r;
}

/** updateReports on the database file `db` (opened for this, closed after). */
export async function updateReportsOf(db: string, o: UpdateOptions = {}): Promise<BuildResult | undefined> {
  return db === ':memory:' ? undefined : withStore(db, {}, (store) => updateReports(store, o));
}
