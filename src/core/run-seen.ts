// How a run is shown: a run still marked running whose heartbeat is older than a lease was killed (SIGKILL,
// a power cut) and shows as interrupted at once, before another run on the database marks it so.

/** How long a game's lease, and so a silent run's claim to be alive, lasts (the play loop's default). */
export const RUN_LEASE_MS = 60_000;

/** `r` as it is to be shown: interrupted when it is running with a heartbeat older than `leaseMs`. */
export function runSeen<R extends { status: string; heartbeatAt?: number | null }>(
  r: R,
  now = Date.now(),
  leaseMs = RUN_LEASE_MS,
): R {
  return r.status === 'running' && r.heartbeatAt != null && r.heartbeatAt < now - leaseMs
    ? { ...r, status: 'interrupted' }
    : r;
}
