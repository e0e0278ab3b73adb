// This process as the engine's runs see it. The engine never reads the host or the process itself: the CLI
// passes an owner ("host:pid") for the runs it plays and a way to tell whether another run's owner is alive.
import { hostname } from 'node:os';
import type { Liveness } from '../engine/play/index.ts';

/** This process as a run's owner: "host:pid". */
function thisProcess(): string {
  return `${hostname()}:${process.pid}`;
}

/**
 * Whether the process an owner string names is alive: known only on this host (signal 0 probes the pid;
 * EPERM means it exists under another user). Elsewhere undefined: the run's heartbeat decides.
 */
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
  return { owner: thisProcess(), isAlive: processAlive };
}
