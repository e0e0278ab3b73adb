// The judges page's reading of two judges, from hand-made figures (every number below is worked out by hand).
import { describe, expect, it } from 'vitest';
import type { QualityRow } from '../../src/core/stats/judge-quality.ts';
import {
  judgeFigures,
  readLikeForLike,
  readTwoJudges,
  type JudgeSide,
} from '../../src/core/judge-reading.ts';
import { likeForLike } from '../../src/core/stats/like-for-like.ts';
import type { MatchOutcome, Vote } from '../../src/core/types.ts';

const q = (judge: string, turn: number, o: Partial<QualityRow>): QualityRow => ({
  judge,
  turn,
  games: 0,
  matches: 0,
  errorsOneGame: 0,
  errorsBothGames: 0,
  emptyReplies: 0,
  consistent: 0,
  inconsistent: 0,
  ties: 0,
  meanConfidence: null,
  meanEntropy: null,
  ...o,
});

const gpt4: JudgeSide = {
  judge: 'gpt-4',
  quality: [
    q('gpt-4', 1, { matches: 10, consistent: 9, inconsistent: 1 }),
    q('gpt-4', 2, { matches: 10, consistent: 9, inconsistent: 1 }),
    q('gpt-4', 0, { matches: 20, consistent: 18, inconsistent: 2 }),
  ],
  agreement: [
    { turn: 1, setup: 'with-tie', total: 10, agree: 6, ratio: 0.6 },
    { turn: 1, setup: 'without-tie', total: 8, agree: 7, ratio: 0.875 },
    { turn: 2, setup: 'with-tie', total: 10, agree: 5, ratio: 0.5 },
    { turn: 2, setup: 'without-tie', total: 4, agree: 3, ratio: 0.75 },
  ],
};
const llama: JudgeSide = {
  judge: 'llama',
  // 20 matches: 4 with errors (1 on turn 1, 3 on turn 2); of the 16 judged, 4 inconsistent
  quality: [
    q('llama', 1, { matches: 10, errorsOneGame: 1, consistent: 7, inconsistent: 2 }),
    q('llama', 2, { matches: 10, errorsOneGame: 1, errorsBothGames: 2, consistent: 5, inconsistent: 2 }),
    q('llama', 0, { matches: 20, errorsOneGame: 2, errorsBothGames: 2, consistent: 12, inconsistent: 4 }),
  ],
  agreement: [
    { turn: 1, setup: 'without-tie', total: 5, agree: 4, ratio: 0.8 },
    { turn: 2, setup: 'without-tie', total: 2, agree: 1, ratio: 0.5 },
  ],
};

describe('readTwoJudges', () => {
  it('figures: inconsistency over matches judged in both orders, the share of error matches on turn 2', () => {
    const f = judgeFigures(llama);
    expect(f).toMatchObject({
      matches: 20,
      errorMatches: 4,
      errorRate: 0.2,
      errorShareTurn2: 0.75,
      inconsistencyRate: 0.25,
      judged: 16,
    });
    expect(f.expertsWithoutTie).toEqual({ 1: 0.8, 2: 0.5 });
  });

  it('reads the difference with the numbers', () => {
    const text = readTwoJudges(gpt4, llama, { r: 0.9512, experts: { 1: 0.81, 2: 0.82 } });
    expect(text).toContain(
      'llama contradicts itself when the two answers swap places in 25.0% of the matches it judged in both orders (4 of 16), 2.5× as often as gpt-4 (10.0%, 2 of 20).',
    );
    expect(text).toContain('in 4 of 20 matches (20.0%), 75.0% of them on turn 2');
    expect(text).toContain('gpt-4 has none.');
    expect(text).toContain(
      'on 80.0% of turn-1 and 50.0% of turn-2 votes when ties are left out (gpt-4: 87.5% and 75.0%; the experts among themselves: 81.0% and 82.0%)',
    );
    expect(text).toContain("Pearson's r of the adjusted win rates is 0.951.");
  });

  it('a reference that is never inconsistent, a judge without errors, no expert votes and no r', () => {
    const perfect: JudgeSide = {
      judge: 'ref',
      quality: [q('ref', 1, { matches: 5, consistent: 5 })],
      agreement: [],
    };
    const clean: JudgeSide = {
      judge: 'other',
      quality: [q('other', 1, { matches: 5, consistent: 4, inconsistent: 1 })],
      agreement: [],
    };
    const text = readTwoJudges(perfect, clean);
    expect(text).toBe(
      'other contradicts itself when the two answers swap places in 20.0% of the matches it judged in both orders (1 of 5), while ref never does (0 of 5). It gave a readable verdict in every game; ref has no errors either.',
    );
  });
});

describe('likeForLike and its reading', () => {
  // 4 questions x 1 pair x 1 turn; question 4: judge b errs (left out of every figure)
  const m = (questionId: number, outcome: MatchOutcome['outcome']): MatchOutcome => ({
    questionId,
    turn: 1,
    model1: 'x',
    model2: 'y',
    outcome,
  });
  const a = [m(1, 'model_1'), m(2, 'inconsistent'), m(3, 'model_2'), m(4, 'model_1')];
  // judge b names the pair the other way round on question 3: 'model_1' there is y, so it agrees with a
  const b = [
    m(1, 'model_1'),
    m(2, 'model_2'),
    { ...m(3, 'model_1'), model1: 'y', model2: 'x' },
    m(4, 'error'),
  ];
  const vote = (questionId: number, winner: Vote['winner']): Vote => ({
    judge: 'human',
    voter: `expert_${questionId}`,
    questionId,
    turn: 1,
    model1: 'x',
    model2: 'y',
    winner,
  });
  const experts = [
    vote(1, 'model_2'),
    vote(2, 'model_2'),
    vote(3, 'model_2'),
    vote(3, 'tie'),
    vote(4, 'model_1'),
  ];

  it('counts only the matches both judged, and compares both judges with the same decisive votes', () => {
    // 3 questions: below MIN_QUESTIONS_FOR_INTERVALS, so the rule is lowered to see the intervals at work
    const l = likeForLike(['a', a], ['b', b], experts, { rounds: 200, minQuestionsForIntervals: 0 });
    expect([l.matches, l.questions]).toEqual([3, 3]);
    expect(l.judges.map((j) => [j.inconsistency.inconsistent, j.inconsistency.value])).toEqual([
      [1, 1 / 3],
      [0, 0],
    ]);
    // b is never inconsistent: the ratio b / a is 0
    expect(l.inconsistencyRatio.value).toBe(0);
    const s = (j: 0 | 1, setup: string) =>
      l.judges[j].agreement.filter((x) => x.setup === setup).map((x) => [x.agree, x.total]);
    // with ties, all 4 expert votes on the 3 common matches; without ties only questions 1 and 3 (both decided),
    // the expert tie left out: question 1 (both disagree with the expert), question 3 (both agree)
    expect(s(0, 'with-tie')).toEqual([[1, 4]]);
    expect(s(1, 'with-tie')).toEqual([[2, 4]]);
    expect(s(0, 'without-tie')).toEqual([[1, 2]]);
    expect(s(1, 'without-tie')).toEqual([[1, 2]]);
    // a rates x and y alike (1.5 of 3 each): a constant series has no correlation
    expect(l.r).toMatchObject({ value: null, interval: null });
    for (const e of [l.judges[0].inconsistency, l.judges[0].agreement[0]!])
      expect(e.interval!.lo <= e.value! && e.value! <= e.interval!.hi).toBe(true);
  });

  it('reads as one paragraph with the intervals', () => {
    const l = likeForLike(['gpt-4', a], ['llama', b], experts, { rounds: 0, minQuestionsForIntervals: 0 });
    expect(readLikeForLike(l)).toBe(
      'Like for like, on the 3 matches where both judges gave a verdict in both orders (95% intervals from 0 rounds ' +
        'resampling the 3 questions): llama contradicts itself in 0.0% of them and gpt-4 in 33.3%, 0.00 times as ' +
        "often. On the matches both decided, llama agrees with the experts' decisive votes on 50.0% of turn-1 votes " +
        '(2), gpt-4 on 50.0% of the same votes.',
    );
    const l2 = likeForLike(['gpt-4', a], ['llama', b], experts, { rounds: 100, minQuestionsForIntervals: 0 });
    expect(readLikeForLike(l2)).toMatch(
      /llama contradicts itself in 0\.0% \[0\.0, 0\.0\] of them and gpt-4 in 33\.3% \[/,
    );
    // by default 3 questions are too few for an interval: none is drawn, and the reading says why
    const l3 = likeForLike(['gpt-4', a], ['llama', b], experts, { rounds: 100 });
    expect([l3.rounds, l3.intervalsWithheld?.questions, l3.judges[0].inconsistency.interval]).toEqual([
      0,
      3,
      null,
    ]);
    expect(readLikeForLike(l3)).toContain(
      '(no intervals: 3 questions (fewer than 30): too few for a question-bootstrap interval): llama contradicts itself in 0.0% of them',
    );
  });
});
