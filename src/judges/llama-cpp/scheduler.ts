// The llama-cpp judge's scheduling, with no node-llama-cpp in it (so it is unit-tested with fake sequences):
// which context sequence plays which game (prefix reuse), how much of a prompt a sequence must evaluate
// (its own cache or a copy of another's), the lockstep that keeps generating games in one decode batch, when
// a decode batch is dispatched, and the order of its items.

import pDefer, { type DeferredPromise } from 'p-defer';

/** Tokens are numbers (node-llama-cpp's `Token` is a branded number). */
export type TokenLike = number;

/** What the scheduler needs of a context sequence's KV cache (node-llama-cpp's `LlamaContextSequence`). */
export interface CacheSequence {
  readonly contextTokens: readonly TokenLike[];
  readonly nextTokenIndex: number;
  compareContextTokens(tokens: readonly TokenLike[]): { firstDifferentIndex: number };
  eraseContextTokenRanges(ranges: { start: number; end: number }[]): Promise<void>;
  clearHistory(): Promise<void>;
}

/** copy another sequence's cache when it shares at least this many more tokens with the prompt */
export const MIN_COPY = 16;
/** the longest a decode batch waits for the other games' tokens (see gatherSchedule) */
const MAX_GATHER_MS = 2;

/** A promise and the function that resolves it (p-defer: Node 20 has no Promise.withResolvers). */
type Deferred = DeferredPromise<void>;

export function commonPrefix(a: readonly TokenLike[], b: readonly TokenLike[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** A context sequence and the prompt of the game it plays or played last. */
export interface Slot<S> {
  seq: S;
  prompt: readonly TokenLike[];
  busy: boolean;
  /** when its game was handed out (games wait only for earlier ones, so waits never form a cycle) */
  ticket: number;
  /** set while its game's prompt is not yet in the cache; resolves once it is (or the game ended) */
  evaluating?: Deferred | undefined;
  /** waiting for another game's prompt (queues no tokens meanwhile, so decode batches do not wait for it) */
  waiting: boolean;
}

interface Waiter<S> {
  tokens: readonly TokenLike[];
  skipped: number;
  resolve(s: Slot<S>): void;
  reject(e: unknown): void;
}

/** The prompt-token counters `align` keeps (the judge's stats object, shared). */
export interface PromptCounters {
  promptTokens: number;
  reusedTokens: number;
  copiedTokens: number;
}

export interface SchedulerOptions<S> {
  sequences: readonly S[];
  /** reuse the evaluated prompt prefix kept in a sequence (false: first come, first served, every prompt from scratch) */
  reuse: boolean;
  /** make `target` hold the first `upTo` tokens of `source`; false when it did not leave exactly those */
  copy(target: S, source: S, upTo: number): Promise<boolean>;
  counters: PromptCounters;
}

/**
 * Hands out the context's sequences to games, those that arrive together placed together (after the current
 * tick). A free sequence takes the waiting game it has the strongest claim on: the longest common prefix with
 * the prompt it holds, minus the longest any other sequence holds; so one sequence keeps a question's games,
 * and an empty one starts another question. A game passed over 4 x sequences times is served next, so none
 * starves. Without reuse: first come, first served.
 */
export class Scheduler<S extends CacheSequence> {
  readonly slots: Slot<S>[];
  /** the games generating tokens, kept in step (see Lockstep) */
  readonly step = new Lockstep<Slot<S>>();
  private readonly waiters: Waiter<S>[] = [];
  private tickets = 0;
  private dispatchPending = false;

  constructor(private readonly o: SchedulerOptions<S>) {
    this.slots = o.sequences.map((seq): Slot<S> => ({
      seq,
      prompt: [],
      busy: false,
      ticket: 0,
      waiting: false,
    }));
  }

  /** Busy sequences that are not waiting for another game's prompt: the decodes a batch should gather. */
  active(): number {
    return this.slots.reduce((n, s) => n + (s.busy && !s.waiting ? 1 : 0), 0);
  }

  /** A sequence for this prompt (see the class). Rejects with the signal's reason when aborted while queued. */
  acquire(tokens: readonly TokenLike[], signal?: AbortSignal): Promise<Slot<S>> {
    return new Promise<Slot<S>>((resolve, reject) => {
      const w: Waiter<S> = { tokens, skipped: 0, resolve, reject };
      this.waiters.push(w);
      signal?.addEventListener(
        'abort',
        () => {
          const i = this.waiters.indexOf(w);
          if (i >= 0) (this.waiters.splice(i, 1), reject(signal.reason));
        },
        { once: true },
      );
      this.schedule();
    });
  }

  /** The slot's prompt is in its cache now (or never will be): games waiting to copy it go on. */
  evaluated(slot: Slot<S>): void {
    slot.evaluating?.resolve();
    slot.evaluating = undefined;
  }

  release(slot: Slot<S>): void {
    this.evaluated(slot);
    slot.busy = false;
    this.schedule();
  }

  private schedule() {
    if (this.dispatchPending) return;
    this.dispatchPending = true;
    setImmediate(() => {
      this.dispatchPending = false;
      this.dispatch();
    });
  }

  private dispatch() {
    for (const slot of this.slots) {
      if (slot.busy) continue;
      if (!this.waiters.length) return;
      const pick = this.o.reuse ? this.claimed(slot) : 0;
      for (let i = 0; i < pick; i++) this.waiters[i]!.skipped++;
      const w = this.waiters.splice(pick, 1)[0]!;
      slot.busy = true;
      slot.prompt = w.tokens;
      slot.ticket = ++this.tickets;
      slot.evaluating = pDefer<void>();
      w.resolve(slot);
    }
  }

  /** The index of the waiting game `slot` has the strongest claim on (see the class). */
  private claimed(slot: Slot<S>): number {
    if (this.waiters[0]!.skipped >= 4 * this.slots.length) return 0;
    let pick = 0;
    let best = [-Infinity, -Infinity];
    this.waiters.forEach((w, i) => {
      const own = commonPrefix(slot.prompt, w.tokens);
      let other = 0;
      for (const o of this.slots) if (o !== slot) other = Math.max(other, commonPrefix(o.prompt, w.tokens));
      const score = [own - other, own];
      if (score[0]! > best[0]! || (score[0] === best[0] && score[1]! > best[1]!)) [best, pick] = [score, i];
    });
    return pick;
  }

  /**
   * Make the slot's sequence hold `tokens` minus its last one and return what is left to evaluate. With reuse,
   * the longest cached prefix is kept: the sequence's own, or a copy of another sequence's that holds more.
   */
  async align<T extends TokenLike>(slot: Slot<S>, tokens: T[]): Promise<T[]> {
    const s = slot.seq;
    const c = this.o.counters;
    if (!this.o.reuse) {
      await s.clearHistory();
      c.promptTokens += tokens.length;
      return tokens;
    }
    const limit = tokens.length - 1;
    // an earlier game is evaluating a longer prefix of this prompt than any cache holds (games of one
    // question that start together): wait for it and copy, rather than evaluate the same tokens twice
    for (;;) {
      let held = Math.min(s.compareContextTokens(tokens).firstDifferentIndex, limit);
      for (const o of this.slots)
        if (o !== slot) held = Math.max(held, Math.min(commonPrefix(o.seq.contextTokens, tokens), limit));
      let wait: Slot<S> | undefined;
      let best = held + MIN_COPY - 1;
      for (const o of this.slots) {
        if (o === slot || !o.evaluating || o.ticket > slot.ticket) continue;
        const n = Math.min(commonPrefix(o.prompt, tokens), limit);
        if (n > best) [wait, best] = [o, n];
      }
      if (!wait) break;
      slot.waiting = true;
      await wait.evaluating!.promise.finally(() => (slot.waiting = false));
    }
    let keep = Math.min(s.compareContextTokens(tokens).firstDifferentIndex, limit);
    let from: Slot<S> | undefined;
    for (const o of this.slots) {
      const n = o === slot ? 0 : Math.min(commonPrefix(o.seq.contextTokens, tokens), limit);
      if (n >= keep + MIN_COPY && (!from || n > keep)) [from, keep] = [o, n];
    }
    // the source changed under us (a batch in flight): start afresh, never keep a cache that may not match its tokens
    if (from && !(await this.o.copy(s, from.seq, keep))) await s.clearHistory();
    keep = Math.min(s.compareContextTokens(tokens).firstDifferentIndex, limit);
    if (keep < s.nextTokenIndex) await s.eraseContextTokenRanges([{ start: keep, end: s.nextTokenIndex }]);
    c.reusedTokens += keep;
    if (from) c.copiedTokens += keep;
    c.promptTokens += tokens.length - keep;
    return tokens.slice(keep);
  }
}

/** Like Scheduler.align, but for a target that extends what was already evaluated in this game (always reuses). */
export async function alignFull<T extends TokenLike>(s: CacheSequence, tokens: T[]): Promise<T[]> {
  const keep = Math.min(s.compareContextTokens(tokens).firstDifferentIndex, tokens.length - 1);
  if (keep < s.nextTokenIndex) await s.eraseContextTokenRanges([{ start: keep, end: s.nextTokenIndex }]);
  return tokens.slice(keep);
}

/**
 * The games generating tokens move in step, so that all of them queue their next decode together as one batch:
 * else a token sampled a little late is decoded alone, and the games drift into two half batches for good.
 */
export class Lockstep<K> {
  private readonly generating = new Set<K>();
  private readonly arrived = new Set<K>();
  private next = pDefer<void>();

  /** This game has its next token: wait for the other generating games to have theirs (undefined: go on now). */
  arrive(game: K): Promise<void> | undefined {
    this.generating.add(game);
    this.arrived.add(game);
    return this.complete() ? undefined : this.next.promise;
  }

  /** This game stops generating (its explanation is over, or it failed): the others need not wait for it. */
  leave(game: K): void {
    this.generating.delete(game);
    this.arrived.delete(game);
    this.complete();
  }

  private complete(): boolean {
    for (const s of this.generating) if (!this.arrived.has(s)) return false;
    this.arrived.clear();
    const { resolve } = this.next;
    this.next = pDefer<void>();
    resolve();
    return true;
  }
}

/**
 * When to run the queued decodes (node-llama-cpp's dispatch schedule): not the next event-loop turn, which some
 * games' tokens (each sampled on its own worker) would miss, but once every active sequence has queued its
 * tokens (a few turns, at most `maxMs`). `queued` unknown: dispatch at once.
 */
export function gatherSchedule(
  queued: () => number | undefined,
  active: () => number,
  maxMs = MAX_GATHER_MS,
): (dispatch: () => void) => void {
  return (dispatch) => {
    const t0 = performance.now();
    const check = () => {
      const q = queued();
      if (q === undefined || q >= active() || performance.now() - t0 > maxMs) dispatch();
      else setImmediate(check);
    };
    setImmediate(check);
  };
}

/**
 * A decode batch's items in sequence-id order, each with its share of the batch (as node-llama-cpp's default):
 * llama.cpp makes one pass over the weights per run of increasing sequence ids, so 2, 0, 1, 3 would take two
 * passes and 0, 1, 2, 3 takes one (docs/performance.md).
 */
export function orderBatch<T extends { tokens: readonly unknown[] }>(
  items: readonly T[],
  size: number,
  sequenceOf: (item: T, index: number) => number,
): { item: T; processAmount: number }[] {
  const sorted = items.map((item, i) => ({ item, id: sequenceOf(item, i) })).sort((a, b) => a.id - b.id);
  let left = size;
  const share = Math.max(1, Math.floor(size / Math.max(1, items.length)));
  const out = sorted.map(({ item }) => {
    const processAmount = Math.min(item.tokens.length, share, left);
    left -= processAmount;
    return { item, processAmount };
  });
  for (const p of out) {
    const more = Math.min(p.item.tokens.length - p.processAmount, left);
    p.processAmount += more;
    left -= more;
  }
  return out.filter((p) => p.processAmount > 0);
}
