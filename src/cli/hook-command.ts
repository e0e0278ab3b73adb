// A refresh's `publish.command` as a child process (ops/deps.ts RunHook): its output on ours, its stdin closed, in a
// process group of its own, so that a timeout, SIGINT or SIGTERM stops it with everything it started (a shell's
// children too) and nothing it runs can hold the refresh, or its lock, past that.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { HookEnd, RunHook } from '../ops/deps.ts';

/** After SIGTERM, how long the group has to end before SIGKILL. */
const GRACE_MS = 3000;

export const runHook: RunHook = (cmd, args, o) =>
  new Promise<HookEnd>((done) => {
    let stopped: 'timeout' | 'aborted' | undefined;
    const child = spawn(cmd, args, {
      cwd: resolve(o.cwd),
      env: o.env,
      stdio: ['ignore', 'inherit', 'inherit'],
      detached: true, // its own process group: killed as one
    });
    const group = (signal: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // the group is gone already
      }
    };
    let grace: NodeJS.Timeout | undefined;
    const stop = (why: 'timeout' | 'aborted') => {
      if (stopped) return;
      stopped = why;
      group('SIGTERM');
      grace = setTimeout(() => group('SIGKILL'), GRACE_MS);
    };
    const timer = setTimeout(() => stop('timeout'), o.timeoutMs);
    const onAbort = () => stop('aborted');
    o.signal?.addEventListener('abort', onAbort, { once: true });
    if (o.signal?.aborted) onAbort();
    // a second Ctrl-C exits at once (cli/commands/ops.ts interruptible): the group goes with this process
    const onExit = () => group('SIGKILL');
    process.once('exit', onExit);
    const end = (e: HookEnd) => {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      process.off('exit', onExit);
      if (stopped) {
        // what ignored SIGTERM in the group ends now, not after the grace
        clearTimeout(grace);
        group('SIGKILL');
      }
      done(e);
    };
    child.once('error', (e) => end({ cannotStart: (e as NodeJS.ErrnoException).code ?? e.message }));
    child.once('exit', (code, signal) =>
      end(stopped ? { stopped } : code !== null ? { exit: code } : { signal: signal ?? 'a signal' }),
    );
  });
