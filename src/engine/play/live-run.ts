// The one piece of state the parts of the play loop share (instead of closures): the Run being played, its
// counters, and what its next heartbeat must write.
import type { Game } from '../../core/types.ts';
import type { SpentUsage } from '../../judges/judge.ts';
import type { Store } from '../../storage/store.ts';
import { Leases } from './leases.ts';
import type { PlayOptions, PlayRun, RunProgress } from './types.ts';

/** At most this many error messages are kept on a run (the attempts table has them all). */
const KEEP_ERRORS = 20;

export class LiveRun {
  readonly store: Store;
  readonly run: PlayRun;
  readonly leases: Leases;
  readonly leaseMs: number;
  readonly signal: AbortSignal | undefined;
  readonly isAlive: PlayOptions['isAlive'];
  /** how many games the run set out to play */
  readonly total: number;
  /** the counters changed since the heartbeat last wrote the run record */
  dirty = false;
  /** stored games whose leases go with the next heartbeat (a stored game needs no lease: claims skip it) */
  finished: string[] = [];
  /** the first write to the database that failed (a full disk, say): no call is started after it */
  storageFault: Error | undefined;
  /** games whose replies were paid for but could not be stored (they go to `PlayOptions.spill`) */
  readonly unstored: Game[] = [];
  private readonly onProgress: PlayOptions['onProgress'];

  constructor(o: PlayOptions & { leaseMs: number; total: number }) {
    this.store = o.store;
    this.run = o.run;
    this.leaseMs = o.leaseMs;
    this.leases = new Leases(o.store, o.run.id, o.leaseMs);
    this.signal = o.signal;
    this.isAlive = o.isAlive;
    this.total = o.total;
    this.onProgress = o.onProgress;
  }

  get aborted(): boolean {
    return !!this.signal?.aborted;
  }

  /** No more calls: the run was aborted, or the database cannot be written. */
  get stopped(): boolean {
    return this.aborted || !!this.storageFault;
  }

  /** The database refused a write: stop calling; `games` (paid for, not stored) are kept for the spill. */
  storageFailed(e: unknown, games: Game[] = []): void {
    this.storageFault ??= e instanceof Error ? e : new Error(String(e));
    this.unstored.push(...games);
  }

  /** Tell the caller where the run stands, with the game that just landed or the error that just happened. */
  progress(last?: RunProgress['last']): void {
    const { run } = this;
    this.onProgress?.({
      done: run.played,
      failed: run.failed,
      total: this.total,
      tokensIn: run.tokensIn,
      tokensOut: run.tokensOut,
      ...(last ? { last } : {}),
    });
  }

  noteError(msg: string): void {
    if (this.run.errors.length < KEEP_ERRORS) this.run.errors.push(msg);
  }

  /** Put a failed call on record as an attempt (never a verdict), with what it was billed when it was. */
  attempt(id: string, error: string, billed?: { spent: SpentUsage; cost: number | null }): Promise<void> {
    const { run } = this;
    return this.store.runs.recordAttempt({
      runId: run.id,
      gameId: id,
      judge: run.judge,
      error,
      at: Date.now(),
      ...(billed
        ? { tokensIn: billed.spent.tokensIn, tokensOut: billed.spent.tokensOut, cost: billed.cost }
        : {}),
    });
  }

  /** Count a game this run stored: played, with its tokens and cost; its lease goes with the next heartbeat. */
  countStored(game: Game, cost: number | null): void {
    const { run } = this;
    run.played++;
    run.tokensIn += game.tokensIn ?? 0;
    run.tokensOut += game.tokensOut ?? 0;
    if (cost !== null) run.cost = (run.cost ?? 0) + cost;
    if (game.tokensIn == null || game.tokensOut == null) run.usageUnknown++;
    this.finished.push(game.id);
    this.dirty = true;
  }

  /** Which endpoint answered a game (no games column for it: the run's config keeps `answeredBy`). */
  noteEndpoint(gameId: string, endpoint: string): void {
    const by = (this.run.config.answeredBy ??= {}) as Record<string, string[]>;
    (by[endpoint] ??= []).push(gameId);
    this.dirty = true;
  }

  /** Count planned games another run stored meanwhile. */
  countElsewhere(n: number): void {
    this.run.elsewhere += n;
    if (n) this.dirty = true;
  }

  /** Count what a call that gave no verdict was billed (reasoning that used the whole allowance). */
  countSpent(spent: SpentUsage, cost: number | null): void {
    const { run } = this;
    run.tokensIn += spent.tokensIn ?? 0;
    run.tokensOut += spent.tokensOut ?? 0;
    if (cost !== null) run.cost = (run.cost ?? 0) + cost;
    // kept on the run's record, so that `arena runs` and the reports can tell this kind of failure apart
    run.config.allowance = ((run.config.allowance as number | undefined) ?? 0) + 1;
    this.dirty = true;
  }

  /** Count a failed game. */
  countFailed(msg: string): void {
    this.run.failed++;
    this.dirty = true;
    this.noteError(msg);
  }
}
