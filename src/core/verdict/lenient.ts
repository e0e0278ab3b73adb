import type { PositionVerdict } from '../types.ts';

/**
 * The "Judge Llama 2" study's lenient reading of a pairwise reply, as a ladder of verdict marks tried
 * in order: `[[A]]` (also `[[C]]`/`[[Tie]]`), `[[Assistant A]]`, `[Assistant A]`, `[A]` (also `[C]`),
 * and last a reply that is exactly `A`, `B` or `C`. The first rung with any mark decides, and on that
 * rung the earliest mark in the text wins. Nothing found on any rung is an error, never a guess.
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
