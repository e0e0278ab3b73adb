// The llama-cpp scheduler on fake sequences (no node-llama-cpp, no model): token arrays with the sequences' cache
// operations, whose copy is what llama_memory_seq_cp does (the target holds the source's first tokens).
import { describe, expect, it } from 'vitest';
import {
  alignFull,
  commonPrefix,
  gatherSchedule,
  Lockstep,
  MIN_COPY,
  orderBatch,
  Scheduler,
  type CacheSequence,
  type Slot,
} from '../../src/judges/llama-cpp/scheduler.ts';

class FakeSeq implements CacheSequence {
  tokens: number[] = [];
  log: string[] = [];
  constructor(readonly id: number) {}
  get contextTokens() {
    return this.tokens;
  }
  get nextTokenIndex() {
    return this.tokens.length;
  }
  compareContextTokens(t: readonly number[]) {
    return { firstDifferentIndex: commonPrefix(this.tokens, t) };
  }
  async eraseContextTokenRanges(ranges: { start: number; end: number }[]) {
    for (const r of ranges) this.tokens.splice(r.start, r.end - r.start);
    this.log.push(`erase ${ranges.map((r) => `${r.start}-${r.end}`).join(',')}`);
  }
  async clearHistory() {
    this.tokens = [];
    this.log.push('clear');
  }
  /** what evaluating tokens does to the cache */
  evaluate(t: readonly number[]) {
    this.tokens.push(...t);
  }
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
const tick = () => new Promise<void>((r) => setImmediate(r));

function make(n: number, o: { reuse?: boolean; copyFails?: boolean } = {}) {
  const seqs = Array.from({ length: n }, (_, i) => new FakeSeq(i));
  const counters = { promptTokens: 0, reusedTokens: 0, copiedTokens: 0 };
  const copies: [number, number, number][] = [];
  const s = new Scheduler<FakeSeq>({
    sequences: seqs,
    reuse: o.reuse ?? true,
    counters,
    copy: async (target, source, upTo) => {
      copies.push([target.id, source.id, upTo]);
      if (o.copyFails) return false;
      target.tokens = source.tokens.slice(0, upTo);
      return true;
    },
  });
  return { s, seqs, counters, copies };
}

/** Play a game on a slot: align, evaluate what is left (the prompt is then in the cache), release. */
async function play(s: Scheduler<FakeSeq>, slot: Slot<FakeSeq>, prompt: number[]) {
  const pending = await s.align(slot, prompt);
  slot.seq.evaluate(pending);
  s.evaluated(slot);
  s.release(slot);
  return pending;
}

describe('llama-cpp scheduler: placing games on sequences', () => {
  it('games that arrive together are handed out together, one per free sequence; the rest wait for a release', async () => {
    const { s } = make(2);
    const got: number[] = [];
    const p = [1, 2, 3].map((k) => s.acquire([k, 0, 0]).then((slot) => (got.push(k), slot)));
    await tick();
    expect(got.length).toBe(2);
    expect(s.slots.every((x) => x.busy)).toBe(true);
    expect(s.active()).toBe(2);
    const first = await p[0]!;
    s.release(first);
    await tick();
    expect(got.length).toBe(3);
    expect((await p[2]!).seq).toBe(first.seq);
    // tickets increase in hand-out order
    expect((await p[2]!).ticket).toBeGreaterThan((await p[1]!).ticket);
  });

  it('a freed sequence takes the waiting game sharing the longest prefix with its last prompt, not the first in line', async () => {
    const { s } = make(2);
    const qA = range(100, 40);
    const qB = range(500, 40);
    const [a, b] = await Promise.all([s.acquire(qA), s.acquire(qB)]);
    // three more games queue: two of question B, one of question A (in that order)
    const order: string[] = [];
    const waiting = [
      s.acquire([...qB, 1]).then((x) => (order.push('B1'), x)),
      s.acquire([...qB, 2]).then((x) => (order.push('B2'), x)),
      s.acquire([...qA, 3]).then((x) => (order.push('A3'), x)),
    ];
    s.release(a!); // the sequence that played question A is free: it takes A3, passing over B1 and B2
    await tick();
    expect(order).toEqual(['A3']);
    expect((await waiting[2]!).seq).toBe(a!.seq);
    s.release(b!);
    await tick();
    expect(order).toEqual(['A3', 'B1']);
  });

  it('a game passed over 4 x sequences times is served next (no starvation)', async () => {
    const { s } = make(1);
    const q = range(100, 40);
    let slot = await s.acquire(q);
    let served = false;
    const odd = s.acquire(range(900, 40)).then((x) => ((served = true), x));
    let skips = 0;
    while (!served) {
      // a game like the one just played keeps arriving: it is preferred until the odd one was skipped 4 times
      const next = s.acquire([...q, skips]);
      s.release(slot);
      await tick();
      if (served) break;
      slot = await next;
      skips++;
    }
    expect(skips).toBe(4);
    expect((await odd).prompt[0]).toBe(900);
  });

  it('without reuse: first come, first served, and every prompt is evaluated from scratch', async () => {
    const { s, seqs, counters } = make(1, { reuse: false });
    const q = range(100, 40);
    const first = await s.acquire(range(900, 10));
    const order: number[] = [];
    const a = s.acquire(range(700, 10)).then((x) => (order.push(700), x));
    const b = s.acquire([...range(900, 10), 5]).then((x) => (order.push(900), x));
    await play(s, first, range(900, 10));
    await tick();
    expect(order).toEqual([700]);
    const pending = await play(s, await a, q);
    expect(pending).toEqual(q);
    expect(seqs[0]!.log).toContain('clear');
    await b;
    expect(counters).toEqual({ promptTokens: 50, reusedTokens: 0, copiedTokens: 0 });
  });

  it('an aborted game leaves the queue with the signal reason and is never handed a sequence', async () => {
    const { s } = make(1);
    const busy = await s.acquire([1]);
    const ac = new AbortController();
    const gone = s.acquire([2], ac.signal);
    const next = s.acquire([3]);
    ac.abort(new Error('stop'));
    await expect(gone).rejects.toThrow('stop');
    s.release(busy);
    expect((await next).prompt).toEqual([3]);
  });
});

describe('llama-cpp scheduler: prefix reuse (align)', () => {
  it("keeps the sequence's own cached prefix, erases the rest, and never keeps the prompt's last token", async () => {
    const { s, seqs, counters } = make(1);
    const p1 = range(0, 50);
    await play(s, await s.acquire(p1), p1);
    // same 30 first tokens, then different
    const p2 = [...range(0, 30), ...range(1000, 20)];
    const slot = await s.acquire(p2);
    expect(await s.align(slot, p2)).toEqual(range(1000, 20));
    expect(seqs[0]!.log.at(-1)).toBe('erase 30-50');
    slot.seq.evaluate(range(1000, 20));
    s.release(slot);
    // the same prompt again: everything but its last token is reused (the last one is evaluated for its logits)
    const again = await s.acquire(p2);
    expect(await s.align(again, p2)).toEqual([1019]);
    expect(counters.reusedTokens).toBe(30 + 49);
    expect(counters.promptTokens).toBe(50 + 20 + 1);
    expect(counters.copiedTokens).toBe(0);
  });

  it(`copies another sequence's cache when it holds at least ${MIN_COPY} more tokens of the prompt, not fewer`, async () => {
    const { s, counters, copies } = make(2);
    const shared = range(0, 40);
    const [a, b] = await Promise.all([s.acquire(range(5000, 5)), s.acquire(shared)]);
    // sequence of b evaluates a 40-token prompt; a's sequence holds nothing of it
    await play(s, b!, shared);
    const p = [...shared, 7, 8, 9];
    expect(await s.align(a!, p)).toEqual([7, 8, 9]);
    expect(copies).toEqual([[a!.seq.id, b!.seq.id, 40]]);
    expect(counters.copiedTokens).toBe(40);
    a!.seq.evaluate([7, 8, 9]);
    s.release(a!);

    // only MIN_COPY - 1 tokens more elsewhere: no copy, the own cache is kept
    const { s: s2, copies: c2 } = make(2);
    const [x, y] = await Promise.all([s2.acquire(range(0, 10)), s2.acquire(range(0, 10 + MIN_COPY - 1))]);
    await play(s2, y!, range(0, 10 + MIN_COPY - 1));
    x!.seq.evaluate(range(0, 10));
    const q = [...range(0, 10 + MIN_COPY - 1), 42];
    expect(await s2.align(x!, q)).toEqual(q.slice(10));
    expect(c2).toEqual([]);
  });

  it('a copy that does not leave exactly the asked tokens is thrown away: the sequence starts afresh', async () => {
    const { s, counters } = make(2, { copyFails: true });
    const shared = range(0, 40);
    const [a, b] = await Promise.all([s.acquire([9, 9]), s.acquire(shared)]);
    await play(s, b!, shared);
    a!.seq.evaluate([9, 9]);
    const p = [...shared, 1];
    expect(await s.align(a!, p)).toEqual(p);
    expect(a!.seq.log).toContain('clear');
    expect(counters.copiedTokens).toBe(0);
  });

  it("a later game waits for an earlier game's prompt to be in the cache and copies it, instead of evaluating it twice", async () => {
    const { s, copies, counters } = make(2);
    const shared = range(0, 60);
    const p1 = [...shared, 1];
    const p2 = [...shared, 2];
    const [g1, g2] = await Promise.all([s.acquire(p1), s.acquire(p2)]);
    expect(g1!.ticket).toBeLessThan(g2!.ticket);
    let aligned2: number[] | undefined;
    const second = s.align(g2!, p2).then((x) => (aligned2 = x));
    await tick();
    expect(aligned2).toBeUndefined();
    expect(g2!.waiting).toBe(true);
    // a waiting game is not counted as active (the decode batch does not wait for it)
    expect(s.active()).toBe(1);
    const pending1 = await s.align(g1!, p1);
    expect(pending1).toEqual(p1);
    g1!.seq.evaluate(pending1);
    s.evaluated(g1!);
    await second;
    expect(g2!.waiting).toBe(false);
    expect(aligned2).toEqual([2]);
    expect(copies).toEqual([[g2!.seq.id, g1!.seq.id, 60]]);
    expect(counters).toEqual({ promptTokens: 61 + 1, reusedTokens: 60, copiedTokens: 60 });
  });

  it('alignFull keeps everything evaluated that the target extends', async () => {
    const seq = new FakeSeq(0);
    seq.evaluate([1, 2, 3, 4]);
    expect(await alignFull(seq, [1, 2, 3, 4, 5, 6])).toEqual([5, 6]);
    expect(await alignFull(seq, [1, 2, 9])).toEqual([9]);
    expect(seq.tokens).toEqual([1, 2]);
  });
});

describe('llama-cpp scheduler: lockstep and batches', () => {
  it('a generating game waits until every other generating game has its next token; leaving releases the others', async () => {
    const step = new Lockstep<string>();
    expect(step.arrive('a')).toBeUndefined(); // alone: go on
    const events: string[] = [];
    step.arrive('b')?.then(() => events.push('b'));
    const pa = step.arrive('a');
    expect(pa).toBeUndefined(); // a and b have both arrived: the step is complete
    await tick();
    expect(events).toEqual(['b']);
    step.arrive('a')?.then(() => events.push('a'));
    step.arrive('c')?.then(() => events.push('c'));
    await tick();
    expect(events).toEqual(['b']); // b has not arrived
    step.leave('b');
    await tick();
    expect(events.sort()).toEqual(['a', 'b', 'c']);
  });

  it('dispatches a batch once every active sequence has queued, or at once when the queue is unknown, or after the wait limit', async () => {
    const run = (queued: () => number | undefined, active: () => number, maxMs?: number) =>
      new Promise<number>((resolve) => {
        const t0 = performance.now();
        gatherSchedule(queued, active, maxMs)(() => resolve(performance.now() - t0));
      });
    let q = 1;
    const later = run(
      () => q,
      () => 3,
      1000,
    );
    await tick();
    await tick();
    q = 3;
    await expect(later).resolves.toBeLessThan(1000);
    await expect(
      run(
        () => undefined,
        () => 3,
        1000,
      ),
    ).resolves.toBeLessThan(1000);
    const capped = await run(
      () => 0,
      () => 3,
      5,
    );
    expect(capped).toBeGreaterThanOrEqual(5);
  });

  it('orders a decode batch by sequence id (one pass over the weights) and shares the batch as node-llama-cpp does', () => {
    const item = (seq: number, n: number) => ({ seq, tokens: Array.from({ length: n }, () => 0) });
    const queued = [item(2, 1), item(0, 1), item(1, 30), item(3, 1)];
    const out = orderBatch(queued, 16, (x) => x.seq);
    expect(out.map((p) => p.item.seq)).toEqual([0, 1, 2, 3]);
    // an even share of 16 is 4: the three decodes take 1 each, the prompt takes the 13 left
    expect(out.map((p) => p.processAmount)).toEqual([1, 13, 1, 1]);
    // more items than room: the batch still has the first, never nothing
    expect(orderBatch([item(5, 3), item(4, 3)], 1, (x) => x.seq)).toEqual([
      { item: item(4, 3), processAmount: 1 },
    ]);
  });
});
