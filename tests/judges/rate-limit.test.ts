import { describe, expect, it } from 'vitest';
import { RateGovernor, refillPerMs, type Clock } from '../../src/judges/governor.ts';
import { JudgeCallError } from '../../src/judges/judge.ts';
import { Bucket, parseResetMs, readRateLimit, requestCost } from '../../src/judges/rate-limit.ts';
import { HEADROOM, JOIN_SHARE, START_SHARE } from '../../src/judges/share.ts';

function fakeClock() {
  let t = 0;
  const timers: { at: number; fn: () => void; live: boolean }[] = [];
  const clock: Clock & { advance(ms: number): void } = {
    now: () => t,
    setTimer(fn, ms) {
      const x = { at: t + ms, fn, live: true };
      timers.push(x);
      return () => (x.live = false);
    },
    advance(ms) {
      const end = t + ms;
      for (;;) {
        const next = timers.filter((x) => x.live && x.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!next) break;
        next.live = false;
        t = next.at;
        next.fn();
      }
      t = end;
    },
  };
  return clock;
}

const headers = (h: Record<string, string>) => ({ get: (n: string) => h[n.toLowerCase()] ?? null });
const flush = () => new Promise((r) => setImmediate(r));

describe('reset durations', () => {
  it.each([
    ['6m0s', 360_000],
    ['1.5s', 1500],
    ['20ms', 20],
    ['1h2m3.5s', 3_723_500],
    ['12', 12_000],
    ['0.25', 250],
    ['0s', 0],
  ])('%s is %d ms', (v, ms) => expect(parseResetMs(v)).toBeCloseTo(ms, 6));
  it.each(['', 'soon', '-1s', '5x', '1s2', '99999h', 'm'])('%j is not a duration', (v) =>
    expect(parseResetMs(v)).toBeUndefined(),
  );
});

describe('x-ratelimit-* headers', () => {
  it('reads both families and both spellings', () => {
    expect(
      readRateLimit(
        headers({
          'x-ratelimit-limit-tokens': '40000',
          'x-ratelimit-remaining-tokens': '39000',
          'x-ratelimit-reset-tokens': '1.5s',
          'ratelimit-limit-requests': '500',
          'ratelimit-remaining-requests': '499',
          'ratelimit-reset-requests': '120ms',
        }),
      ),
    ).toEqual({
      tokens: { limit: 40000, remaining: 39000, resetMs: 1500 },
      requests: { limit: 500, remaining: 499, resetMs: 120 },
    });
  });
  it('leaves out missing and unreadable values, and cuts a remaining above its limit', () => {
    expect(readRateLimit(headers({}))).toEqual({});
    expect(
      readRateLimit(
        headers({
          'x-ratelimit-limit-tokens': '1000',
          'x-ratelimit-remaining-tokens': '5000',
          'x-ratelimit-reset-tokens': 'later',
          'x-ratelimit-limit-requests': '-3',
          'x-ratelimit-remaining-requests': '1e99',
        }),
      ),
    ).toEqual({ tokens: { limit: 1000, remaining: 1000 } });
  });
});

describe('cost and bucket', () => {
  it('charges prompt tokens plus max_tokens', () => {
    expect(requestCost({ system: 'abcd', user: 'efghi', maxTokens: 100 })).toBe(3 + 100);
  });
  it('refills continuously up to its capacity and lets a request larger than the bucket through when full', () => {
    const b = new Bucket(600, 600 / 60_000, 0);
    b.take(600, 0);
    expect(b.waitMs(300, 0)).toBe(30_000);
    expect(b.level(30_000)).toBe(300);
    expect(b.level(1e9)).toBe(600);
    expect(b.waitMs(10_000, 1e9)).toBe(0);
    b.take(1000, 1e9);
    expect(b.level(1e9)).toBe(-400);
  });
});

describe('the governor on a fake clock', () => {
  it('admits no more than the declared tokens per minute allow', async () => {
    const clock = fakeClock();
    const g = new RateGovernor({ tpm: 6000, clock });
    const admitted: number[] = [];
    for (let i = 0; i < 5; i++)
      void g.admit(2000).then((a) => {
        admitted.push(clock.now());
        a.settle({ reply: { text: 'ok' } });
      });
    await flush();
    expect(admitted).toEqual([0, 0, 0]);
    clock.advance(19_999);
    await flush();
    expect(admitted.length).toBe(3);
    clock.advance(1);
    await flush();
    expect(admitted).toEqual([0, 0, 0, 20_000]);
    clock.advance(20_000);
    await flush();
    expect(admitted).toEqual([0, 0, 0, 20_000, 40_000]);
  });

  it('learns the limit from headers, and a remaining the server reports lowers the bucket', async () => {
    const clock = fakeClock();
    const g = new RateGovernor({ clock });
    const first = await g.admit(100);
    // before any answer no limit is known, and nothing holds a call back
    expect(g.estimateWaitMs(100)).toBe(0);
    first.settle({
      reply: {
        text: 'ok',
        rateLimit: { tokens: { limit: 60_000, remaining: 0 }, requests: { limit: 600, remaining: 599 } },
      },
    });
    let second = false;
    void g.admit(100).then(() => (second = true));
    await flush();
    // another process spent the bucket: this one joins it at a quarter of the refill, 100 tokens in 400 ms
    expect(second).toBe(false);
    expect(g.limits()).toEqual({ tpm: 60_000, rpm: 600 });
    expect(g.share).toBe(JOIN_SHARE);
    clock.advance(399);
    await flush();
    expect(second).toBe(false);
    clock.advance(1);
    await flush();
    expect(second).toBe(true);
  });

  it('on a 429 everyone waits the Retry-After and the window halves, then grows by one per window', async () => {
    const clock = fakeClock();
    const g = new RateGovernor({ clock, maxWindow: 64 });
    const a = await g.admit(1);
    a.settle({ reply: { text: 'ok' } });
    const held = await Promise.all(Array.from({ length: 8 }, () => g.admit(1)));
    const e = new JudgeCallError('429', true, 429, 2000);
    held[0]!.settle({ error: e });
    expect(g.window).toBe(4);
    for (const h of held.slice(1)) h.settle({ reply: { text: 'ok' } });
    let got = false;
    void g.admit(1).then(() => (got = true));
    clock.advance(1999);
    await flush();
    expect(got).toBe(false);
    clock.advance(1);
    await flush();
    expect(got).toBe(true);
    expect(g.stats.rateLimited).toBe(1);
  });

  it('a waiting call whose signal aborts leaves the queue with the abort reason', async () => {
    const clock = fakeClock();
    const g = new RateGovernor({ tpm: 60, clock });
    await g.admit(60);
    const ctl = new AbortController();
    const p = g.admit(60, ctl.signal);
    ctl.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
  });
});

describe('what the headers tell of others and of the window', () => {
  it('the refill rate from the reset: the missing part over the time to fill it, when it can be measured', () => {
    expect(refillPerMs({ limit: 6000, remaining: 3000, resetMs: 30_000 })).toBe(0.1); // a per-minute limit
    expect(refillPerMs({ limit: 6000, remaining: 3000, resetMs: 5000 })).toBe(0.6); // a 10 s window
    expect(refillPerMs({ limit: 6000, remaining: 5900, resetMs: 1000 })).toBeUndefined(); // under 5% missing
    expect(refillPerMs({ limit: 6000, remaining: 0, resetMs: 10 })).toBeUndefined(); // a window under 1 s
    expect(refillPerMs({ limit: 6000, remaining: 3000 })).toBeUndefined();
    expect(refillPerMs(undefined)).toBeUndefined();
  });

  it('keeps to its share of what the server says is left, less a headroom and its own calls the server had not seen', async () => {
    const clock = fakeClock();
    const g = new RateGovernor({ clock });
    const rl = (remaining: number) => ({ tokens: { limit: 60_000, remaining, resetMs: 60_000 - remaining } });
    // 60,000 per minute = 1 token per ms. The first call, answered at once: 58,000 left, about a full bucket
    (await g.admit(1000)).settle({ reply: { text: 'ok', rateLimit: rl(58_000) } });
    expect(g.share).toBe(START_SHARE);
    // 1 s later another process has spent 9,000: 58,000 + 1,000 refilled - 1,000 here - 9,000 = 49,000 left
    clock.advance(1000);
    (await g.admit(1000)).settle({ reply: { text: 'ok', rateLimit: rl(49_000) } });
    // its share of the 10,000 spent meanwhile is 1,000; the estimate moves halfway there
    const share = 0.5 * START_SHARE + 0.5 * 0.1;
    expect(g.share).toBeCloseTo(share, 9);
    // it waits rather than take what the other spends: a call of its part of 49,000, plus one, waits for the
    // token at its share of the refill
    let got = false;
    void g.admit(Math.ceil((1 - HEADROOM) * share * 49_000) + 1).then(() => (got = true));
    await flush();
    expect(got).toBe(false);
    clock.advance(Math.ceil(1 / share));
    await flush();
    expect(got).toBe(true);
  });

  /** A governor that has heard one answer (60,000 per minute: 1 token per ms; `left` tokens left). */
  async function heard(left: number) {
    const clock = fakeClock();
    const g = new RateGovernor({ clock });
    const rl = (remaining: number) => ({ tokens: { limit: 60_000, remaining, resetMs: 60_000 - remaining } });
    (await g.admit(1000)).settle({ reply: { text: 'ok', rateLimit: rl(left) } });
    // what it takes of what is left, and of the refill (the bucket was full: it starts at half, 0.5 tokens per ms)
    const part = (1 - HEADROOM) * START_SHARE;
    return { clock, g, rl, part };
  }

  it("an answer's remaining is what was left when the server counted the call: the time it took is not refilled twice", async () => {
    const { clock, g, rl, part } = await heard(59_000);
    // a call sent now reaches the server later (the network, a busy client); the server counts it on arrival,
    // refill included, and its answer comes back after the reply's latency: 300 ms in all
    const a = await g.admit(1000);
    clock.advance(300);
    a.settle({ reply: { text: 'ok', rateLimit: rl(10_000) } });
    // its part of the 10,000 left is 4,000; believing 300 ms of its refill (150) more since the call was sent
    // admits a call of 4,100 at once, 200 ms too early
    expect(part * 10_000).toBeCloseTo(4000, 9);
    let got = false;
    void g.admit(4100).then(() => (got = true));
    await flush();
    expect(got).toBe(false);
    clock.advance(199);
    await flush();
    expect(got).toBe(false);
    clock.advance(1);
    await flush();
    expect(got).toBe(true);
  });

  it('calls sent before the answered one and still unanswered may reach the server after it: they are taken off', async () => {
    const { g, rl, part } = await heard(59_000);
    const first = await g.admit(1000);
    const second = await g.admit(1000);
    // the second overtook the first on the way: the server counted only the second when it said 58,000; its part,
    // 23,200, less the first, still to be counted: 22,200
    second.settle({ reply: { text: 'ok', rateLimit: rl(58_000) } });
    expect(part * 58_000).toBeCloseTo(23_200, 9);
    let got = false;
    void g.admit(22_700).then(() => (got = true));
    await flush();
    expect(got).toBe(false);
    first.settle({ reply: { text: 'ok', rateLimit: rl(48_000) } });
  });

  it('a burst sent before the first answer and refused: the refused calls are never counted, so not taken off', async () => {
    const clock = fakeClock();
    const g = new RateGovernor({ clock });
    const burst = await Promise.all(Array.from({ length: 10 }, () => g.admit(1000)));
    const rateLimit = { tokens: { limit: 10_000, remaining: 0 } };
    clock.advance(1);
    // refused newest first: each answer's calls admitted since were refused already, and charged nothing
    for (const a of burst.reverse())
      a.settle({ error: Object.assign(new JudgeCallError('429', true, 429, 0), { rateLimit }) });
    // the level is what the server said (0): a call of 1,000 waits its refill at this governor's share of the rate
    const perMs = (10_000 / 60_000) * g.share;
    expect(g.estimateWaitMs(1000)).toBeCloseTo(1000 / perMs, 0);
  });
});
