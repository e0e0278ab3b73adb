import { pairVerdict } from './game-verdict.ts';
import { parseLenientPair } from './lenient.ts';
import { replacesInSlot, sampleOf } from './stats/slot.ts';
import type { Game, MatchOutcome, Order, Outcome, PairGame, PositionVerdict, Verdict } from './types.ts';

/**
 * Verdict parsers. Every parsed verdict is stored with the parser's version so that
 * `arena reparse` can tell which stored verdicts an improved parser would change.
 *
 * - `last` (default): the verdict the judge gives last wins. A reply that quotes the format
 *   ("[[A]]" if A is better ...) and ends with "[[B]]" is B.
 * - `fastchat`: FastChat's fixed-precedence substring test: "[[A]]" before "[[B]]" before "[[C]]".
 * - `lenient`: the "Judge Llama 2" study's ladder (core/lenient.ts); ratings as `fastchat`.
 */
export type ParserMode = 'last' | 'fastchat' | 'lenient';
export const PARSER_VERSIONS: Record<ParserMode, string> = {
  last: 'last@1',
  fastchat: 'fastchat@1',
  lenient: 'lenient@1',
};
/** The parser of an imported verdict kept as its file recorded it, where our parsers read the text otherwise. */
export const RECORDED_PARSER = 'recorded';

export function parserFromVersion(version: string): ParserMode {
  const mode = version.split('@')[0];
  if (mode === 'last' || mode === 'fastchat' || mode === 'lenient') return mode;
  throw new Error(`unknown parser version "${version}"`);
}

const PAIR_TOKEN = /\[\[([ABC])\]\]/g;

export function parsePairVerdict(reply: string, mode: ParserMode = 'last'): PositionVerdict {
  if (mode === 'lenient') return parseLenientPair(reply);
  if (mode === 'fastchat') {
    if (reply.includes('[[A]]')) return 'A';
    if (reply.includes('[[B]]')) return 'B';
    if (reply.includes('[[C]]')) return 'tie';
    return 'error';
  }
  let last: string | undefined;
  for (const m of reply.matchAll(PAIR_TOKEN)) last = m[1];
  if (last === undefined) return 'error';
  return last === 'C' ? 'tie' : (last as 'A' | 'B');
}

const RATING = /\[\[(\d+\.?\d*)\]\]/g;
const RATING_BACKUP = /\[(\d+\.?\d*)\]/;

/**
 * Single-answer rating. `fastchat`: the first `[[n]]`, else the first `[n]` (which can pick up a
 * citation such as "[1]"). `last`: the last `[[n]]`, no single-bracket fallback, and only 0..10.
 * Returns null when nothing parses.
 */
export function parseRating(reply: string, mode: ParserMode = 'last'): number | null {
  if (mode === 'fastchat' || mode === 'lenient') {
    const m = reply.match(/\[\[(\d+\.?\d*)\]\]/) ?? reply.match(RATING_BACKUP);
    return m ? Number(m[1]) : null;
  }
  let last: string | undefined;
  for (const m of reply.matchAll(RATING)) last = m[1];
  if (last === undefined) return null;
  const n = Number(last);
  return n >= 0 && n <= 10 ? n : null;
}

/** Map a positional verdict back to the match's models given the game's order. */
export function toVerdict(v: PositionVerdict, order: Order): Verdict {
  if (v === 'tie' || v === 'error') return v;
  if (order === 'AB') return v === 'A' ? 'model_1' : 'model_2';
  return v === 'A' ? 'model_2' : 'model_1';
}

/** The inverse of toVerdict: the position a verdict about the match's models picked in a game of that order. */
export function toPosition(v: Verdict, order: Order): PositionVerdict {
  if (v === 'tie' || v === 'error') return v;
  return (v === 'model_1') === (order === 'AB') ? 'A' : 'B';
}

/** Parse a pairwise reply into a Verdict about the match's models. */
export function parseGameVerdict(reply: string, order: Order, mode: ParserMode = 'last'): Verdict {
  return toVerdict(parsePairVerdict(reply, mode), order);
}

/**
 * Model 1's score in one battle from a verdict or a match outcome: 1 a win, 0 a loss, 1/2 a tie (an inconsistent
 * match counts as a tie). Callers leave errors out before asking.
 */
export function scoreOf(o: Outcome | Verdict): 1 | 0 | 0.5 {
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
export function matchKey(m: { questionId: number; turn: number; model1: string; model2: string }): string {
  return `${m.questionId}\u0000${m.turn}\u0000${m.model1}\u0000${m.model2}`;
}

/** The key that identifies a pairwise match regardless of orientation. */
export function itemKey(questionId: number, turn: number, a: string, b: string): string {
  return a < b
    ? `${questionId}\u0000${turn}\u0000${a}\u0000${b}`
    : `${questionId}\u0000${turn}\u0000${b}\u0000${a}`;
}

export interface StoredVerdict extends PairGame {
  /** MEC sample index (absent: 0) */
  sample?: number;
}

/** A stored pairwise game (its match has a model2) as its verdict about the match's models. */
export function pairGameOf(g: Game): PairGame {
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
export function storedVerdictOf(g: Game): StoredVerdict & { sample: number } {
  return { ...pairGameOf(g), sample: sampleOf(g.judgeSettings) };
}

/** A match's two games, one per order (absent: not stored). */
export interface PairedGames<G> {
  questionId: number;
  turn: number;
  model1: string;
  model2: string;
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
  for (const m of pairGames(games)) {
    if (!m.ab || !m.ba) continue;
    out.push({
      questionId: m.questionId,
      turn: m.turn,
      model1: m.model1,
      model2: m.model2,
      outcome: combineGames(m.ab.verdict, m.ba.verdict),
    });
  }
  return out;
}
