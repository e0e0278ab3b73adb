// A command (a refresh's `publish.command`, `wrangler d1 execute`) in a process group of its own, stdin closed, so
// that a timeout, an abort, or this process's exit stops it with everything it started.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { Env, HookEnd, RunHook } from '../ops/deps.ts';

/** After SIGTERM, how long the group has to end before SIGKILL. */
const GRACE_MS = 3000;

/** How it ended, and what it printed when captured; `overflow` names the stream that passed `maxBuffer`. */
export interface GroupEnd {
  end: HookEnd;
  stdout: string;
  stderr: string;
  overflow?: 'stdout' | 'stderr';
}

/**
 * `output`: ours (default), its stdout on our stderr, or read (at most `maxBuffer` characters each, default 1 MiB);
 * `killLeftovers`: stop what it left running in its group when it ends (an idle workerd).
 */
export function runInGroup(
  cmd: string,
  args: string[],
  o: {
    cwd?: string;
    env: Env | NodeJS.ProcessEnv;
    timeoutMs: number;
    signal?: AbortSignal | undefined;
    output?: 'inherit' | 'stderr' | 'capture';
    maxBuffer?: number;
    killLeftovers?: boolean;
  },
): Promise<GroupEnd> {
  return new Promise<GroupEnd>((done) => {
    let stopped: 'timeout' | 'aborted' | undefined;
    const out = { stdout: '', stderr: '' };
    let overflow: 'stdout' | 'stderr' | undefined;
    const capture = o.output === 'capture';
    const child = spawn(cmd, args, {
      cwd: o.cwd === undefined ? undefined : resolve(o.cwd),
      env: o.env,
      stdio: [
        'ignore',
        capture ? 'pipe' : o.output === 'stderr' ? process.stderr : 'inherit',
        capture ? 'pipe' : 'inherit',
      ],
      detached: true, // its own process group: killed as one
    });
    const group = (signal: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // the group is gone already
      }
    };
    const max = o.maxBuffer ?? 1024 * 1024;
    for (const k of ['stdout', 'stderr'] as const)
      child[k]?.setEncoding('utf8').on('data', (d: string) => {
        out[k] += d;
        if (out[k].length > max && !overflow) {
          overflow = k;
          group('SIGKILL');
        }
      });
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
    // a second Ctrl-C exits at once: the group goes with this process
    const onExit = () => group('SIGKILL');
    process.once('exit', onExit);
    let ended = false;
    const end = (e: HookEnd) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      process.off('exit', onExit);
      // what ignored SIGTERM in the group ends now, not after the grace
      clearTimeout(grace);
      if (stopped || o.killLeftovers) group('SIGKILL');
      done({ end: e, ...out, ...(overflow ? { overflow } : {}) });
    };
    child.once('error', (e) => end({ cannotStart: (e as NodeJS.ErrnoException).code ?? e.message }));
    // 'close': its output read to the end as well
    child.once('close', (code, signal) =>
      end(stopped ? { stopped } : code !== null ? { exit: code } : { signal: signal ?? 'a signal' }),
    );
  });
}

export const runHook: RunHook = (cmd, args, o) => runInGroup(cmd, args, o).then((r) => r.end);
