// The one loop that plays games (tournament, escalation, calibrated runs, batch import): it leases each game
// before its call, calls, reads the reply into a verdict (game.ts), stores it (commit.ts) and keeps the live run
// record (heartbeat.ts). A call that fails after its retries is an attempt on record, never a verdict: that rule
// lives here and nowhere else. It prints nothing: progress goes to `onProgress`.
import { GroupCommit } from './commit.ts';
import { playGame } from './game.ts';
import { Heartbeat } from './heartbeat.ts';
import { DEFAULT_LEASE_MS, reapDeadRuns } from './leases.ts';
import { LiveRun } from './live-run.ts';
import { ReadyQueue } from './queue.ts';
import { storageStop } from './storage-stop.ts';
import { runRecord } from './record.ts';
import type { PlayItem, PlayOptions, PlayRun } from './types.ts';

export type { Liveness, PlayItem, PlayOptions, PlayRun, RunProgress } from './types.ts';
export { reapDeadRuns } from './leases.ts';
export { newRun, runRecord } from './record.ts';

/**
 * Play `todo` (games not stored yet, each once) as `run`, committing each game as it completes, so a rerun plays
 * only what is missing. Each game is leased before its call, so processes sharing a database pay for it once;
 * a dead run's leases expire. The run record is saved when play starts, as games land (at most once per
 * `flushMs`) and with its final status; nothing is saved when there is nothing to play.
 */
export function playGames(todo: readonly PlayItem[], o: PlayOptions): Promise<PlayRun> {
  // a copy whose taken items are dropped, so that a played game's prompts can be collected while the run goes on
  // (an async function would keep `todo` alive until it returns)
  return play([...todo], o);
}

async function play(todo: (PlayItem | undefined)[], o: PlayOptions): Promise<PlayRun> {
  const { store, run } = o;
  const leaseMs = o.leaseMs ?? DEFAULT_LEASE_MS;
  const concurrency = Math.max(1, o.concurrency ?? 8);
  Object.assign(run, { status: 'running', finishedAt: null, heartbeatAt: Date.now() });
  // a run killed earlier (SIGKILL, power cut) is still `running`: mark it, and free the games it held
  await reapDeadRuns(store, { leaseMs, isAlive: o.isAlive, except: run.id });
  // a run with nothing to play leaves no record (a no-op rerun is not a run)
  if (!todo.length) return Object.assign(run, { status: 'done', finishedAt: Date.now(), heartbeatAt: null });
  await store.runs.save(runRecord(run));

  const live = new LiveRun({ ...o, leaseMs, total: todo.length });
  const heartbeat = new Heartbeat(live, o.flushMs ?? 1000);
  const group = new GroupCommit(live);
  const queue = new ReadyQueue(todo, live, concurrency);
  const worker = async () => {
    for (let g = await queue.next(); g; g = await queue.next()) await playGame(g, o, live, group);
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, todo.length) }, worker));
  } finally {
    const fault = (e: unknown) => live.storageFailed(e);
    await heartbeat.stop().catch(fault);
    await live.leases.releaseAll().catch(fault);
  }
  if (live.storageFault) return storageStop(live, o);
  run.finishedAt = Date.now();
  run.status = o.signal?.aborted ? 'interrupted' : run.skipped ? 'budget' : run.failed ? 'failed' : 'done';
  run.heartbeatAt = null; // the owner stays: which process played it
  await store.runs.save(runRecord(run));
  return run;
}
