// `arena reports --rebuild` and the write path (import, run, refresh, reparse, prune, publish): every report a
// page of the site, a chart or an /api table shows by default or through its filters, computed where its data
// changed and stored (src/reports/site/stored.ts); rows no longer reachable (a pruned judge's) are removed.
import { duelPair } from '../judges/duel.ts';
import type { GameFilter, Store } from '../../storage/store.ts';
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
  /**
   * build only the steps (named as in reportSteps) this accepts: the reports of the other steps are left as they
   * are (missing ones stay missing, and no row is removed), so a page that reads one of them is refused by the
   * Worker. A test that reads a few reports the Worker's way builds just those.
   */
  only?: (step: string) => boolean;
}

export interface BuildResult extends ReportCounts {
  /** reports kept (current or rebuilt) */
  reports: number;
  /** rows removed: reports no page reaches any more */
  removed: number;
  ms: number;
}

/** The most games a build keeps from its reads for the next read of the same filter: with text, and without. */
const LISTED_GAMES_KEPT = 20_000;
const GAME_FACTS_KEPT = 1_000_000;

/**
 * The store a build reads through: its reports ask for the same games again and again (a judge's facts ten times
 * per build, the study judge's 4,800 games with their text ten times in a build of the database `arena start`
 * makes), so each filter's read is made once while the build runs, up to `most` games in all, and every reader
 * gets its own array.
 */
export function listingOnce(store: Store, most = LISTED_GAMES_KEPT, mostFacts = GAME_FACTS_KEPT): Store {
  const once = <G>(read: (f?: GameFilter) => Promise<G[]>, limit: number) => {
    // the read itself, so that readers asking at once (a report's Promise.all) share it
    const kept = new Map<string, Promise<G[]>>();
    let count = 0;
    return (f?: GameFilter): Promise<G[]> => {
      const key = JSON.stringify(f ?? {});
      let p = kept.get(key);
      if (!p) {
        kept.set(key, (p = read(f)));
        p.then(
          (games) => {
            count += games.length;
            if (count > limit) (kept.delete(key), (count -= games.length));
          },
          () => kept.delete(key),
        );
      }
      return p.then((games) => [...games]);
    };
  };
  const games = store.games;
  const list = once((f) => games.list(f), most);
  const facts = once((f) => games.facts(f), mostFacts);
  const through = <T extends object>(target: T, own: Record<string | symbol, unknown>) =>
    new Proxy(target, {
      get: (t, p) => {
        if (Object.hasOwn(own, p)) return own[p];
        const v = Reflect.get(t, p, t) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      },
    });
  return through(store, { games: through(games, { list, facts }) });
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

/**
 * Every report a page, a chart or an /api table shows by default or through its filters, as named steps that
 * compute them through `data` (its memo stores them when building).
 */
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

/** Compute and store every report whose data changed (all of them when none is stored); see above. */
export async function buildReports(store: Store, o: BuildOptions = {}): Promise<BuildResult> {
  const t0 = Date.now();
  const site: SiteOptions = {
    bootstrapRounds: o.bootstrapRounds ?? 1000,
    ...(o.intervals ? { intervals: o.intervals } : {}),
  };
  const reads = listingOnce(store);
  const memo = new StoredReports(reads, mapMemo(), site, { mode: 'build' });
  const data = new SiteData(reads, memo, site);
  const digest = (await memo.digest())!;
  const steps = (await reportSteps(data)).filter(([name]) => !o.only || o.only(name));
  for (const [k, [name, run]] of steps.entries()) {
    o.progress?.(name, k, steps.length);
    await run();
  }
  o.progress?.('done', steps.length, steps.length);
  // the digest the Worker compares with, and the rows no page reaches any more
  await store.reports.put([
    { ...STATE, digest: '', version: REPORT_VERSION, body: encodeReport(digest), builtAt: Date.now(), ms: 0 },
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
