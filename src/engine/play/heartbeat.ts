// The live run record: progress in batches (at most once per flush interval), with the heartbeat that keeps the
// run's leases and releases finished games' leases. A run whose heartbeat stops is taken for dead (leases.ts).
import type { LiveRun } from './live-run.ts';
import { runRecord } from './record.ts';

export class Heartbeat {
  private lastBeat = Date.now();
  private beating: Promise<void> | undefined;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly live: LiveRun,
    flushMs: number,
  ) {
    this.timer = setInterval(
      () => void this.beat().catch((e) => live.noteError(`progress not saved: ${(e as Error).message}`)),
      Math.min(flushMs, live.leaseMs / 4),
    );
  }

  /** Write the record, release finished leases and renew the rest, when needed; one beat at a time. */
  beat(): Promise<void> {
    const { live } = this;
    if (this.beating) return this.beating;
    if (!live.dirty && Date.now() - this.lastBeat < live.leaseMs / 4) return Promise.resolve();
    live.dirty = false;
    this.lastBeat = live.run.heartbeatAt = Date.now();
    const release = live.finished;
    live.finished = [];
    this.beating = (async () => {
      try {
        await live.store.runs.save(runRecord(live.run));
        if (release.length) await live.leases.release(release);
        await live.leases.renew(this.lastBeat);
      } finally {
        this.beating = undefined;
      }
    })();
    return this.beating;
  }

  /** Stop beating, once the beat under way (if any) is written. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
  }
}
