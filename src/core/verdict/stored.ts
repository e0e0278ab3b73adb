// Game.verdict (core/types.ts GameVerdict) holds a pairwise game's Verdict or a single-grading game's score as
// text. A string from outside (a database row) is checked against its game's kind once, where it enters
// (gameVerdictOf); parsers and importers build it typed (scoreText). Readers narrow with pairVerdict and
// ratingOf instead of casting or parsing. Pure: no I/O.
import { ArenaError, type GameVerdict, type ScoreText, type Verdict } from '../types.ts';

const VERDICTS: ReadonlySet<string> = new Set<Verdict>(['model_1', 'model_2', 'tie', 'error']);
/** A finite number as String(n) writes it (and any plain decimal numeral): '7', '7.5', '-1', '1e-7'. */
const NUMERAL = /^-?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/;
/** What String(n) writes for a rating that is not a finite number. */
const NOT_FINITE: ReadonlySet<string> = new Set(['Infinity', '-Infinity', 'NaN']);

export function isVerdict(v: string): v is Verdict {
  return VERDICTS.has(v);
}

/** A score as stored: a finite number's text (not `error`, not a pairwise verdict). */
export function isScoreText(v: string): v is ScoreText {
  return NUMERAL.test(v);
}

/** The stored text of a single-grading score (String(n), so '7.5', '10'). */
export function scoreText(n: number): ScoreText {
  if (!Number.isFinite(n)) throw new RangeError(`a score must be a finite number, got ${n}`);
  return `${n}`;
}

/**
 * A stored string as the verdict of a game of this kind: pairwise, a Verdict; single grading, a score or
 * `error`. Anything else is an ArenaError naming `where` (e.g. `game <id>`) and the value.
 */
export function gameVerdictOf(v: string, pairwise: boolean, where: string): GameVerdict {
  if (pairwise) {
    if (isVerdict(v)) return v;
  } else if (v === 'error' || isScoreText(v)) return v;
  // versions before the typed verdict stored String(rating) of a rating too long to be a finite number
  // ('Infinity'); today's parser stores `error` for that reply, and so it reads
  else if (NOT_FINITE.has(v)) return 'error';
  throw new ArenaError(
    `${where}: verdict ${JSON.stringify(v)} is not ${pairwise ? 'a pairwise verdict (model_1, model_2, tie or error)' : 'a score (a number) or error'}`,
  );
}

/**
 * A pairwise game's verdict. Only single-grading games hold scores (gameVerdictOf keeps them apart where
 * verdicts enter), so a score here is a bug, and throws.
 */
export function pairVerdict(v: GameVerdict): Verdict {
  if (isVerdict(v)) return v;
  throw new Error(`a single-grading score (${JSON.stringify(v)}) read as a pairwise verdict`);
}

/**
 * A single-grading game's score: the number, or null for `error` (the reply gave none). Only pairwise games
 * hold the other verdicts, so one of those here is a bug, and throws.
 */
export function ratingOf(v: GameVerdict): number | null {
  if (v === 'error') return null;
  if (isVerdict(v))
    throw new Error(`a pairwise verdict (${JSON.stringify(v)}) read as a single-grading score`);
  return Number(v);
}
