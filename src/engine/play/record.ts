// The Run record as the play loop keeps it: a new run's counters, and the part of it the store keeps.
import type { RunRecord } from '../../storage/store.ts';
import type { PlayRun } from './types.ts';

/** A run about to play: counters at zero, status running, owned by `owner` where the caller names one. */
export function newRun(
  r: Pick<RunRecord, 'judge' | 'mode' | 'config' | 'planned' | 'toPlay'> &
    Partial<Pick<RunRecord, 'owner' | 'cost'>>,
): PlayRun {
  const now = Date.now();
  return {
    id: crypto.randomUUID(),
    startedAt: now,
    finishedAt: null,
    played: 0,
    failed: 0,
    tokensIn: 0,
    tokensOut: 0,
    status: 'running',
    cost: null,
    // before the heartbeat: the key order a printed run (--json) has always had
    ...(r.owner != null ? { owner: r.owner } : {}),
    heartbeatAt: now,
    errors: [],
    skipped: 0,
    elsewhere: 0,
    usageUnknown: 0,
    redacted: 0,
    costEstimated: 0,
    ...r,
  };
}

/** The stored part of a run (without the loop's own counters). */
export function runRecord(run: PlayRun): RunRecord {
  const {
    errors: _e,
    skipped: _s,
    elsewhere: _o,
    usageUnknown: _u,
    redacted: _r,
    costEstimated: _c,
    ...r
  } = run;
  return r;
}
