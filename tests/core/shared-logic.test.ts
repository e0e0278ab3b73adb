// Core pieces several statistics share (battleTable, the standings frame, pairing games into matches, the match
// key), each checked against a direct count written out here.
import { describe, expect, it } from 'vitest';
import { arenaHardBattles, weightedStandings, type WeightedGame } from '../../src/core/schemes/weighting.ts';
import { pairwiseStandings, tallyStandings } from '../../src/core/standings.ts';
import { battleTable, type ClusteredBattle } from '../../src/core/stats/battle-table.ts';
import { seededRng } from '../../src/core/stats/random.ts';
import type { MatchOutcome, Verdict } from '../../src/core/types.ts';
import { matchKey, outcomesFromGames, pairGames, scoreOf } from '../../src/core/outcomes.ts';

describe('battleTable over a fixed model and cluster list', () => {
  const rng = seededRng(7);
  const names = ['m0', 'm1', 'm2', 'm3', 'other'];
  const battles: ClusteredBattle[] = Array.from({ length: 400 }, () => {
    const a = names[Math.floor(rng() * names.length)]!;
    const b = names[Math.floor(rng() * names.length)]!;
    return {
      a,
      b,
      score: [0, 0.5, 1][Math.floor(rng() * 3)] as 0 | 0.5 | 1,
      cluster: Math.floor(rng() * 12),
    };
  });
  const models = ['m3', 'm1', 'm0', 'm2']; // not in order of appearance
  const clusters = [99, ...Array.from({ length: 12 }, (_, k) => 11 - k)]; // 99 has no battle

  it('has an entry list for every given cluster in the given order, and leaves out other models and self-battles', () => {
    const t = battleTable(battles, { models, clusters });
    expect(t.pairs.models).toEqual(models);
    expect(t.clusters).toEqual(clusters);
    expect(t.start.length).toBe(clusters.length + 1);
    expect(t.start[1]! - t.start[0]!).toBe(0); // cluster 99
    // direct count: per (cluster, ordered model pair i<j) games and i's score
    const direct = new Map<string, { w: number; s: number }>();
    const total = new Map<string, { w: number; s: number }>();
    let kept = 0;
    for (const b of battles) {
      const i = models.indexOf(b.a);
      const j = models.indexOf(b.b);
      if (i < 0 || j < 0 || i === j) continue;
      kept++;
      const [lo, hi, s] = i < j ? [i, j, b.score] : [j, i, 1 - b.score];
      for (const [m, key] of [
        [direct, `${b.cluster}:${lo}:${hi}`],
        [total, `${lo}:${hi}`],
      ] as const) {
        const e = m.get(key) ?? { w: 0, s: 0 };
        e.w++;
        e.s += s;
        m.set(key, e);
      }
    }
    expect(t.battles).toBe(kept);
    const fromTable = new Map<string, { w: number; s: number }>();
    clusters.forEach((c, k) => {
      for (let e = t.start[k]!; e < t.start[k + 1]!; e++) {
        const p = t.entryPair[e]!;
        fromTable.set(`${c}:${t.pairs.i[p]}:${t.pairs.j[p]}`, { w: t.entryW[e]!, s: t.entryS[e]! });
      }
    });
    expect(Object.fromEntries(fromTable)).toEqual(Object.fromEntries(direct));
    const pairTotals = new Map<string, { w: number; s: number }>();
    for (let p = 0; p < t.pairs.i.length; p++)
      pairTotals.set(`${t.pairs.i[p]}:${t.pairs.j[p]}`, { w: t.pairs.w[p]!, s: t.pairs.s[p]! });
    expect(Object.fromEntries(pairTotals)).toEqual(Object.fromEntries(total));
  });

  it('without a fixed list numbers models and clusters as they first appear (unchanged)', () => {
    const t = battleTable(battles);
    expect(t.pairs.models).toEqual([...new Set(battles.flatMap((b) => [b.a, b.b]))]);
    expect(t.clusters).toEqual([...new Set(battles.map((b) => b.cluster))]);
    expect(t.battles).toBe(battles.length);
  });
});

const g = (
  questionId: number,
  model1: string,
  model2: string,
  order: 'AB' | 'BA',
  verdict: Verdict,
  strong = false,
  sample?: number,
): WeightedGame & { sample?: number } => ({
  questionId,
  turn: 1,
  model1,
  model2,
  order,
  verdict,
  strong,
  ...(sample === undefined ? {} : { sample }),
});

describe('pairing stored games into matches', () => {
  it('one entry per match in order of its first game; the slot rule picks the lowest sample, then the latest', () => {
    const games = [
      g(1, 'a', 'b', 'AB', 'model_1'),
      g(2, 'a', 'b', 'BA', 'tie'),
      g(1, 'a', 'b', 'BA', 'model_2', false, 1),
      g(1, 'a', 'b', 'BA', 'tie', false, 0),
      g(1, 'a', 'b', 'BA', 'model_1', false, 2),
      g(1, 'a', 'b', 'AB', 'model_2'),
    ];
    const m = pairGames(games);
    expect(m.map((x) => [x.questionId, x.ab?.verdict, x.ba?.verdict])).toEqual([
      [1, 'model_2', 'tie'],
      [2, undefined, 'tie'],
    ]);
    expect(outcomesFromGames(games)).toEqual([
      { questionId: 1, turn: 1, model1: 'a', model2: 'b', outcome: 'inconsistent' },
    ]);
    expect(matchKey(games[0]!)).toBe(matchKey(games[2]!));
    expect(matchKey(games[0]!)).not.toBe(matchKey({ ...games[0]!, model1: 'b', model2: 'a' }));
  });
});

describe("model 1's score from a verdict or an outcome", () => {
  it('1 a win, 0 a loss, 1/2 a tie or an inconsistent match', () => {
    expect((['model_1', 'model_2', 'tie', 'inconsistent'] as const).map(scoreOf)).toEqual([1, 0, 0.5, 0.5]);
  });
});

describe('one standings frame for FastChat and Arena-Hard', () => {
  const games = [
    // q1: a beats b strongly in both orders; q2: a and b disagree; q3: an unparsable game; q4: b vs c tie both
    g(1, 'a', 'b', 'AB', 'model_1', true),
    g(1, 'a', 'b', 'BA', 'model_1', true),
    g(2, 'a', 'b', 'AB', 'model_1'),
    g(2, 'a', 'b', 'BA', 'model_2', true),
    g(3, 'a', 'b', 'AB', 'error'),
    g(3, 'a', 'b', 'BA', 'model_1'),
    g(4, 'b', 'c', 'AB', 'tie'),
    g(4, 'b', 'c', 'BA', 'tie'),
  ];

  it('Arena-Hard counts battles: strong verdicts 3, others 1, an errored match as an error', () => {
    const rows = Object.fromEntries(weightedStandings(games).map((r) => [r.model, r]));
    // a: q1 3+3 wins; q2 1 win, 3 losses; q3 error
    expect(rows.a).toMatchObject({ win: 7, loss: 3, tie: 0, error: 1, inconsistent: 1 });
    // b: q1 6 losses; q2 3 wins 1 loss; q3 error; q4 2 ties
    expect(rows.b).toMatchObject({ win: 3, loss: 7, tie: 2, error: 1, inconsistent: 1 });
    expect(rows.b!.winRateAdjusted).toBeCloseTo((3 + 1) / 12, 15);
    expect(rows.c).toMatchObject({ win: 0, loss: 0, tie: 2, winRateAdjusted: 0.5 });
    expect(arenaHardBattles(games)).toHaveLength(6 + 4 + 2);
  });

  it("FastChat's standings: an inconsistent match is a tie; the baseline's own row is dropped", () => {
    const outcomes = outcomesFromGames(games);
    const rows = Object.fromEntries(pairwiseStandings(outcomes).map((r) => [r.model, r]));
    expect(rows.a).toMatchObject({ win: 1, loss: 0, tie: 1, error: 1, inconsistent: 1 });
    expect(rows.b).toMatchObject({ win: 0, loss: 1, tie: 2, error: 1, inconsistent: 1 });
    expect(pairwiseStandings(outcomes, { baseline: 'b' }).map((r) => r.model)).toEqual(['a', 'c']);
    expect(weightedStandings(games, { baseline: 'b' }).map((r) => r.model)).toEqual(['a', 'c']);
  });

  it('tallyStandings filters by turn, questions and models before counting, and sorts by adjusted win rate then name', () => {
    const ms: MatchOutcome[] = [
      { questionId: 1, turn: 1, model1: 'x', model2: 'y', outcome: 'model_1' },
      { questionId: 2, turn: 2, model1: 'x', model2: 'y', outcome: 'model_2' },
      { questionId: 3, turn: 1, model1: 'x', model2: 'z', outcome: 'model_2' },
    ];
    const seen: number[] = [];
    const rows = tallyStandings(ms, { turn: 1, models: ['x', 'y'] }, (m, r1, r2) => {
      seen.push(m.questionId);
      r1.win++;
      r2.loss++;
    });
    expect(seen).toEqual([1]);
    expect(rows.map((r) => [r.model, r.winRate, r.lossRate])).toEqual([
      ['x', 1, 0],
      ['y', 0, 1],
    ]);
    expect(tallyStandings(ms, { questionIds: new Set([2, 3]) }, () => {}).map((r) => r.model)).toEqual([
      'x',
      'y',
      'z',
    ]);
  });
});
