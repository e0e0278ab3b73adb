import { describe, expect, it } from 'vitest';
import { agreement } from '../../src/core/stats/agreement.ts';
import type { Vote } from '../../src/core/types.ts';

const v = (
  voter: string,
  model1: string,
  model2: string,
  winner: Vote['winner'],
  over: Partial<Vote> = {},
): Vote => ({
  judge: voter.startsWith('expert') ? 'human' : 'gpt-4',
  voter,
  questionId: 1,
  turn: 1,
  model1,
  model2,
  winner,
  ...over,
});
const row = (rows: ReturnType<typeof agreement>, turn: number, setup: string) => {
  const r = rows.find((x) => x.turn === turn && x.setup === setup)!;
  return [r.total, r.agree];
};

describe('agreement (FastChat compute_agreement, protocol §5)', () => {
  it('judge vs experts: each expert vote against the judge verdict; the orientation of a vote does not matter', () => {
    const judge = [v('gpt4', 'p', 'q', 'model_1')];
    const experts = [
      v('expert_1', 'p', 'q', 'model_1'), // agrees
      v('expert_2', 'q', 'p', 'model_2'), // the same verdict, flipped orientation: agrees
      v('expert_3', 'q', 'p', 'model_1'), // q wins: disagrees
      v('expert_4', 'p', 'q', 'tie'), // tie: counted in S1 (disagrees), skipped in S2
    ];
    const rows = agreement(judge, experts);
    expect(row(rows, 1, 'with-tie')).toEqual([4, 2]);
    expect(row(rows, 1, 'without-tie')).toEqual([3, 2]);
    expect(rows.find((r) => r.setup === 'with-tie')!.ratio).toBe(0.5);
  });

  it("'inconsistent' counts as a tie: equal to any tie in S1, banned in S2", () => {
    const rows = agreement(
      [v('gpt4', 'p', 'q', 'inconsistent')],
      [v('expert_1', 'q', 'p', 'tie'), v('expert_2', 'p', 'q', 'model_2')],
    );
    expect(row(rows, 1, 'with-tie')).toEqual([2, 1]);
    expect(row(rows, 1, 'without-tie')).toEqual([0, 0]);
  });

  it('human vs human: every unordered pair of votes on the same item', () => {
    const votes = [
      v('expert_1', 'p', 'q', 'model_1'),
      v('expert_2', 'q', 'p', 'model_2'), // = p wins
      v('expert_3', 'p', 'q', 'model_2'),
      v('expert_4', 'p', 'q', 'tie'),
      v('expert_5', 'p', 'q', 'model_1', { questionId: 2 }), // alone on its item: no pair
    ];
    const rows = agreement(votes, 'same');
    // pairs among 4 votes: 6; agreeing: (1,2) only. Without ties: pairs among 1,2,3 = 3, agreeing 1
    expect(row(rows, 1, 'with-tie')).toEqual([6, 1]);
    expect(row(rows, 1, 'without-tie')).toEqual([3, 1]);
  });

  it('keeps turns apart and only compares votes on the same item (question and model pair)', () => {
    const rows = agreement(
      [
        v('gpt4', 'p', 'q', 'model_1'),
        v('gpt4', 'p', 'q', 'model_1', { turn: 2 }),
        v('gpt4', 'p', 'r', 'model_1'),
      ],
      [
        v('expert_1', 'p', 'q', 'model_2'),
        v('expert_1', 'p', 'q', 'model_1', { turn: 2 }),
        v('expert_1', 'p', 'q', 'model_1', { questionId: 9 }),
      ],
    );
    expect(rows.map((r) => [r.turn, r.setup, r.total, r.agree])).toEqual([
      [1, 'with-tie', 1, 0],
      [1, 'without-tie', 1, 0],
      [2, 'with-tie', 1, 1],
      [2, 'without-tie', 1, 1],
    ]);
  });

  it('nothing to compare gives total 0 and ratio 0', () => {
    const rows = agreement([v('gpt4', 'p', 'q', 'model_1')], [v('expert_1', 'p', 'r', 'model_1')]);
    expect(rows.every((r) => r.total === 0 && r.agree === 0 && r.ratio === 0)).toBe(true);
  });
});
