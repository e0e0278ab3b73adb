// `arena checkpoints run --watch`: every poll re-reads the config and judges each checkpoint not judged yet, one at
// a time by step. Polling, not fs.watch: file events are unreliable on network and container filesystems. A file
// is taken once unchanged for one poll interval, and known by its identity (device, inode, size, time), not its
// name. No file problem ends the watcher: a refused file is said once and tried again when it changes.
import { statSync } from 'node:fs';
import type { CheckpointRow } from '../core/stats/checkpoints.ts';
import { ArenaError } from '../core/types.ts';
import { regularFile } from '../importers/lines.ts';
import { checkpointsReport, runCheckpoints, type CheckpointsOptions } from './checkpoints.ts';
import type { CheckpointsConfig, LoadedCheckpoints } from './checkpoints-config.ts';

type Checkpoint = CheckpointsConfig['checkpoints'][number];

export interface WatchOptions extends CheckpointsOptions {
  /** the config as loaded; the files it left out (`refused`) are the caller's to say, the watcher says later ones */
  config: LoadedCheckpoints;
  /** reads the config again (the CLI: loadCheckpointsConfig on the same file) */
  reload(): LoadedCheckpoints;
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
  // by checkpoint name, the signature of the file it was last judged from, and of the one last refused
  const judgedAt = new Map<string, string>();
  const failedAt = new Map<string, string>();
  let config = o.config;
  let lastError = '';
  let said = new Set(o.config.refused);
  let movedTo: string | undefined; // a database the config names now, said once
  for (;;) {
    if (o.signal?.aborted) return r;
    ({ config, lastError } = reloaded(o, config, lastError, log));
    // a file left out is said when it starts being left out, not at every poll
    for (const m of config.refused) if (!said.has(m)) log(m);
    said = new Set(config.refused);
    if (config.config.db !== db && config.config.db !== movedTo)
      log(`the config now names the database ${(movedTo = config.config.db)}; this watcher keeps to ${db}`);
    const todo = config.config.checkpoints
      .map((k) => ({ k, sig: signature(k) }))
      .filter(({ k, sig }) => judgedAt.get(k.name) !== sig && failedAt.get(k.name) !== sig)
      .filter(({ k }) => settled(k, now(), o.intervalMs))
      .sort((a, b) => a.k.step - b.k.step);
    for (const { k, sig } of todo) {
      if (o.signal?.aborted) return r;
      try {
        // an adapter is opened by node-llama-cpp, which would wait on a FIFO as the importer would
        if (fileOf(k)) regularFile(fileOf(k)!);
        const one = await runCheckpoints({ ...o, config: only(config, [k]) });
        for (const key of ['generated', 'played', 'failed', 'cost', 'skipped'] as const) r[key] += one[key];
      } catch (e) {
        if (o.signal?.aborted) return { ...r, interrupted: true };
        if (!(e instanceof ArenaError) || !e.where?.file) throw e;
        // a bad answers file: said once, tried again when the file changes
        failedAt.set(k.name, sig);
        log(`${k.name}: ${e.message}; it is tried again when its file changes`);
        continue;
      }
      if (o.signal?.aborted) return { ...r, interrupted: true };
      judgedAt.set(k.name, sig);
      failedAt.delete(k.name);
      r.judged.push(k.name);
      const judged = config.config.checkpoints.filter((x) => judgedAt.has(x.name));
      const report = await checkpointsReport({ ...o, config: only(config, judged) });
      o.onJudged({ name: k.name, step: k.step, rows: report.rows.filter((x) => x.checkpoint === k.name) });
    }
    await sleep(o.intervalMs, o.signal);
  }
}

/** The config read again; on a config that no longer loads (an edit half done), the last good one, said once. */
function reloaded(
  o: WatchOptions,
  last: LoadedCheckpoints,
  lastError: string,
  log: (m: string) => void,
): { config: LoadedCheckpoints; lastError: string } {
  try {
    return { config: o.reload(), lastError: '' };
  } catch (e) {
    const m = (e as Error).message;
    if (m !== lastError) log(`${m}\n(watching with the config as it last loaded)`);
    return { config: last, lastError: m };
  }
}

/** The config with only these checkpoints. */
function only(l: LoadedCheckpoints, checkpoints: Checkpoint[]): LoadedCheckpoints {
  return { ...l, config: { ...l.config, checkpoints } };
}

/** The file a checkpoint is read from (answers, or its LoRA adapter), if any. */
const fileOf = (k: Checkpoint) => k.answers ?? k.lora;

/** A file's identity (device, inode, size, time of change; '' when unreadable), so a renamed-over file is new. */
function signature(k: Checkpoint): string {
  const f = fileOf(k);
  if (!f) return JSON.stringify(k);
  try {
    const s = statSync(f);
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
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
