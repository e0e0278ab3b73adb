import { quote, unreadable, type SchemeReading } from './types.ts';

const MARK = 'final decision is ';

/**
 * Auto-J (Li et al. 2023; github.com/GAIR-NLP/auto-j), protocol `pairwise_tie`: "So, the final decision is
 * Response 1 / Response 2 / Tie", read as its `extract_pariwise_result` does (the last phrase); its unparsed -1
 * is our error, and "Response 12" is not "Response 1".
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
