// `arena reports --rebuild` and every write: each report a page, chart or /api table shows, computed where its data
// changed and stored (stored.ts); rows no page reaches any more (a pruned judge's) are removed.
import { duelPair } from '../judge-quality/duel.ts';
import type { Store } from '../../storage/store.ts';
import { readOnce } from '../read-once.ts';
import type { Filter, Memo, SiteOptions } from './catalog.ts';
import { SiteData } from './site-data.ts';
import {
  encodeReport,
  optionsTag,
  REPORT_VERSION,
  STATE,
  StoredReports,
  type ReportCounts,
} from './stored.ts';

export interface BuildOptions extends Partial<SiteOptions> {
  /** one line per step: "leaderboards of gpt-4 (3/7)" */
  progress?: (step: string, done: number, total: number) => void;
  /** build only the steps (named as in reportSteps) this accepts, leaving the others' rows as they are */
  only?: (step: string) => boolean;
}

export interface BuildResult extends ReportCounts {
  /** reports kept (current or rebuilt) */
  reports: number;
  /** rows removed: reports no page reaches any more */
  removed: number;
  ms: number;
}

/** A plain in-memory memo for one build (each value computed once). */
function mapMemo(): Memo {
  const m = new Map<string, Promise<unknown>>();
  return {
    get<T>(key: string, compute: () => Promise<T>): Promise<T> {
      let p = m.get(key) as Promise<T> | undefined;
      if (!p) m.set(key, (p = compute()));
      return p;
    },
  };
}

/** Every report a page, a chart or an /api table shows, as named steps computing them through `data`. */
export async function reportSteps(data: SiteData): Promise<[string, () => Promise<unknown>][]> {
  const { catalog, leaderboards: lb, judges: jt, health } = data;
  const judges = await catalog.rankedJudges();
  const filters: Filter[] = [
    {},
    { turn: 1 },
    { turn: 2 },
    ...(await catalog.categories()).map((category) => ({ category })),
  ];
  const steps: [string, () => Promise<unknown>][] = [];
  for (const j of judges)
    steps.push([
      `leaderboards of ${j}`,
      async () => {
        for (const f of filters) await lb.leaderboard(j, f);
        for (const f of filters) await lb.matrix(j, f);
        for (const turn of [undefined, 1, 2])
          await lb.standings({ judge: j, mode: 'pairwise-all', ...(turn ? { turn } : {}) });
      },
    ]);
  steps.push([
    'model pages',
    async () => {
      const models = new Set(await catalog.models());
      for (const j of judges) for (const r of await lb.leaderboard(j)) models.add(r.model);
      for (const j of judges) for (const m of [...models].sort()) await lb.model(j, m);
    },
  ]);
  for (const j of judges) steps.push([`style control of ${j}`, () => health.style(j)]);
  for (const j of judges) steps.push([`rating variants of ${j}`, () => data.variants.of(j)]);
  steps.push(['single-answer grading', async () => Promise.all(filters.map((f) => lb.single(f)))]);
  steps.push(['judge board', () => jt.judgeBoard()]);
  steps.push(['accuracy', () => jt.accuracy()]);
  steps.push([
    'consistency, agreement, position bias',
    async () => [await jt.consistency(), await jt.agreement(), await jt.annotatorVotes(), await jt.bias()],
  ]);
  steps.push(['benchmark health', () => health.health()]);
  steps.push(['checkpoints', () => data.checkpoints.series()]);
  const pair = duelPair(judges);
  if (pair) steps.push(['GPT-4 beside the study judge', () => jt.duel(pair)]);
  return steps;
}

/** The most game facts a build keeps for the next report that reads the same filter. */
const FACTS_KEPT = 1_000_000;

/** Compute and store every report whose data changed (all of them when none is stored); see above. */
export async function buildReports(written: Store, o: BuildOptions = {}): Promise<BuildResult> {
  const t0 = Date.now();
  // its reports read the same judge's facts about ten times (bench/README.md): each filter's once, up to FACTS_KEPT
  let kept = 0;
  const store = readOnce(written, { games: 'facts' }, (facts) => {
    const n = (facts as unknown[]).length;
    if (kept + n > FACTS_KEPT) return false;
    kept += n;
    return true;
  });
  const site: SiteOptions = {
    bootstrapRounds: o.bootstrapRounds ?? 1000,
    ...(o.intervals ? { intervals: o.intervals } : {}),
  };
  const memo = new StoredReports(store, mapMemo(), site, 'build');
  const data = new SiteData(store, memo, site);
  const digest = (await memo.digest())!;
  const steps = (await reportSteps(data)).filter(([name]) => !o.only || o.only(name));
  for (const [k, [name, run]] of steps.entries()) {
    o.progress?.(name, k, steps.length);
    await run();
  }
  o.progress?.('done', steps.length, steps.length);
  // the digest the Worker compares with (written only when it changed), and the rows no page reaches any more
  const state = encodeReport(digest);
  const [was] = await store.reports.get([STATE]);
  if (was?.body !== state || was.version !== REPORT_VERSION)
    await store.reports.put([
      { ...STATE, digest: '', version: REPORT_VERSION, body: state, builtAt: Date.now(), ms: 0 },
    ]);
  const gone = (o.only ? [] : await store.reports.index()).filter(
    (r) =>
      r.view !== STATE.view &&
      r.params.startsWith(optionsTag(site)) &&
      !memo.touched.has(`${r.view}\u0000${r.params}`),
  );
  if (gone.length) await store.reports.remove(gone);
  return { ...memo.counts, reports: memo.touched.size, removed: gone.length, ms: Date.now() - t0 };
}
