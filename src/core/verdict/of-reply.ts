// The one reading of a judge's reply into a stored verdict, when a game is played and when stored replies are
// re-read (engine/reparse.ts). Pure.
import { outputFormatOf, type OutputFormat } from '../schemes/index.ts';
import { scoreText } from './stored.ts';
import type { GameSpec, GameVerdict, PromptScheme } from '../types.ts';
import { PARSER_VERSIONS, parseGameVerdict, parseRating, toVerdict, type ParserMode } from './parse.ts';

/** How to read a reply: the `[[A]]` / `[[n]]` parser mode, and the scheme's own output format where it has one. */
export interface ReplyParser {
  mode: ParserMode;
  /** JudgeLM, Arena-Hard, ...: read by that format's parser; the mode does not apply to it */
  format?: OutputFormat | undefined;
}

/** A reading: the verdict to store (a Verdict for a pair, the score as text for a rating, or `error`) and its parser version. */
export interface ReadVerdict {
  verdict: GameVerdict;
  parser: string;
}

/** The parser for a game of this prompt scheme: its own output format if it has one, else `[[A]]` in `mode`. */
export function parserFor(
  scheme: Pick<PromptScheme, 'outputFormat'> | undefined,
  mode: ParserMode,
): ReplyParser {
  return { mode, format: outputFormatOf(scheme?.outputFormat) };
}

/**
 * A reply's verdict about the match's models: single grading, the rating as text; pairwise, by the scheme's own
 * format or the `[[A]]` parser in `mode`, mapped back through the order. Never throws: an unreadable reply is `error`.
 */
export function verdictOf(
  spec: Pick<GameSpec, 'match' | 'order'>,
  text: string,
  parser: ReplyParser,
): ReadVerdict {
  if (spec.match.model2 === undefined) {
    // a numeral past a double's range (309 digits and more) reads as Infinity: no rating either
    const rating = parseRating(text, parser.mode);
    const verdict = rating === null || !Number.isFinite(rating) ? 'error' : scoreText(rating);
    return { verdict, parser: PARSER_VERSIONS[parser.mode] };
  }
  const f = parser.format;
  if (f) return { verdict: toVerdict(f.parse(text).verdict, spec.order), parser: f.version };
  return { verdict: parseGameVerdict(text, spec.order, parser.mode), parser: PARSER_VERSIONS[parser.mode] };
}
