// The runs and refreshes pages' data: the last runs (newest first) and the last nightly refreshes, each refresh as
// a flat row (status, why it is degraded, games played, calls, cost).
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
  cost: number;
  estCost: number | null;
  /** the refresh's one-line summary (as printed for the cron log) */
  line: string;
}

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
      return runs.reverse().map((r) => ({ ...runSeen(r, now), games: r.played }));
    });
  }

  /** The last refreshes, newest first. */
  refreshes(limit = 30): Promise<RefreshRow[]> {
    return this.cache.get(`refreshes:${limit}`, async () =>
      (await this.store.refreshes.list(limit)).map(refreshRow),
    );
  }
}

export function refreshRow(r: RefreshRecord): RefreshRow {
  const s = r.summary;
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
    cost: r.cost,
    estCost: s.estCost ?? null,
    line: s.line ?? '',
  };
}
