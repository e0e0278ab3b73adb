import type { PositionVerdict } from '../types.ts';

/**
 * The "Judge Llama 2" study's lenient reading of a pairwise reply: a ladder of verdict marks, the first rung with
 * any mark decides (its earliest mark in the text); nothing on any rung is an error, never a guess.
 */
const LADDER: RegExp[] = [
  /\[\[([ABC]|[Tt]ie|TIE)\]\]/,
  /\[\[Assistant ([AB])\]\]/,
  /\[Assistant ([AB])\]/,
  /\[([ABC])\]/,
  /^\s*([ABC])\s*$/,
];

export function parseLenientPair(reply: string): PositionVerdict {
  for (const rung of LADDER) {
    const m = reply.match(rung);
    if (!m) continue;
    const mark = m[1]!;
    return mark === 'A' ? 'A' : mark === 'B' ? 'B' : 'tie';
  }
  return 'error';
}
