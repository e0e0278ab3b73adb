// The ready queue: which game a worker plays next. Games are leased a few at a time, in plan order, just
// before they are played. Those another live run holds are put aside and polled after the rest: stored by
// the other run -> done (counted as elsewhere); its lease expired or its process died -> leased here and played.
import { reapDeadRuns } from './leases.ts';
import type { LiveRun } from './live-run.ts';
import type { PlayItem } from './types.ts';

export class ReadyQueue {
  /** leased to this run, to play */
  private readonly ready: PlayItem[] = [];
  /** held by another live run: polled until stored or free */
  private readonly waiting: PlayItem[] = [];
  /** how far the plan has been taken; taken items are dropped from `todo` (so their prompts can be collected) */
  private cursor = 0;
  private polling: Promise<void> | undefined;
  /** claims under way (a worker awaiting the store in claimNextBatch): they may yet bring games */
  private readonly claims = new Set<Promise<void>>();

  constructor(
    private readonly todo: (PlayItem | undefined)[],
    private readonly live: LiveRun,
    /** how many games one claim leases */
    private readonly batchSize: number,
  ) {}

  /** The next game to play, leased to this run; undefined when there is none left (or the run was aborted). */
  async next(): Promise<PlayItem | undefined> {
    try {
      return await this.take();
    } catch (e) {
      // a claim the database refused (a full disk): the run stops calling
      this.live.storageFailed(e);
      return undefined;
    }
  }

  private async take(): Promise<PlayItem | undefined> {
    for (;;) {
      if (this.live.stopped) return undefined;
      if (this.ready.length) return this.ready.shift();
      if (this.cursor < this.todo.length) {
        // one claim at a time: workers that find nothing ready wait for it, so a run leases about a batch ahead
        // of its calls and another run on the database can take the rest of the plan
        if (this.claims.size) await Promise.race(this.claims);
        else await this.claimNextBatch();
        continue;
      }
      // the plan is taken, but a claim under way may yet bring games to play or to wait for: wait for it,
      // so that every worker stays until the plan is exhausted
      if (this.claims.size) {
        await Promise.race(this.claims);
        continue;
      }
      // nothing left to take, to wait for, or held by others: this worker stops
      if (!this.waiting.length) return undefined;
      await (this.polling ??= this.poll().finally(() => (this.polling = undefined)));
    }
  }

  /** Lease the next batch of the plan: what this run got is ready, what another live run holds waits. */
  private claimNextBatch(): Promise<void> {
    const batch = this.todo.slice(this.cursor, this.cursor + this.batchSize) as PlayItem[];
    this.todo.fill(undefined, this.cursor, (this.cursor += this.batchSize));
    const claim = (async () => {
      const mine = await this.live.leases.claim(batch);
      const ids = new Set(mine.map((g) => g.id));
      this.ready.push(...mine);
      this.waiting.push(...(await this.settleOthers(batch.filter((g) => !ids.has(g.id)))));
    })().finally(() => this.claims.delete(claim));
    this.claims.add(claim);
    return claim;
  }

  /** Drop (and count as elsewhere) the games another run has stored; returns the rest. */
  private async settleOthers(items: PlayItem[]): Promise<PlayItem[]> {
    if (!items.length) return items;
    const stored = await this.live.store.games.existingIds(items.map((g) => g.id));
    this.live.countElsewhere(stored.size);
    return items.filter((g) => !stored.has(g.id));
  }

  /** After a pause, reap dead runs, drop what others stored, and lease what has come free. */
  private async poll(): Promise<void> {
    const { live } = this;
    await new Promise((r) => setTimeout(r, Math.min(1000, live.leaseMs / 4)));
    if (live.stopped) return;
    await reapDeadRuns(live.store, { leaseMs: live.leaseMs, except: live.run.id, isAlive: live.isAlive });
    const polled = [...this.waiting];
    const open = await this.settleOthers(polled);
    const mine = await live.leases.claim(open);
    // `waiting` is edited in place: a claim that ended meanwhile may have added games to it
    const still = new Set(open.map((g) => g.id));
    const gone = new Set(polled.filter((g) => !still.has(g.id)).map((g) => g.id));
    for (const g of mine) gone.add(g.id);
    this.waiting.splice(0, this.waiting.length, ...this.waiting.filter((g) => !gone.has(g.id)));
    this.ready.push(...mine);
  }
}
