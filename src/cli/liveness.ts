// This process as the engine's runs see it (the engine never reads the host or the process itself).
import { hostname } from 'node:os';
import type { Liveness } from '../engine/play/index.ts';

/** Whether the process an owner ("host:pid") names is alive: known only on this host, else the heartbeat decides. */
function processAlive(owner: string): boolean | undefined {
  const i = owner.lastIndexOf(':');
  const pid = Number(owner.slice(i + 1));
  if (i < 0 || owner.slice(0, i) !== hostname() || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  return pidAlive(pid);
}

/** Whether the process `pid` on this host is alive: signal 0 probes it; EPERM means it exists under another user. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The runs this process plays: owned by it, and told apart from runs whose process died on this host. */
export function processLiveness(): Liveness {
  return { owner: `${hostname()}:${process.pid}`, isAlive: processAlive };
}
