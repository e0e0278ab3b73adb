// Run the real `arena`: in this process through runCli (same parsing, commands and exit status, no node start), or
// as bin/arena.mjs in a child process where the process is under test; and scratch directories.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const ARENA_BIN = join(REPO_ROOT, 'bin', 'arena.mjs');

/** Our own tournament's questions and answers (questions/), as `arena run` takes them (relative to REPO_ROOT). */
export const OWN_QA = ['--questions', 'questions/arena.jsonl', '--answers', 'questions/answers'];
/** The same, judged with our own judge prompts (`--prompts arena`). */
export const OWN = [...OWN_QA, '--prompts', 'arena'];

export interface RunResult {
  code: number | null;
  /** set when the process was ended by a signal (e.g. the timeout's SIGKILL) */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** extra environment variables, merged over process.env */
  env?: Record<string, string | undefined>;
  /** working directory (default: the repository root) */
  cwd?: string;
  /** kill the process after this long (default 120 s; the machine is slow and shared); spawned runs only */
  timeoutMs?: number;
  /** text written to the child's stdin (spawns the process) */
  input?: string;
  /** bin/arena.mjs in a child process: for what only a process shows (bundle, stdin, being killed) */
  spawn?: boolean;
}

/**
 * `arena ...args` as a user would run it: the exit code and everything printed, rejecting only if it cannot start;
 * in this process unless `opts.spawn` or `opts.input` (or ARENA_TEST_SPAWN=1) asks for a child process.
 */
export function runArena(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const spawned =
    opts.spawn || opts.input !== undefined || allSpawned || process.env.ARENA_TEST_SPAWN === '1';
  return spawned ? runArenaProcess(args, opts) : runArenaHere(args, opts);
}

let allSpawned = false;

/**
 * Every runArena/arenaOk/arenaJson of the calling file in a child process, for files about processes
 * (racing runs, killed runs' leases, a server's timing under load); endOfFile puts it back.
 */
export function spawnEveryRun(): void {
  allSpawned = true;
}

/** The environment a run sees: this process's, without colours, with `extra` over it (undefined unsets). */
function envFor(extra: RunOptions['env'] = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...extra };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env;
}

/** A stream that keeps what is written to it, as a pipe would (not a terminal). */
class Collect extends Writable {
  text = '';
  readonly isTTY = false;
  override _write(chunk: Buffer | string, _enc: BufferEncoding, done: () => void): void {
    this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    done();
  }
}

/** the in-process runs not yet done: a test that timed out leaves its run going (endOfFile waits for it) */
const inFlight = new Set<Promise<unknown>>();

/** `arena ...args` through the CLI's entry in this process (runs take turns; see runCli). */
async function runArenaHere(args: string[], opts: RunOptions): Promise<RunResult> {
  const { runCli } = await import('../../src/cli/main.ts');
  const stdout = new Collect({ decodeStrings: false });
  const stderr = new Collect({ decodeStrings: false });
  const run = runCli(args, { stdout, stderr, env: envFor(opts.env), cwd: opts.cwd ?? REPO_ROOT });
  inFlight.add(run);
  try {
    const code = await run;
    return { code, signal: null, stdout: stdout.text, stderr: stderr.text };
  } finally {
    inFlight.delete(run);
  }
}

/** `arena ...args` as bin/arena.mjs in a child process, to completion (or `opts.timeoutMs`). */
export function runArenaProcess(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ARENA_BIN, ...args], {
      cwd: opts.cwd ?? REPO_ROOT,
      env: envFor(opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** `arena ...args --json`, expecting exit code 0; returns the parsed JSON (throws with stderr otherwise). */
export async function arenaJson<T = unknown>(args: string[], opts: RunOptions = {}): Promise<T> {
  const r = await runArena([...args, '--json'], opts);
  if (r.code !== 0)
    throw new Error(`arena ${args.join(' ')} --json exited ${r.code ?? r.signal}:\n${r.stderr}`);
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`arena ${args.join(' ')} --json printed no JSON:\n${r.stdout}`);
  }
}

/** `arena ...args`, expecting exit code 0; returns stdout (throws with stderr otherwise). */
export async function arenaOk(args: string[], opts: RunOptions = {}): Promise<string> {
  const r = await runArena(args, opts);
  if (r.code !== 0) throw new Error(`arena ${args.join(' ')} exited ${r.code ?? r.signal}:\n${r.stderr}`);
  return r.stdout;
}

/** `arena run --db db --judge judge --models models` on OWN, then `extra`; expects exit 0, returns stdout. */
export function playOwn(
  db: string,
  judge: string,
  models: string,
  extra: string[] = [],
  opts: RunOptions = {},
): Promise<string> {
  return arenaOk(['run', '--db', db, '--judge', judge, '--models', models, ...OWN, ...extra], opts);
}

export interface SpawnedArena {
  child: ChildProcess;
  /** everything printed so far */
  stdout(): string;
  stderr(): string;
  /** resolves once the process has exited and its output is read (never rejects) */
  done: Promise<RunResult>;
}

const running = new Set<ChildProcess>();

/** `arena ...args` in a child process the test can signal (stdin closed), SIGKILLed if left at file end. */
export function spawnArena(args: string[], opts: Pick<RunOptions, 'env' | 'cwd'> = {}): SpawnedArena {
  const child = spawn(process.execPath, [ARENA_BIN, ...args], {
    cwd: opts.cwd ?? REPO_ROOT,
    env: envFor(opts.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<RunResult>((resolve) =>
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal, stdout, stderr });
    }),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

export interface ServingArena extends SpawnedArena {
  /** the URL it serves the leaderboard on, without a trailing slash */
  url: string;
  /** SIGTERM (SIGKILL if it has not exited 15 s later); resolves with the exit code */
  stop(): Promise<number | null>;
}

/**
 * `arena start|serve ...args` until it prints its URL; rejects if it exits first or at `timeoutMs` (killed).
 */
export function serveArena(
  args: string[],
  opts: Pick<RunOptions, 'env' | 'cwd' | 'timeoutMs'> = {},
): Promise<ServingArena> {
  const p = spawnArena(args, opts);
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const what = `arena ${args[0]}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      p.child.kill('SIGKILL');
      reject(new Error(`${what} printed no URL within ${timeoutMs} ms:\n${p.stdout()}\n${p.stderr()}`));
    }, timeoutMs);
    const check = () => {
      const url = /leaderboard on (http:\/\/\S+?)\/?\s/.exec(p.stdout())?.[1];
      if (!url) return;
      clearTimeout(timer);
      p.child.stdout!.off('data', check);
      const stop = async () => {
        p.child.kill('SIGTERM');
        const kill = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
        const { code } = await p.done;
        clearTimeout(kill);
        return code;
      };
      resolve({ ...p, url, stop });
    };
    p.child.stdout!.on('data', check);
    void p.done.then((r) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited (${r.code ?? r.signal}) before listening:\n${r.stdout}\n${r.stderr}`));
    });
  });
}

const made: string[] = [];
/** what the current test file asked to have stopped at its end (onFileEnd) */
const atEnd = new Set<() => Promise<void>>();

/** `stop` run when the calling test file is done, unless it was taken back (the function returned) first. */
export function onFileEnd(stop: () => Promise<void>): () => void {
  atEnd.add(stop);
  return () => atEnd.delete(stop);
}

const cleanUp = () => {
  for (const child of running) child.kill('SIGKILL');
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
};

/**
 * What a test file leaves behind, put away after it (by file-end.ts: a worker's files share this module): runs
 * awaited, onFileEnd servers stopped, child processes SIGKILLed, tmpDirs removed, spawnEveryRun undone.
 */
export async function endOfFile(): Promise<void> {
  await Promise.allSettled([...inFlight]);
  const stops = [...atEnd];
  atEnd.clear();
  await Promise.allSettled(stops.map((stop) => stop()));
  cleanUp();
  allSpawned = false;
}
// outside vitest (a bench script), or a worker that exits before a file's end: on exit
process.once('exit', cleanUp);

/** A fresh directory under the OS temp dir, removed when the test file ends (call it anywhere). */
export function tmpDir(prefix = 'arena-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
