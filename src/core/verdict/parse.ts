import { parseLenientPair } from './lenient.ts';
import type { Order, PositionVerdict, Verdict } from '../types.ts';

/**
 * Verdict parsers, each stored with its version so that `arena reparse` can tell what an improved parser changes.
 * `last` (default): the verdict given last wins (a reply quoting the format first is read by its verdict);
 * `fastchat`: "[[A]]" before "[[B]]" before "[[C]]"; `lenient`: the "Judge Llama 2" study's ladder (lenient.ts).
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
  return (v === 'A') === (order === 'AB') ? 'model_1' : 'model_2';
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
