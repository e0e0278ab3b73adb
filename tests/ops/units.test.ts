// The pure pieces of src/ops and src/core/stats/checkpoints.ts: statistics, prices, budget, config locations.
import { describe, expect, it } from 'vitest';
import {
  bootstrapMean,
  checkpointReport,
  pairedScores,
  questionScores,
} from '../../src/core/stats/checkpoints.ts';
import { normal, seededRng } from '../../src/core/stats/random.ts';
import type { MatchOutcome, Verdict } from '../../src/core/types.ts';
import { jsonLines } from '../../src/importers/json-spans.ts';
import { canaryDrift, healthJumps, judgeHealth } from '../../src/ops/health.ts';
import { Budget, calibrate, costOf, priceFor } from '../../src/ops/prices.ts';

const o = (
  questionId: number,
  turn: number,
  model1: string,
  model2: string,
  outcome: MatchOutcome['outcome'],
): MatchOutcome => ({ questionId, turn, model1, model2, outcome });

describe('checkpoint statistics', () => {
  it('scores a question from either orientation, averages its turns and leaves errors out', () => {
    const s = questionScores(
      [
        o(1, 1, 'ck', 'base', 'model_1'),
        o(1, 2, 'base', 'ck', 'model_1'),
        o(2, 1, 'base', 'ck', 'inconsistent'),
        o(2, 2, 'ck', 'base', 'error'),
        o(3, 1, 'other', 'base', 'model_1'),
      ],
      'ck',
      'base',
    );
    expect([...s]).toEqual([
      [1, 0.5],
      [2, 0.5],
    ]);
  });

  it('95% bootstrap intervals cover the true mean about 95% of the time (200 simulated studies)', () => {
    const rng = seededRng(3);
    let covered = 0;
    for (let k = 0; k < 200; k++) {
      const xs = Array.from({ length: 60 }, () => 0.6 + 0.2 * normal(rng));
      const iv = bootstrapMean(xs, { seed: k, resamples: 500 });
      if (iv.lo <= 0.6 && 0.6 <= iv.hi) covered++;
    }
    // binomial(200, 0.95) is within [179, 198] with probability > 0.999; percentile intervals run a little narrow
    expect(covered).toBeGreaterThanOrEqual(175);
    expect(covered).toBeLessThanOrEqual(199);
  });

  it('pairs by question: a constant shift has a zero-width interval at the shift; the same data give the same interval', () => {
    const a = new Map([1, 2, 3, 4, 5].map((q) => [q, q / 10]));
    const b = new Map([1, 2, 3, 4, 6].map((q) => [q, q / 10 - 0.25]));
    expect(bootstrapMean(pairedScores(a, b))).toEqual({
      mean: expect.closeTo(0.25, 12),
      lo: expect.closeTo(0.25, 12),
      hi: expect.closeTo(0.25, 12),
      n: 4,
    });
    const xs = [0, 1, 0.5, 1, 1, 0];
    expect(bootstrapMean(xs, { seed: 9 })).toEqual(bootstrapMean(xs, { seed: 9 }));
  });

  it('marks the best checkpoint and compares each with the best earlier one', () => {
    const outcomes: MatchOutcome[] = [];
    const rates = { a: 0.2, b: 0.7, c: 0.5 };
    for (const [m, p] of Object.entries(rates))
      for (let q = 0; q < 10; q++) outcomes.push(o(q, 1, m, 'base', q < p * 10 ? 'model_1' : 'model_2'));
    const rows = checkpointReport(
      'j',
      [
        { name: 'c', step: 3, model: 'c' },
        { name: 'a', step: 1, model: 'a' },
        { name: 'b', step: 2, model: 'b' },
      ],
      outcomes,
      'base',
    );
    expect(
      rows.map((r) => [
        r.checkpoint,
        r.winRate.mean,
        r.best,
        r.vsPrevious?.against ?? null,
        r.vsBest?.against ?? null,
      ]),
    ).toEqual([
      ['a', 0.2, false, null, null],
      ['b', 0.7, true, 'a', 'a'],
      ['c', 0.5, false, 'b', 'b'],
    ]);
    expect(rows[2]!.vsBest!.mean).toBeCloseTo(-0.2, 12);
  });
});

describe('prices and budget', () => {
  it('prices judges from the table, the config, or as free when local; batch halves; unknown is an error', () => {
    expect(priceFor('openai/gpt-4')).toEqual({ input: 30, output: 60 });
    expect(priceFor('openai/gpt-4o-mini', { batch: true })).toEqual({
      input: 0.075,
      output: 0.3,
      cachedInput: 0.0375,
    });
    expect(priceFor('openai/my-vllm-model', { price: { input: 1, output: 2 } })).toEqual({
      input: 1,
      output: 2,
    });
    expect(priceFor('mock/random')).toEqual({ input: 0, output: 0 });
    expect(() => priceFor('openai/unknown-model')).toThrow(
      /\[ops:prices\] no price known for judge "openai\/unknown-model"/,
    );
    expect(costOf({ input: 10, output: 30 }, 1000, 100)).toBeCloseTo(0.013, 12);
    expect(costOf({ input: 10, output: 30 }, null, null)).toBeNull();
  });

  it('calibrates chars per token and reply length from stored totals', () => {
    expect(
      calibrate({ games: 0, chars: 0, tokensIn: 0, tokensOut: 0 }, { charsPerToken: 4, outputTokens: 99 }),
    ).toEqual({ charsPerToken: 4, outputTokens: 99, basis: 'config' });
    expect(
      calibrate(
        { games: 4, chars: 3000, tokensIn: 1000, tokensOut: 100 },
        { charsPerToken: 4, outputTokens: 99 },
      ),
    ).toEqual({ charsPerToken: 3, outputTokens: 25, basis: 'calibrated from 4 stored games' });
  });

  it('holds each call in flight at its bound; one that does not fit waits for them, and stops only when none is in flight', async () => {
    const b = new Budget(1.0);
    const g = b.gate(() => 0.3);
    const spec = {} as never;
    expect([g.reserve('a', spec), g.reserve('b', spec), g.reserve('c', spec)]).toEqual([true, true, true]);
    // 0.9 held + 0.3 > 1: d waits for a call in flight to settle, e waits behind it
    const d = g.reserve('d', spec) as Promise<boolean>;
    const e = g.reserve('e', spec) as Promise<boolean>;
    expect(d).toBeInstanceOf(Promise);
    g.settle('a', 0.1); // 0.1 spent + 0.6 held + 0.3 fits: d starts, e still waits
    expect(await d).toBe(true);
    g.settle('b', 0.3); // 0.4 spent + 0.6 held: e still does not fit
    g.settle('c', null); // a cost the server did not report is charged at its bound: 0.7 spent + 0.3 held
    g.settle('d', 0.05); // 0.75 spent, nothing in flight, e's 0.3 would cross the cap: exhausted
    expect(await e).toBe(false);
    expect(g.reserve('f', spec)).toBe(false); // a stop is a stop
    expect(b.spent).toBeCloseTo(0.75, 12);
    expect(b.estimated).toBeCloseTo(0.3, 12);
    expect(b.spent).toBeLessThanOrEqual(1);
  });

  it('a gate for Batch API jobs: bounds held while batches are in flight, what does not fit waits for them, then stops', () => {
    const b = new Budget(1.0);
    const g = b.batch(() => 0.3);
    const spec = {} as never;
    expect(['a', 'b', 'c', 'd'].map((id) => g.reserve(id, spec))).toEqual(['go', 'go', 'go', 'wait']);
    // the batch of a, b, c is imported: 0.05 each frees the rest of their bounds
    for (const id of ['a', 'b', 'c']) g.settle(id, 0.05);
    expect(g.settle('x', 0.5)).toBe(0); // not this job's game (an earlier refresh's batch): not this budget's
    expect(b.spent).toBeCloseTo(0.15, 12);
    expect(['d', 'e', 'f'].map((id) => g.reserve(id, spec))).toEqual(['go', 'go', 'wait']);
    // d's cost unknown: charged at its bound; e imported at 0.3; nothing in flight and f's 0.3 would cross the cap
    expect(g.settle('d', null)).toBeCloseTo(0.3, 12);
    g.settle('e', 0.3);
    expect(g.reserve('f', spec)).toBe('stop');
    expect(g.reserve('g', spec)).toBe('stop');
    expect(b.spent).toBeCloseTo(0.75, 12);
    expect(b.spent).toBeLessThanOrEqual(1);
  });

  it('a pending batch kept at the end of its job stays reserved, and later runs of the refresh do not wait for it', async () => {
    const b = new Budget(1.0);
    const batch = b.batch(() => 0.4);
    expect(batch.reserve('a', {} as never)).toBe('go');
    batch.keep();
    const run = b.gate(() => 0.4);
    expect(run.reserve('r1', {} as never)).toBe(true); // 0.4 + 0.4 fits
    const r2 = run.reserve('r2', {} as never); // does not fit: waits for r1
    // 0.3 spent + the batch's 0.4 + 0.4 > 1 with nothing of the run in flight: a stop, not a wait for the batch
    run.settle('r1', 0.3);
    expect(await r2).toBe(false);
  });
});

describe('health and drift', () => {
  const game = (q: number, order: 'AB' | 'BA', verdict: Verdict) => ({
    questionId: q,
    turn: 1,
    model1: 'x',
    model2: 'y',
    order,
    verdict,
  });
  it('error and inconsistency rates, only with enough calls', () => {
    const h = judgeHealth(
      [
        game(1, 'AB', 'model_1'),
        game(1, 'BA', 'model_2'),
        game(2, 'AB', 'model_1'),
        game(2, 'BA', 'model_1'),
        game(3, 'AB', 'error'),
        game(3, 'BA', 'tie'),
      ],
      2,
      4,
    );
    expect(h).toEqual({
      played: 6,
      failed: 2,
      unparsable: 1,
      errorRate: 3 / 8,
      matches: 2,
      inconsistent: 1,
      inconsistencyRate: null,
    });
    expect(
      healthJumps(
        'j',
        h,
        { errorRate: 0.2, inconsistencyRate: 0 },
        { maxErrorRateJump: 0.1, maxInconsistencyJump: 0.1 },
      ),
    ).toEqual(['j: error rate 20.0% -> 37.5% (bound +10.0%)']);
    expect(
      healthJumps(
        'j',
        h,
        { errorRate: 0.3, inconsistencyRate: null },
        { maxErrorRateJump: 0.1, maxInconsistencyJump: 0.1 },
      ),
    ).toEqual([]);
  });

  it('compares a canary with the latest earlier one, slot by slot', () => {
    const c = (nonce: string, createdAt: number, q: number, verdict: Verdict) => ({
      ...game(q, 'AB', verdict),
      promptName: 'p',
      nonce,
      createdAt,
    });
    const games = [
      c('r1', 1, 1, 'model_1'),
      c('r1', 1, 2, 'model_1'),
      c('r2', 2, 1, 'model_1'),
      c('r2', 2, 2, 'tie'),
      c('r3', 3, 1, 'model_2'),
      c('r3', 3, 2, 'tie'),
    ];
    expect(canaryDrift(games, 'r3')).toEqual({ against: 'r2', compared: 2, changed: 1, changeRate: 0.5 });
    expect(canaryDrift(games.slice(0, 2), 'r1')).toEqual({
      against: null,
      compared: 0,
      changed: 0,
      changeRate: null,
    });
  });
});

describe('config locations', () => {
  it('maps every value to its line and names the line of a syntax error', () => {
    const m = jsonLines('{\n  "a": [\n    1,\n    {"b": true}\n  ],\n  "c": "x"\n}');
    expect(m.get('["a",1,"b"]')).toBe(4);
    expect(m.get('["c"]')).toBe(6);
    let thrown: unknown;
    try {
      jsonLines('{\n  "a": 1,\n  "b": nope\n}');
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBe(3);
  });
});
