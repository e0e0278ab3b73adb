import { quote, unreadable, type SchemeReading } from './types.ts';

const MARK = 'final decision is ';

/**
 * Auto-J (Li et al. 2023; github.com/GAIR-NLP/auto-j), pairwise protocol `pairwise_tie`: the judge
 * compares the two responses and ends with "So, the final decision is Response 1 / Response 2 / Tie".
 * Auto-J's own `extract_pariwise_result` (codes/usage/example.py) finds the last "final decision is ",
 * lower-cases what follows and checks whether it starts with "response 1", "response 2" or "tie";
 * otherwise it returns -1 (unparsed). We read it the same way, and -1 is our error.
 *
 * Our rules: the last "final decision is " (as written, lower case) must be followed by "Response 1" (A),
 * "Response 2" (B) or "Tie" (tie), in any case; "Response 12" does not count as "Response 1". No such
 * phrase, or anything else after it, is an error.
 */
export function parseAutoJ(reply: string): SchemeReading {
  const pos = reply.lastIndexOf(MARK);
  if (pos < 0) return unreadable('no "final decision is ..." in the reply');
  const rest = reply.slice(pos + MARK.length).trim();
  const m = /^(response 1|response 2|tie)(?![0-9])/i.exec(rest);
  if (!m)
    return unreadable(
      `"final decision is" is followed by ${quote(rest, 40)}, not Response 1, Response 2 or Tie`,
    );
  const said = m[1]!.toLowerCase();
  return { verdict: said === 'response 1' ? 'A' : said === 'response 2' ? 'B' : 'tie', label: m[1]! };
}
