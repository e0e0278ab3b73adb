// Step 4 of a refresh: each judge's health against the last refresh that measured it, the canary's drift,
// the refresh's status and its one line for the cron log.
import type { RefreshStatus, Store } from '../../storage/store.ts';
import type { RefreshConfig } from '../config.ts';
import { healthJumps, judgeHealth, type JudgeHealth } from '../health.ts';
import type { Played } from './play.ts';
import { EXIT, type JudgePlan, type RefreshSummary } from './types.ts';

/** Health per judge, and what degraded (a jump in error or inconsistency rate, a drifting canary). */
export async function judgeHealthReport(
  store: Store,
  c: RefreshConfig,
  id: string,
  judges: JudgePlan[],
  { runs, drift }: Played,
): Promise<{ health: Record<string, JudgeHealth>; degraded: string[] }> {
  const previous = (await store.refreshes.list(100)).filter((r) => r.id !== id && r.status !== 'running');
  const health: Record<string, JudgeHealth> = {};
  const degraded: string[] = [];
  for (const jp of judges) {
    const jr = runs.filter((r) => r.judge === jp.judge.id);
    const h = judgeHealth(
      await store.games.ofRuns(
        jp.judge.id,
        jr.map((r) => r.id),
      ),
      jr.reduce((s, r) => s + r.failed, 0),
      c.health.minGames,
    );
    health[jp.judge.id] = h;
    const last = { errorRate: null as number | null, inconsistencyRate: null as number | null };
    for (const p of previous) {
      const ph = p.summary.judges?.[jp.judge.id];
      if (!ph) continue;
      last.errorRate ??= ph.errorRate;
      last.inconsistencyRate ??= ph.inconsistencyRate;
      if (last.errorRate !== null && last.inconsistencyRate !== null) break;
    }
    degraded.push(...healthJumps(jp.judge.id, h, last, c.health));
    const d = drift[jp.judge.id];
    if (d?.changeRate != null && d.changeRate > c.canary!.maxChangeRate)
      degraded.push(
        `${jp.judge.id}: drift: ${d.changed} of ${d.compared} anchor games changed verdict (${(100 * d.changeRate).toFixed(1)}% > ${(100 * c.canary!.maxChangeRate).toFixed(1)}%)`,
      );
  }
  return { health, degraded };
}

/** The refresh's summary once it has played (`published`, `seconds` and `line` are filled in later). */
export function summarize(
  base: Pick<RefreshSummary, 'id' | 'imported' | 'plan' | 'estCost'>,
  { runs, batches, drift, successions }: Played,
  health: Record<string, JudgeHealth>,
  degraded: string[],
  interrupted: boolean,
): RefreshSummary & { status: Exclude<RefreshStatus, 'running'> } {
  const sum = (k: 'played' | 'failed' | 'skipped') => runs.reduce((s, r) => s + r[k], 0);
  const cost = runs.reduce((s, r) => s + (r.cost ?? 0), 0);
  const costEstimated = runs.reduce((s, r) => s + r.costEstimated, 0);
  const status = refreshStatus(interrupted, degraded, { failed: sum('failed'), skipped: sum('skipped') });
  return {
    ...base,
    status,
    exitCode: EXIT[status],
    runs,
    played: sum('played'),
    failed: sum('failed'),
    skipped: sum('skipped'),
    cost,
    costEstimated,
    judges: health,
    ...(successions.length ? { succession: successions } : {}),
    drift,
    degraded,
    batches,
    published: [],
    seconds: 0,
    line: '',
  };
}

/** Interrupted, degraded, failed games, games the budget stopped, or ok: the first that holds. */
function refreshStatus(
  interrupted: boolean,
  degraded: string[],
  totals: { failed: number; skipped: number },
): Exclude<RefreshStatus, 'running'> {
  return interrupted
    ? 'interrupted'
    : degraded.length
      ? 'degraded'
      : totals.failed
        ? 'failed'
        : totals.skipped
          ? 'budget'
          : 'ok';
}

/** The one line for the cron log (`s.seconds` already set). */
export function summaryLine(s: RefreshSummary): string {
  const { status, drift, degraded, cost } = s;
  const pending = s.batches.reduce((n, b) => n + b.pending, 0);
  const waiting = s.batches.reduce((n, b) => n + (b.waiting ?? 0), 0);
  return (
    `refresh ${s.id.slice(0, 8)}: ${status.toUpperCase()}; ${s.imported.newModels.length} new model(s), ${s.imported.changedAnswers} changed answer(s); ` +
    `${s.played} played, ${s.failed} failed${s.skipped ? `, ${s.skipped} not started (budget)` : ''}${pending ? `, ${pending} in pending batches` : ''}${waiting ? `, ${waiting} to submit as the budget frees (a later refresh)` : ''}; ` +
    `$${cost.toFixed(4)} spent${s.costEstimated ? `, $${s.costEstimated.toFixed(4)} of it estimated (cost not reported)` : ''} (est. $${s.estCost.toFixed(4)})` +
    `${
      Object.values(drift).some((d) => d.changeRate !== null)
        ? `; canary change ${Object.values(drift)
            .map((d) => (d.changeRate === null ? '-' : `${(100 * d.changeRate).toFixed(0)}%`))
            .join('/')}`
        : ''
    }` +
    `${degraded.length ? `; degraded: ${degraded.join('; ')}` : ''}` +
    `${[...new Set(s.plan.flatMap((l) => (l.retiring ? [l.retiring] : [])))].map((w) => `; warning: ${w}`).join('')}; ${s.seconds.toFixed(1)} s`
  );
}
