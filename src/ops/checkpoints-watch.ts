// `arena checkpoints run --watch`: the checkpoints of a series as they arrive during training. Every poll re-reads
// the config (new entries from `arena checkpoints add`, new files in `watch.dir`) and judges each checkpoint it has
// not judged yet, one at a time by step, reporting its row as soon as it is judged. Polling, not fs.watch: file
// events are unreliable on network and container filesystems. A checkpoint's file is taken once it has not changed
// for one poll interval (a file still being written waits). Games are content-addressed and leased, so a restarted
// watcher, or one beside a `checkpoints run`, plays only what is not stored.
import { statSync } from 'node:fs';
import type { CheckpointRow } from '../core/stats/checkpoints.ts';
import { ArenaError } from '../core/types.ts';
import { checkpointsReport, runCheckpoints, type CheckpointsOptions } from './checkpoints.ts';
import type { CheckpointsConfig } from './checkpoints-config.ts';
import type { Loaded } from './config.ts';

type Checkpoint = CheckpointsConfig['checkpoints'][number];

export interface WatchOptions extends CheckpointsOptions {
  /** reads the config again (the CLI: loadCheckpointsConfig on the same file) */
  reload(): Loaded<CheckpointsConfig>;
  /** between polls */
  intervalMs: number;
  /** a checkpoint was judged: its rows (one per judge), with the paired differences against those judged before it */
  onJudged(k: { name: string; step: number; rows: CheckpointRow[] }): void;
  /** the time now, in ms (tests); default Date.now */
  now?(): number;
}

export interface WatchResult {
  judged: string[];
  generated: number;
  played: number;
  failed: number;
  cost: number;
  skipped: number;
  /** stopped while a checkpoint was being generated or judged (its leases released; a rerun resumes it) */
  interrupted: boolean;
}

/** Watch until `signal` aborts; what was judged. */
export async function watchCheckpoints(o: WatchOptions): Promise<WatchResult> {
  const log = o.log ?? (() => {});
  const now = o.now ?? Date.now;
  const db = o.config.config.db;
  const r: WatchResult = {
    judged: [],
    generated: 0,
    played: 0,
    failed: 0,
    cost: 0,
    skipped: 0,
    interrupted: false,
  };
  const failedAt = new Map<string, string>();
  let config = o.config;
  let lastError = '';
  let movedTo: string | undefined; // a database the config names now, said once
  for (;;) {
    if (o.signal?.aborted) return r;
    ({ config, lastError } = reloaded(o, config, lastError, log));
    if (config.config.db !== db && config.config.db !== movedTo)
      log(`the config now names the database ${(movedTo = config.config.db)}; this watcher keeps to ${db}`);
    const todo = config.config.checkpoints
      .filter((k) => !r.judged.includes(k.name) && settled(k, now(), o.intervalMs))
      .filter((k) => failedAt.get(k.name) !== signature(k))
      .sort((a, b) => a.step - b.step);
    for (const k of todo) {
      if (o.signal?.aborted) return r;
      try {
        const one = await runCheckpoints({ ...o, config: only(config, [k]) });
        r.generated += one.generated;
        r.played += one.played;
        r.failed += one.failed;
        r.cost += one.cost;
        r.skipped += one.skipped;
      } catch (e) {
        if (o.signal?.aborted) return { ...r, interrupted: true };
        if (!(e instanceof ArenaError) || !e.where?.file) throw e;
        // a bad answers file: said once, tried again when the file changes
        failedAt.set(k.name, signature(k));
        log(`${k.name}: ${e.message}; it is tried again when its file changes`);
        continue;
      }
      if (o.signal?.aborted) return { ...r, interrupted: true };
      r.judged.push(k.name);
      const judged = config.config.checkpoints.filter((x) => r.judged.includes(x.name));
      const report = await checkpointsReport({ ...o, config: only(config, judged) });
      o.onJudged({ name: k.name, step: k.step, rows: report.rows.filter((x) => x.checkpoint === k.name) });
    }
    await sleep(o.intervalMs, o.signal);
  }
}

/** The config read again; on a config that no longer loads (an edit half done), the last good one, said once. */
function reloaded(
  o: WatchOptions,
  last: Loaded<CheckpointsConfig>,
  lastError: string,
  log: (m: string) => void,
): { config: Loaded<CheckpointsConfig>; lastError: string } {
  try {
    return { config: o.reload(), lastError: '' };
  } catch (e) {
    const m = (e as Error).message;
    if (m !== lastError) log(`${m}\n(watching with the config as it last loaded)`);
    return { config: last, lastError: m };
  }
}

/** The config with only these checkpoints. */
function only(l: Loaded<CheckpointsConfig>, checkpoints: Checkpoint[]): Loaded<CheckpointsConfig> {
  return { ...l, config: { ...l.config, checkpoints } };
}

/** The file a checkpoint is read from (answers, or its LoRA adapter), if any. */
const fileOf = (k: Checkpoint) => k.answers ?? k.lora;

/** The file's size and time of change, as a string ('' when it has none or cannot be read). */
function signature(k: Checkpoint): string {
  const f = fileOf(k);
  if (!f) return JSON.stringify(k);
  try {
    const s = statSync(f);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return '';
  }
}

/** A checkpoint whose file has not changed for one interval (or that has no file of its own). */
function settled(k: Checkpoint, now: number, intervalMs: number): boolean {
  const f = fileOf(k);
  if (!f) return true;
  try {
    return now - statSync(f).mtimeMs >= intervalMs;
  } catch {
    return true; // a missing file is the import's error to say
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
