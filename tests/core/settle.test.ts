// The scheduler alone: which matches the next round takes, and when it stops.
import { describe, expect, it } from 'vitest';
import type { ClusteredBattle } from '../../src/core/stats/battle-table.ts';
import { questionsToSeparate } from '../../src/core/stats/power.ts';
import { fitRanks, nextRound, type SettleMatch } from '../../src/core/stats/settle.ts';
import { separationChances } from '../../src/core/stats/settle-design.ts';
import { fitOf, inside, league, LEVEL, width } from '../support/league-sim.ts';

const MODELS = ['a', 'b', 'c'];
const Q = 30;

function plan(): SettleMatch[] {
  const out: SettleMatch[] = [];
  for (let q = 0; q < Q; q++)
    for (const [x, y] of [
      ['a', 'b'],
      ['a', 'c'],
      ['b', 'c'],
    ] as const)
      out.push({ key: `${q}:${x}:${y}`, a: x, b: y, cluster: q });
  return out;
}

/** Play `keys` with a fixed rule: the model earlier in `order` wins, except `close` pairs' first wins 4 in 5. */
function play(keys: string[], order: string[], tied: string[] = []): ClusteredBattle[] {
  return keys.map((k) => {
    const [q, a, b] = k.split(':') as [string, string, string];
    const score = tied.includes(`${a}${b}`)
      ? Number(q) % 5
        ? 1
        : 0
      : order.indexOf(a) < order.indexOf(b)
        ? 1
        : 0;
    return { a, b, score, cluster: Number(q) };
  });
}

const pairOf = (k: string) => k.split(':').slice(1).join('');

describe('nextRound', () => {
  it('starts with the round spread evenly over every pair, on distinct questions', () => {
    const step = nextRound({ models: MODELS, matches: plan(), played: new Set(), battles: [], round: 12 });
    expect(step.stop).toBeUndefined();
    expect(step.next).toHaveLength(12);
    const per = new Map<string, string[]>();
    for (const k of step.next) per.set(pairOf(k), [...(per.get(pairOf(k)) ?? []), k.split(':')[0]!]);
    expect([...per.values()].map((qs) => qs.length)).toEqual([4, 4, 4]);
    for (const qs of per.values()) expect(new Set(qs).size).toBe(4);
    expect(step.ranks).toBeUndefined();
  });

  it('stops as settled once every pair is decided, with the ranks', () => {
    const keys = plan().map((m) => m.key);
    const step = nextRound({
      models: MODELS,
      matches: plan(),
      played: new Set(keys),
      battles: play(keys, ['c', 'a', 'b']),
      round: 12,
    });
    expect(step.stop).toBe('settled');
    expect(step.ranks).toEqual([
      { model: 'a', best: 2, worst: 2 },
      { model: 'b', best: 3, worst: 3 },
      { model: 'c', best: 1, worst: 1 },
    ]);
  });

  it('gives most of the round to the open pair and a small share to the decided ones', () => {
    // a third of the plan played: c beats everyone, a beats b 4 games in 5
    const half = plan().filter((m) => m.cluster < Q / 3);
    const keys = half.map((m) => m.key);
    const step = nextRound({
      models: MODELS,
      matches: plan(),
      played: new Set(keys),
      battles: play(keys, ['c', 'a', 'b'], ['ab']),
      round: 10,
    });
    expect(step.open).toEqual(['a\u0000b']);
    expect(step.futile).toEqual([]);
    const pairs = step.next.map(pairOf);
    expect(pairs).toHaveLength(10);
    expect(pairs.filter((p) => p === 'ab').length).toBeGreaterThanOrEqual(8);
    expect(pairs.filter((p) => p !== 'ab').length).toBeGreaterThanOrEqual(1);
    expect(step.next.every((k) => !keys.includes(k))).toBe(true);
  });

  it('stops as exhausted when the open pairs have no match left, and at the target', () => {
    const keys = plan().map((m) => m.key);
    const battles = play(keys, ['c', 'a', 'b']).map((b) =>
      b.a === 'a' && b.b === 'b' ? { ...b, score: (Number(b.cluster) % 2) as 0 | 1 } : b,
    );
    const full = { models: MODELS, matches: plan(), played: new Set(keys), battles, round: 10 };
    const step = nextRound(full);
    expect(step.stop).toBe('exhausted');
    expect(step.open).toEqual(['a\u0000b']);
    expect(step.ranks!.find((r) => r.model === 'a')).toEqual({ model: 'a', best: 2, worst: 3 });
    // widths: a 1, b 1, c 0
    expect(nextRound({ ...full, played: new Set(), target: 2 }).stop).toBe('target');
    expect(nextRound({ ...full, played: new Set(), target: 1 }).stop).not.toBe('target');
  });

  it('stops as futile when the open pair could not be separated even with every match left', () => {
    // two thirds played: a and b have won exactly as often as each other
    const keys = plan()
      .filter((m) => m.cluster < (2 * Q) / 3)
      .map((m) => m.key);
    const battles = play(keys, ['c', 'a', 'b']).map((b) =>
      b.a === 'a' && b.b === 'b' ? { ...b, score: (Number(b.cluster) % 2) as 0 | 1 } : b,
    );
    const step = nextRound({ models: MODELS, matches: plan(), played: new Set(keys), battles, round: 10 });
    expect(step.stop).toBe('futile');
    expect(step.futile).toEqual(['a\u0000b']);
    expect(step.next).toEqual([]);
  });

  it('goes on past the matches worth their call while the rest of the plan likely separates an open pair', () => {
    // a simulated six-model league (strengths sd 2 logits, as the study's six) on which the run used to stop with
    // an open pair the full plan separates, although the rest of the plan was likely to separate it
    const l = league(6, 1, { spread: 2 });
    const full = fitOf(
      l,
      l.matches.map((m) => m.key),
    )!.ranks;
    const played = new Set<string>();
    const round = Math.ceil(l.matches.length / 10);
    let step;
    for (;;) {
      const battles = [...played].map((k) => l.outcome.get(k)!);
      step = nextRound({ models: l.models, matches: l.matches, played, battles, round, level: LEVEL });
      if (step.stop) break;
      for (const k of step.next) played.add(k);
    }
    expect(['settled', 'futile']).toContain(step.stop);
    expect(inside(step.ranks!, full) && width(step.ranks!) <= width(full)).toBe(true);
    expect(played.size).toBeLessThan(0.5 * l.matches.length);
    // at the stop, the open pairs more likely than not stay open over the rest of the plan
    const fit = fitOf(l, played)!;
    const left = new Map<string, SettleMatch[]>();
    for (const m of l.matches)
      if (!played.has(m.key)) left.set(`${m.a}\u0000${m.b}`, [...(left.get(`${m.a}\u0000${m.b}`) ?? []), m]);
    const chances = [...separationChances(fit, l.models, left).values()];
    expect(chances.reduce((stay, c) => stay * (1 - c), 1)).toBeGreaterThanOrEqual(0.5);
  });

  it('sends a new model (no game yet, the others rated) first to the middle of the league, its likely neighbours', () => {
    // a > b > c > d, each beating the next 4 games in 5 on every question; e is new
    const five = ['a', 'b', 'c', 'd', 'e'];
    const matches: SettleMatch[] = [];
    for (let q = 0; q < Q; q++)
      for (let i = 0; i < five.length; i++)
        for (let j = i + 1; j < five.length; j++)
          matches.push({ key: `${q}:${five[i]}:${five[j]}`, a: five[i]!, b: five[j]!, cluster: q });
    const keys = matches.filter((m) => m.b !== 'e').map((m) => m.key);
    const battles = play(keys, ['a', 'b', 'c', 'd'], ['ab', 'bc', 'cd']);
    const step = nextRound({ models: five, matches, played: new Set(keys), battles, round: 20 });
    expect(step.stop).toBeUndefined();
    const against = (m: string) => step.next.filter((k) => pairOf(k) === `${m}e`).length;
    expect(step.next.every((k) => pairOf(k).endsWith('e'))).toBe(true);
    expect(step.next).toHaveLength(20);
    // the middle two get more than either end; the ends still get some
    for (const mid of ['b', 'c'])
      for (const end of ['a', 'd']) expect(against(mid)).toBeGreaterThan(against(end));
    expect(against('a')).toBeGreaterThan(0);
    expect(against('d')).toBeGreaterThan(0);
  });

  it('sizes the round by what arena power says the open pair nearest to separation still needs', () => {
    // 60 questions; a quarter played: c beats everyone, a beats b 4 games in 5
    const matches: SettleMatch[] = [];
    for (let q = 0; q < 60; q++)
      for (const [x, y] of [
        ['a', 'b'],
        ['a', 'c'],
        ['b', 'c'],
      ] as const)
        matches.push({ key: `${q}:${x}:${y}`, a: x, b: y, cluster: q });
    const keys = matches.filter((m) => m.cluster < 15).map((m) => m.key);
    const battles = play(keys, ['c', 'a', 'b'], ['ab']);
    const round = 40;
    const step = nextRound({ models: MODELS, matches, played: new Set(keys), battles, round });
    expect(step.open).toEqual(['a\u0000b']);
    // power's questions on the fit's own figures: a − b's gap, its per-question spread (se × √questions)
    const fit = fitRanks(MODELS, battles, 0.95)!;
    const se = Math.sqrt(fit.covariance[0]! + fit.covariance[4]! - 2 * fit.covariance[1]!);
    const need = questionsToSeparate(fit.ratings[0]! - fit.ratings[1]!, se * Math.sqrt(15), fit.critical, 0)!;
    // the matches the pair still needs at the current 3 matches per question, at least a quarter of the round
    const size = Math.max(round / 4, Math.ceil((need - 15) * 3));
    expect(size).toBeLessThan(round);
    expect(size).toBeGreaterThan(round / 4);
    expect(step.next).toHaveLength(size);
  });
});
