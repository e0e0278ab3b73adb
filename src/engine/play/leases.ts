// Leases: every game is leased in the database before its call, so several processes on one database
// share the work and pay for each game once. A live run renews its leases with its heartbeat; a dead run's
// leases expire (or are freed when it is reaped) and other runs take them over.
import { RUN_LEASE_MS } from '../../core/run-seen.ts';
import type { Store } from '../../storage/store.ts';
import type { PlayItem } from './types.ts';

export const DEFAULT_LEASE_MS = RUN_LEASE_MS;

/** Mark running runs whose process is gone, or silent for `leaseMs`, `interrupted` (freeing their leases). */
export async function reapDeadRuns(
  store: Store,
  o: {
    leaseMs?: number;
    isAlive?: ((owner: string) => boolean | undefined) | undefined;
    except?: string;
    now?: number;
  } = {},
): Promise<number> {
  const now = o.now ?? Date.now();
  const lease = o.leaseMs ?? DEFAULT_LEASE_MS;
  const dead = (await store.runs.list()).filter(
    // only runs that keep a heartbeat (played by this loop); other kinds of run record their own ends
    (r) =>
      r.status === 'running' &&
      r.id !== o.except &&
      r.heartbeatAt != null &&
      ((r.owner && o.isAlive?.(r.owner) === false) || r.heartbeatAt < now - lease),
  );
  return dead.length
    ? store.runs.markInterrupted(
        dead.map((r) => r.id),
        now,
      )
    : 0;
}

/** The leases one run holds (the run's id is the leases' owner in the store). */
export class Leases {
  constructor(
    private readonly store: Store,
    private readonly runId: string,
    readonly leaseMs: number,
  ) {}

  /** Lease what it can of `items` (those neither stored nor leased to another live run); returns those. */
  async claim(items: PlayItem[]): Promise<PlayItem[]> {
    const now = Date.now();
    const got = new Set(
      await this.store.leases.claim(
        this.runId,
        items.map((g) => g.id),
        now + this.leaseMs,
        now,
      ),
    );
    return items.filter((g) => got.has(g.id));
  }

  /** Extend every lease of the run by a lease's length from `from`. */
  renew(from: number): Promise<void> {
    return this.store.leases.renew(this.runId, from + this.leaseMs);
  }

  /** Give back these leases (a failed game's, so that another run may take it; finished games'). */
  release(ids: string[]): Promise<void> {
    return this.store.leases.release(this.runId, ids);
  }

  /** Give back every lease the run still holds (at its end). */
  releaseAll(): Promise<void> {
    return this.store.leases.release(this.runId);
  }
}
