// The runs and refreshes pages' data: the last runs and refreshes, newest first, each refresh as a flat row.
import { boardStory, type BoardStory } from './succession.ts';
import type { RefreshRecord, RefreshStatus, RunRecord, Store } from '../../storage/store.ts';
import { runSeen } from '../../core/run-seen.ts';
import type { Memo } from './catalog.ts';

export interface RefreshRow {
  id: string;
  startedAt: number;
  finishedAt: number | null;
  status: RefreshStatus;
  /** why it is degraded (or the error of a failed refresh); empty when healthy */
  reasons: string[];
  newModels: string[];
  changedAnswers: number | null;
  /** games judged, judge calls that failed (after retries), games the budget stopped before they started */
  played: number | null;
  failed: number | null;
  skipped: number | null;
  /** judge calls that ended in a game or a failure (played + failed; retries not counted) */
  calls: number | null;
  /** what it spent and was estimated to, in USD: null unless its config opted in (`publish.showCost`) */
  cost: number | null;
  estCost: number | null;
  /** the refresh's one-line summary (as printed for the cron log) */
  line: string;
}

/** When the data last changed, and what changed it: the newest run, inside the refresh that played it if any. */
export interface Provenance {
  at: number;
  run?: { id: string; judge: string };
  refresh?: { id: string; status: RefreshStatus };
}

/** The moment a run or refresh last wrote: when it finished, else its last heartbeat, else its start. */
const lastWrite = (r: { startedAt: number; finishedAt?: number | null; heartbeatAt?: number | null }) =>
  r.finishedAt ?? r.heartbeatAt ?? r.startedAt;

/** refreshes read for the boards' story: nearly three years of nightly ones, each record whole (no Store read of successions yet) */
const STORY_REFRESHES = 1000;

export class RunHistory {
  constructor(
    private readonly store: Store,
    private readonly cache: Memo,
  ) {}

  /** The last runs, newest first. */
  runs(limit = 30): Promise<(RunRecord & { games: number })[]> {
    return this.cache.get(`runs:${limit}`, async () => {
      const runs = await this.store.runs.list(limit);
      const now = Date.now();
      const hidden = await this.privateCosts(runs, limit);
      return runs
        .reverse()
        .map((r) => ({ ...runSeen(r, now), games: r.played, ...(hidden(r) ? { cost: null } : {}) }));
    });
  }

  /**
   * Whether a run's cost is private: a run a refresh played shows it only where that refresh's config opts in
   * (`publish.showCost`); one played by hand shows it; a refresh older than the newest `limit` is not read.
   */
  private async privateCosts(runs: RunRecord[], limit: number): Promise<(r: RunRecord) => boolean> {
    const refreshOf = (r: RunRecord) => (r.config as { refresh?: unknown } | null)?.refresh;
    if (!runs.some((r) => typeof refreshOf(r) === 'string')) return () => false;
    const open = new Set((await this.store.refreshes.list(limit)).filter(showsCost).map((r) => r.id));
    return (r) => {
      const id = refreshOf(r);
      return typeof id === 'string' && !open.has(id);
    };
  }

  /** The newest change recorded by a run or refresh (null when the data was only imported). */
  provenance(): Promise<Provenance | null> {
    return this.cache.get('provenance', async () => {
      const [runs, [refresh]] = await Promise.all([this.store.runs.list(), this.store.refreshes.list(1)]);
      const run = runs.reduce<RunRecord | undefined>(
        (a, r) => (!a || lastWrite(r) > lastWrite(a) ? r : a),
        undefined,
      );
      if (!run && !refresh) return null;
      const p: Provenance = { at: Math.max(run ? lastWrite(run) : 0, refresh ? lastWrite(refresh) : 0) };
      if (run) p.run = { id: run.id, judge: run.judge };
      // the refresh is named when it is the newest change or the newest run was played inside it
      if (refresh && (!run || lastWrite(refresh) >= run.startedAt))
        p.refresh = { id: refresh.id, status: refresh.status };
      return p;
    });
  }

  /** The boards' story (which judge, since when, retired) and the successions' bridge reports, from every refresh. */
  story(): Promise<BoardStory> {
    return this.cache.get('story', async () => boardStory(await this.store.refreshes.list(STORY_REFRESHES)));
  }

  /** The last refreshes, newest first. */
  refreshes(limit = 30): Promise<RefreshRow[]> {
    return this.cache.get(`refreshes:${limit}`, async () =>
      (await this.store.refreshes.list(limit)).map((r) => refreshRow(runSeen(r))),
    );
  }
}

/** Whether the refresh's config lets the public site show its cost (`publish.showCost: true`). */
function showsCost(r: RefreshRecord): boolean {
  const c = r.config?.config as { publish?: { showCost?: unknown } } | null | undefined;
  return c?.publish?.showCost === true;
}

/** The cron line (src/ops/refresh/report.ts summaryLine) without what was spent and estimated. */
const withoutCost = (line: string): string =>
  line.replace(
    /; \$[\d.]+ spent(?:, \$[\d.]+ of it estimated \(cost not reported\))? \(est\. \$[\d.]+\)/,
    '; cost not published',
  );

function refreshRow(r: RefreshRecord): RefreshRow {
  const s = r.summary;
  const shown = showsCost(r);
  const reasons: unknown = r.degraded ?? [];
  const played = s.played ?? null;
  const failed = s.failed ?? null;
  return {
    id: r.id,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    status: r.status,
    reasons: Array.isArray(reasons) ? reasons.map(String) : [String(reasons)],
    newModels: s.imported?.newModels ?? [],
    changedAnswers: s.imported?.changedAnswers ?? null,
    played,
    failed,
    skipped: s.skipped ?? null,
    calls: played === null || failed === null ? null : played + failed,
    cost: shown ? r.cost : null,
    estCost: shown ? (s.estCost ?? null) : null,
    line: shown ? (s.line ?? '') : withoutCost(s.line ?? ''),
  };
}
