// A governor's share of a bucket other processes spend from: the estimate alone, and two governors against a
// simulated OpenAI-style limit on a fake clock (openai-server.ts's rules). Real HTTP: governor-processes.test.ts.
import { describe, expect, it } from 'vitest';
import { RateGovernor, type Clock } from '../../src/judges/governor.ts';
import { JudgeCallError } from '../../src/judges/judge.ts';
import type { RateLimitInfo } from '../../src/judges/rate-limit.ts';
import { JOIN_SHARE, ShareEstimate, START_SHARE, shareBetween } from '../../src/judges/share.ts';

describe('the share estimate', () => {
  // 60,000 tokens a minute: 1 token per ms
  const bucket = { capacity: 60_000, perMs: 1 };

  it('starts at half a bucket that was full at its first answer, at a quarter of one others were spending', () => {
    expect(new ShareEstimate().share).toBe(1); // nothing heard: a server with no headers is not shared
    const alone = new ShareEstimate();
    expect(alone.observe({ at: 0, remaining: 59_000, own: 1000 }, bucket)).toBe(START_SHARE);
    const late = new ShareEstimate();
    // 30,000 gone and 1,000 of it its own: others are spending
    expect(late.observe({ at: 0, remaining: 30_000, own: 1000 }, bucket)).toBe(JOIN_SHARE);
  });

  it('alone, it measures all the spending as its own and climbs to the whole bucket', () => {
    const e = new ShareEstimate();
    e.observe({ at: 0, remaining: 50_000, own: 10_000 }, bucket);
    const seen: number[] = [];
    // each 500 ms it spends 5,000 and the server refills 500: remaining drops by 4,500
    for (let i = 1; i <= 6; i++)
      seen.push(e.observe({ at: 500 * i, remaining: 50_000 - 4500 * i, own: 10_000 + 5000 * i }, bucket));
    expect(seen).toEqual([0.75, 0.875, 0.9375, 0.96875, 0.984375, 0.9921875]);
  });

  it('beside another spending as much, it keeps to half; beside one spending three times as much, a quarter', () => {
    const half = new ShareEstimate();
    half.observe({ at: 0, remaining: 40_000, own: 0 }, bucket); // others spent 20,000: it joins at a quarter
    // each 1,000 ms: 1,000 of its own, 1,000 of the other's, 1,000 refilled: remaining drops by 1,000
    let s = 0;
    for (let i = 1; i <= 12; i++)
      s = half.observe({ at: 1000 * i, remaining: 40_000 - 1000 * i, own: 1000 * i }, bucket);
    expect(s).toBeCloseTo(0.5, 3);
    const quarter = new ShareEstimate();
    quarter.observe({ at: 0, remaining: 59_000, own: 1000 }, bucket); // a full bucket: it starts at a half
    for (let i = 1; i <= 12; i++)
      s = quarter.observe({ at: 1000 * i, remaining: 59_000 - 3000 * i, own: 1000 + 1000 * i }, bucket);
    expect(s).toBeCloseTo(0.25, 3);
  });

  it('measures only over 500 ms or more, and not across a time the bucket may have been full', () => {
    expect(
      shareBetween({ at: 0, remaining: 3000, own: 0 }, { at: 499, remaining: 2000, own: 100 }, bucket),
    ).toBe(undefined);
    expect(
      shareBetween({ at: 0, remaining: 59_600, own: 0 }, { at: 500, remaining: 59_000, own: 1000 }, bucket),
    ).toBe(undefined);
    const e = new ShareEstimate();
    e.observe({ at: 0, remaining: 50_000, own: 10_000 }, bucket);
    // 100 ms later: too soon, the estimate stays where it started
    expect(e.observe({ at: 100, remaining: 45_000, own: 15_000 }, bucket)).toBe(START_SHARE);
  });

  it('a 429 cuts it once per round of calls, and measurements bring it back', () => {
    const e = new ShareEstimate();
    e.observe({ at: 0, remaining: 50_000, own: 10_000 }, bucket);
    expect(e.cut(0, 100)).toBeCloseTo(0.35, 9);
    // calls admitted before that cut, refused after it: the same round, no second cut
    expect(e.cut(50, 120)).toBeCloseTo(0.35, 9);
    // a call admitted after the cut and refused: a new round
    expect(e.cut(150, 400)).toBeCloseTo(0.245, 9);
    // it spends alone meanwhile: back up
    expect(e.observe({ at: 1000, remaining: 45_000, own: 16_000 }, bucket)).toBeCloseTo(0.6225, 9);
  });
});

describe("a governor's own spending, as the server counted it", () => {
  it('leaves out its calls answered 429, but only those admitted up to the call whose answer is measured', async () => {
    let t = 0;
    const clock: Clock = { now: () => t, setTimer: () => () => undefined };
    const g = new RateGovernor({ clock });
    const rl = (remaining: number) => ({ tokens: { limit: 60_000, remaining, resetMs: 60_000 - remaining } });
    // 1 token per ms; the first call, answered at once, leaves 58,000 of a full bucket: it starts at half
    (await g.admit(1000)).settle({ reply: { text: 'ok', rateLimit: rl(58_000) } });
    t = 1000;
    const measured = await g.admit(1000);
    const later = [await g.admit(1000), await g.admit(1000), await g.admit(1000)];
    // the later three are refused (the server charged nothing for them) before the first's answer comes
    for (const a of later) a.settle({ error: new JudgeCallError('429', true, 429, 0) });
    const cut = 0.7 * START_SHARE; // one cut: the three were admitted together, one round
    expect(g.share).toBeCloseTo(cut, 9);
    // 58,000 + 1,000 refilled - 1,000: it spends alone, a measured share of 1; counting the later refusals as
    // spending it did not do would measure 0
    measured.settle({ reply: { text: 'ok', rateLimit: rl(58_000) } });
    expect(g.share).toBeCloseTo(0.5 * cut + 0.5 * 1, 9);
  });
});

/** A fake clock that can run until nothing is scheduled, settling promises between events. */
function fakeClock() {
  let t = 0;
  const timers: { at: number; fn: () => void; live: boolean }[] = [];
  const flush = () => new Promise((r) => setImmediate(r));
  return {
    now: () => t,
    setTimer(fn: () => void, ms: number) {
      const x = { at: t + Math.max(0, ms), fn, live: true };
      timers.push(x);
      return () => (x.live = false);
    },
    /** run every event in time order until none is left (or `until` ms) */
    async run(until = 600_000) {
      for (;;) {
        await flush();
        const live = timers.filter((x) => x.live);
        timers.length = 0;
        timers.push(...live);
        if (!live.length) return;
        const next = live.reduce((a, b) => (b.at < a.at ? b : a));
        if (next.at > until) return;
        next.live = false;
        t = Math.max(t, next.at);
        next.fn();
      }
    },
  } satisfies Clock & Record<string, unknown>;
}

/**
 * Two processes, one limit, simulated: each has its own governor and `concurrency` workers on one shared pool. A
 * call arrives `transit(i)` ms after admission (20 to 400 ms), is charged or refused (429), answered 200 ms later.
 */
async function twoProcesses(o: { startSkewMs: number; governor?: (clock: Clock) => RateGovernor }) {
  const clock = fakeClock();
  const COST = 3000;
  const GAMES = 480;
  const CAPACITY = Math.round((GAMES * COST) / 1.3); // the run's demand is 1.3 buckets, as in bench/ratelimit.ts
  const perMs = CAPACITY / 60_000;
  let level = CAPACITY;
  let at = 0;
  const info = (): RateLimitInfo => ({
    tokens: { limit: CAPACITY, remaining: Math.floor(level), resetMs: (CAPACITY - level) / perMs },
  });
  let seed = 7;
  const transit = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return 20 + (seed / 2 ** 31) * 380;
  };
  let left = GAMES;
  let requests = 0;
  let limited = 0;
  let last = 0;
  const worker = async (g: RateGovernor) => {
    while (left > 0) {
      left--;
      for (;;) {
        const a = await g.admit(COST);
        const ok = await new Promise<boolean>((resolve) =>
          clock.setTimer(() => {
            requests++;
            level = Math.min(CAPACITY, level + (clock.now() - at) * perMs);
            at = clock.now();
            if (level >= COST) {
              level -= COST;
              const rateLimit = info();
              clock.setTimer(() => (a.settle({ reply: { text: 'ok', rateLimit } }), resolve(true)), 200);
            } else {
              limited++;
              const e = new JudgeCallError('429', true, 429, Math.ceil((COST - level) / perMs));
              e.rateLimit = info();
              clock.setTimer(() => (a.settle({ error: e }), resolve(false)), 1);
            }
          }, transit()),
        );
        if (ok) break;
      }
      last = clock.now();
    }
  };
  const open = (c: Clock) => o.governor?.(c) ?? new RateGovernor({ clock: c, maxWindow: 64 });
  const start = (skew: number) =>
    new Promise<void>((resolve) =>
      clock.setTimer(() => {
        const g = open(clock);
        void Promise.all(Array.from({ length: 64 }, () => worker(g))).then(() => resolve());
      }, skew),
    );
  const done = Promise.all([start(0), start(o.startSkewMs)]);
  await clock.run();
  await done;
  const minimumMs = (GAMES * COST - CAPACITY) / perMs;
  return { requests, limited, share429: limited / requests, wallToMinimum: last / minimumMs };
}

describe('two governors under one limit (simulated, fake clock)', () => {
  it.each([0, 300, 1500, 5000])(
    'started %d ms apart: every game played, at most 5 percent of requests answered 429, within 1.2x the minimum',
    async (startSkewMs) => {
      const r = await twoProcesses({ startSkewMs });
      expect(r.requests - r.limited).toBe(480);
      expect(r.share429, `${r.limited} 429s of ${r.requests}`).toBeLessThanOrEqual(0.05);
      expect(r.wallToMinimum).toBeLessThanOrEqual(1.2);
    },
  );
});
