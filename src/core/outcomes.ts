// Outcomes: a match's two stored games (one per order) combined into its result, and the keys that pair them.
// Shared by the standings, the ratings, the statistics and Arena-Hard's weighting. Pure: no I/O.
import { pairVerdict } from './verdict/stored.ts';
import { replacesInSlot, sampleOf } from './stats/slot.ts';
import type { Game, MatchItem, MatchOutcome, Outcome, MatchGame, Verdict, VoteWinner } from './types.ts';

/**
 * Model 1's score in one battle from a verdict or a match outcome: 1 a win, 0 a loss, 1/2 a tie (an inconsistent
 * match counts as a tie). Callers leave errors out before asking.
 */
export function scoreOf(o: Outcome | Verdict | VoteWinner): 1 | 0 | 0.5 {
  return o === 'model_1' ? 1 : o === 'model_2' ? 0 : 0.5;
}

/**
 * Combine the two games of a match: an error in either is an error; equal verdicts stand;
 * disagreeing verdicts are `inconsistent` (a tie when scored).
 */
export function combineGames(g1: Verdict, g2: Verdict): Outcome {
  if (g1 === 'error' || g2 === 'error') return 'error';
  if (g1 === g2) return g1;
  return 'inconsistent';
}

/** The key of a match as stored (question, turn, model 1, model 2): its two games share it. */
export function matchKey(m: MatchItem): string {
  return `${m.questionId}\u0000${m.turn}\u0000${m.model1}\u0000${m.model2}`;
}

/** The key that identifies a pairwise match regardless of orientation. */
export function itemKey(questionId: number, turn: number, a: string, b: string): string {
  return a < b
    ? `${questionId}\u0000${turn}\u0000${a}\u0000${b}`
    : `${questionId}\u0000${turn}\u0000${b}\u0000${a}`;
}

export interface StoredVerdict extends MatchGame {
  /** MEC sample index (absent: 0) */
  sample?: number;
}

/** A stored pairwise game (its match has a model2) as its verdict about the match's models. */
export function pairGameOf(g: Pick<Game, 'match' | 'order' | 'verdict'>): MatchGame {
  return {
    questionId: g.match.questionId,
    turn: g.match.turn,
    model1: g.match.model1,
    model2: g.match.model2!,
    order: g.order,
    verdict: pairVerdict(g.verdict),
  };
}

/** pairGameOf plus the game's MEC sample index, as pairing and outcomes read it. */
export function storedVerdictOf(
  g: Pick<Game, 'match' | 'order' | 'verdict' | 'judgeSettings'>,
): StoredVerdict & { sample: number } {
  return { ...pairGameOf(g), sample: sampleOf(g.judgeSettings) };
}

/** A match's two games, one per order (absent: not stored). */
export interface PairedGames<G> extends MatchItem {
  ab?: G;
  ba?: G;
}

/**
 * Stored games grouped into their matches, in order of each match's first game. Several games in one slot:
 * stats/slot.ts's rule (the lowest sample index; among equal ones the later game replaces the earlier).
 */
export function pairGames<G extends StoredVerdict>(games: Iterable<G>): PairedGames<G>[] {
  const byMatch = new Map<string, PairedGames<G>>();
  for (const g of games) {
    const key = matchKey(g);
    let m = byMatch.get(key);
    if (!m)
      byMatch.set(key, (m = { questionId: g.questionId, turn: g.turn, model1: g.model1, model2: g.model2 }));
    if (g.order === 'AB') {
      if (replacesInSlot(m.ab, g)) m.ab = g;
    } else if (replacesInSlot(m.ba, g)) m.ba = g;
  }
  return [...byMatch.values()];
}

/**
 * Pair up stored game verdicts into match outcomes. A match with only one of its two games is
 * left out (it is incomplete, not an error). Several games in one slot: stats/slot.ts's rule (the
 * lowest sample index; among equal ones the later game replaces the earlier).
 */
export function outcomesFromGames(games: Iterable<StoredVerdict>): MatchOutcome[] {
  const out: MatchOutcome[] = [];
  for (const { questionId, turn, model1, model2, ab, ba } of pairGames(games))
    if (ab && ba)
      out.push({ questionId, turn, model1, model2, outcome: combineGames(ab.verdict, ba.verdict) });
  return out;
}
