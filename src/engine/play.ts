// The one loop that plays games: the tournament (engine/run.ts), escalation (through it), calibrated runs
// (engine/calibrated.ts) and batch import (ops/batch.ts) all go through `playGames`. It leases each game
// before its call, calls, reads the reply into a verdict, stores the game, and keeps the run's counters
// and its live record. A call that fails (after its retries) is an attempt on record, never a verdict:
// that rule lives here and nowhere else. It prints nothing: progress goes to `onProgress`.
import type { Game, GameSpec, JudgeSettings } from '../core/types.ts';
import type { ReadVerdict } from '../core/verdict/of-reply.ts';
import { entropyBits } from '../core/stats/confidence.ts';
import type { JudgeReply, JudgeRequest } from '../judges/judge.ts';
import type { RunRecord, Store } from '../storage/store.ts';
import { processAlive, thisProcess } from './liveness.ts';

/** One game to play: its spec and content id, and its settings where they differ from the run's (a calibrated sample). */
export interface PlayItem {
  spec: GameSpec;
  id: string;
  settings?: JudgeSettings;
}

/** A run record with what the loop counts beside it. */
export interface PlayRun extends RunRecord {
  errors: string[];
  /** games the budget refused to start */
  skipped: number;
  /** planned games another run (another process on the same database) stored while this one ran */
  elsewhere: number;
  /** stored games whose reply came without valid token counts (left unknown, not counted in the tokens) */
  usageUnknown: number;
}

export interface RunProgress {
  done: number;
  failed: number;
  total: number;
  tokensIn: number;
  tokensOut: number;
  last?: { game: Game } | { error: string };
}

export interface PlayOptions {
  store: Store;
  /** the run the games belong to (its judge is the games' judge); its counters are kept up to date here */
  run: PlayRun;
  /**
   * One game's call: a judge's `complete` (with `onRetry`, so that every retried failure is an attempt on
   * record, and the signal), or a reply fetched earlier (batch import). A throw is a failed attempt.
   */
  call(
    item: PlayItem,
    ctx: { settings: JudgeSettings; onRetry: NonNullable<JudgeRequest['onRetry']>; signal?: AbortSignal },
  ): Promise<JudgeReply>;
  /** the reply's verdict (core/verdict/of-reply.ts `verdictOf`, or a scheme's own reader) */
  read(spec: GameSpec, text: string): ReadVerdict;
  /** the games' judge settings (an item's own settings win) */
  settings: JudgeSettings;
  /** the stored games' `source` (default 'run') */
  source?: string;
  /** false: the replies were not timed here (batch import): latency unknown */
  timed?: boolean;
  concurrency?: number;
  signal?: AbortSignal;
  /** called after every finished or failed game */
  onProgress?(p: RunProgress): void;
  /** one call's USD cost from its token counts; without it costs are unknown (null) */
  costOf?(tokensIn: number | null, tokensOut: number | null): number | null;
  /** a budget cap: asked before each call, a game it refuses is not played; told each call's cost */
  budget?: { reserve(id: string, spec: GameSpec): boolean; settle(id: string, cost: number | null): void };
  /** how long a game's lease lasts without renewal (default 60 s) */
  leaseMs?: number;
  /** whether the process named by another running run's `owner` is alive (undefined: cannot tell) */
  isAlive?(owner: string): boolean | undefined;
  /** how often progress is written to the run record while games land (default 1 s) */
  flushMs?: number;
}

export const DEFAULT_LEASE_MS = 60_000;
/** At most this many error messages are kept on a run (the attempts table has them all). */
const KEEP_ERRORS = 20;

/**
 * Mark running runs whose process is gone `interrupted` (and free their leases): the process named by
 * `owner` is known dead, or the run has written no heartbeat for `leaseMs`. Returns how many it marked.
 */
export async function reapDeadRuns(
  store: Store,
  o: { leaseMs?: number; isAlive?(owner: string): boolean | undefined; except?: string; now?: number } = {},
): Promise<number> {
  const now = o.now ?? Date.now();
  const lease = o.leaseMs ?? DEFAULT_LEASE_MS;
  const dead = (await store.listRuns()).filter(
    // only runs that keep a heartbeat (played by this loop); other kinds of run record their own ends
    (r) =>
      r.status === 'running' &&
      r.id !== o.except &&
      r.heartbeatAt != null &&
      ((r.owner && o.isAlive?.(r.owner) === false) || r.heartbeatAt < now - lease),
  );
  return dead.length
    ? store.markRunsInterrupted(
        dead.map((r) => r.id),
        now,
      )
    : 0;
}

/** A run about to play: counters at zero, status running, owned by this process (or `owner`). */
export function newRun(
  r: Pick<RunRecord, 'judge' | 'mode' | 'config' | 'planned' | 'toPlay'> &
    Partial<Pick<RunRecord, 'owner' | 'cost'>>,
): PlayRun {
  const now = Date.now();
  return {
    id: crypto.randomUUID(),
    startedAt: now,
    finishedAt: null,
    played: 0,
    failed: 0,
    tokensIn: 0,
    tokensOut: 0,
    status: 'running',
    cost: null,
    owner: thisProcess(),
    heartbeatAt: now,
    errors: [],
    skipped: 0,
    elsewhere: 0,
    usageUnknown: 0,
    ...r,
  };
}

/** The stored part of a run (without the loop's own counters). */
export function runRecord(run: PlayRun): RunRecord {
  const { errors: _e, skipped: _s, elsewhere: _o, usageUnknown: _u, ...r } = run;
  return r;
}

/**
 * Play `todo` (games not stored yet, each once) as `run`. Every finished game is committed as it completes,
 * so an interrupted run loses at most the games in flight and a rerun plays only what is missing.
 *
 * Every game is leased in the database before its call, so several processes on one database share the
 * work and pay for each game once; a live run renews its leases with its heartbeat, a dead run's leases
 * expire and other runs take them over. The run record is saved when play starts, updated as games land
 * (at most once per `flushMs`), and saved with its final status at the end (`interrupted`, `budget`,
 * `failed` or `done`); nothing is saved when there is nothing to play.
 */
export function playGames(todo: readonly PlayItem[], o: PlayOptions): Promise<PlayRun> {
  // a copy whose taken items are dropped, so that a played game's prompts can be collected while the run goes on
  // (an async function would keep `todo` alive until it returns)
  return play([...todo], o);
}

async function play(queue: (PlayItem | undefined)[], o: PlayOptions): Promise<PlayRun> {
  const { store, run } = o;
  const leaseMs = o.leaseMs ?? DEFAULT_LEASE_MS;
  const isAlive = o.isAlive ?? processAlive;
  const signal = o.signal;
  const concurrency = Math.max(1, o.concurrency ?? 8);
  Object.assign(run, { status: 'running', finishedAt: null, heartbeatAt: Date.now() });
  // a run killed earlier (SIGKILL, power cut) is still `running`: mark it, and free the games it held
  await reapDeadRuns(store, { leaseMs, isAlive, except: run.id });
  // a run with nothing to play leaves no record (a no-op rerun is not a run)
  if (!queue.length) return Object.assign(run, { status: 'done', finishedAt: Date.now(), heartbeatAt: null });
  await store.saveRun(runRecord(run));
  const total = queue.length;
  const progress = (last?: RunProgress['last']) =>
    o.onProgress?.({
      done: run.played,
      failed: run.failed,
      total,
      tokensIn: run.tokensIn,
      tokensOut: run.tokensOut,
      ...(last ? { last } : {}),
    });
  const noteError = (msg: string) => run.errors.length < KEEP_ERRORS && run.errors.push(msg);

  // Progress reaches the run record in batches (at most once per flushMs), together with the heartbeat
  // that keeps the leases and the release of the leases of finished games (a stored game needs no lease:
  // claims skip stored games; releasing them one by one cost a write per game).
  let dirty = false;
  let lastBeat = Date.now();
  let flushing: Promise<void> | undefined;
  let finished: string[] = [];
  const flush = (force = false): Promise<void> => {
    if (flushing) return flushing;
    if (!force && !dirty && Date.now() - lastBeat < leaseMs / 4) return Promise.resolve();
    dirty = false;
    lastBeat = run.heartbeatAt = Date.now();
    const release = finished;
    finished = [];
    flushing = (async () => {
      try {
        await store.saveRun(runRecord(run));
        if (release.length) await store.releaseClaims(run.id, release);
        await store.renewClaims(run.id, lastBeat + leaseMs);
      } finally {
        flushing = undefined;
      }
    })();
    return flushing;
  };
  const timer = setInterval(
    () => void flush().catch((e) => noteError(`progress not saved: ${(e as Error).message}`)),
    Math.min(o.flushMs ?? 1000, leaseMs / 4),
  );

  const attempt = (id: string, error: string) =>
    store.recordAttempt({ runId: run.id, gameId: id, judge: run.judge, error, at: Date.now() });

  const playOne = async (item: PlayItem) => {
    const { spec, id } = item;
    if (signal?.aborted) return;
    if (o.budget && !o.budget.reserve(id, spec)) {
      run.skipped++;
      return;
    }
    let cost: number | null = null;
    const settings = item.settings ?? o.settings;
    const t0 = performance.now();
    // every failed call is an attempt on record (never a verdict): the retried ones here, the last one below
    const retried: Promise<void>[] = [];
    const onRetry = ({ error }: { error: Error }) => void retried.push(attempt(id, error.message));
    try {
      const reply = await o.call(item, { settings, onRetry, ...(signal ? { signal } : {}) });
      const latencyMs = o.timed === false ? null : Math.round((performance.now() - t0) * 10) / 10;
      const tokensIn = reply.tokensIn ?? null;
      const tokensOut = reply.tokensOut ?? null;
      cost = o.costOf ? o.costOf(tokensIn, tokensOut) : null;
      const { verdict, parser } = o.read(spec, reply.text);
      const game: Game = {
        ...spec,
        id,
        judge: run.judge,
        judgeSettings: settings,
        reply: reply.text,
        verdict,
        parser,
        tokensIn,
        tokensOut,
        latencyMs,
        createdAt: Date.now(),
        runId: run.id,
        source: o.source ?? 'run',
        cost,
        ...(reply.verdictProbs
          ? { verdictProbs: reply.verdictProbs, entropy: entropyBits(reply.verdictProbs) }
          : {}),
      };
      // stored with the games that finished in the same turn of the event loop, before this worker takes another
      // (so that a crash loses at most the games in flight)
      await commit(game, cost);
    } catch (e) {
      if (signal?.aborted) return;
      await failed(id, e);
    } finally {
      o.budget?.settle(id, cost);
      await Promise.all(retried);
    }
  };

  const failed = async (id: string, e: unknown) => {
    const msg = (e as Error)?.message ?? String(e);
    run.failed++;
    dirty = true;
    noteError(msg);
    await attempt(id, msg);
    progress({ error: msg });
    // a failed game's lease goes now, so that another run may take it
    await store.releaseClaims(run.id, [id]);
  };

  // Group commit: the games that finish in the same turn of the event loop are stored in one statement (one
  // transaction, instead of one per game: a tenth of a tournament's CPU in the profile). Only a game this run
  // stored counts as played (with its tokens and cost); one another run stored meanwhile counts as elsewhere.
  let unwritten: { game: Game; cost: number | null; done(): void }[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  const commit = (game: Game, cost: number | null): Promise<void> =>
    new Promise<void>((done) => {
      unwritten.push({ game, cost, done });
      scheduled ??= setImmediate(writeQueue);
    });
  const writeQueue = () => {
    scheduled = undefined;
    const batch = unwritten;
    unwritten = [];
    if (!batch.length) return;
    void store.insertGames(batch.map((b) => b.game)).then(
      async (stored) => {
        batch.forEach(({ game, cost }, i) => {
          if (stored[i]) {
            run.played++;
            run.tokensIn += game.tokensIn ?? 0;
            run.tokensOut += game.tokensOut ?? 0;
            if (cost !== null) run.cost = (run.cost ?? 0) + cost;
            if (game.tokensIn == null || game.tokensOut == null) run.usageUnknown++;
            // its lease goes with the next flush (claims skip stored games)
            finished.push(game.id);
          } else run.elsewhere++;
          dirty = true;
          progress({ game });
        });
        for (const b of batch) b.done();
      },
      async (e: unknown) => {
        for (const b of batch) await failed(b.game.id, e).catch(() => {});
        for (const b of batch) b.done();
      },
    );
  };

  // Games are leased a few at a time just before they are played. Those another live run holds are
  // put aside and polled after the rest: stored by the other run -> done; its lease expired or its
  // process died -> leased here and played.
  const ready: PlayItem[] = [];
  let waiting: PlayItem[] = [];
  let cursor = 0;
  let polling: Promise<void> | undefined;
  const claim = async (items: PlayItem[]): Promise<PlayItem[]> => {
    const now = Date.now();
    const got = new Set(
      await store.claimGames(
        run.id,
        items.map((g) => g.id),
        now + leaseMs,
        now,
      ),
    );
    return items.filter((g) => got.has(g.id));
  };
  const settleOthers = async (items: PlayItem[]) => {
    if (!items.length) return items;
    const stored = await store.existingGameIds(items.map((g) => g.id));
    run.elsewhere += stored.size;
    if (stored.size) dirty = true;
    return items.filter((g) => !stored.has(g.id));
  };
  const poll = async () => {
    await new Promise((r) => setTimeout(r, Math.min(1000, leaseMs / 4)));
    if (signal?.aborted) return;
    await reapDeadRuns(store, { leaseMs, except: run.id, isAlive });
    const open = await settleOthers(waiting);
    const mine = new Set((await claim(open)).map((g) => g.id));
    waiting = open.filter((g) => !mine.has(g.id));
    ready.push(...open.filter((g) => mine.has(g.id)));
  };
  const next = async (): Promise<PlayItem | undefined> => {
    for (;;) {
      if (signal?.aborted) return undefined;
      if (ready.length) return ready.shift();
      if (cursor < queue.length) {
        const batch = queue.slice(cursor, cursor + concurrency) as PlayItem[];
        queue.fill(undefined, cursor, (cursor += concurrency));
        const mine = await claim(batch);
        const ids = new Set(mine.map((g) => g.id));
        ready.push(...mine);
        waiting.push(...(await settleOthers(batch.filter((g) => !ids.has(g.id)))));
        continue;
      }
      if (!waiting.length) return undefined;
      await (polling ??= poll().finally(() => (polling = undefined)));
    }
  };
  const worker = async () => {
    for (let g = await next(); g; g = await next()) await playOne(g);
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
  } finally {
    clearInterval(timer);
    await flushing;
    await store.releaseClaims(run.id);
  }
  run.finishedAt = Date.now();
  run.status = signal?.aborted ? 'interrupted' : run.skipped ? 'budget' : run.failed ? 'failed' : 'done';
  run.heartbeatAt = null; // the owner stays: which process played it
  await store.saveRun(runRecord(run));
  return run;
}
