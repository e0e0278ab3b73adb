import { quote, unreadable, type SchemeReading } from './types.ts';

/**
 * JudgeLM (Zhu et al. 2023; github.com/baaivision/JudgeLM): the judge writes the two assistants' scores
 * (1..10) on its first line, "8 7", then its explanation. JudgeLM's own `parse_score`
 * (judgelm/llm_judge/common.py) reads the first line, turns commas into spaces, splits it on spaces and
 * wants exactly two numbers; `translate_score_to_win_list` (T = 0) makes the higher score win and equal
 * scores a tie. Where JudgeLM turns anything else into the scores [-1, -1] (a tie), we return an error.
 *
 * Our rules: the reply's first non-empty line, commas read as spaces, must be exactly two numbers
 * (digits with an optional decimal part) in 1..10, separated by whitespace. A higher first score is A,
 * a higher second score B, equal scores a tie. Anything else (one number, three, words, "8/10 7/10",
 * a score outside 1..10, an empty reply) is an error.
 */
export function parseJudgeLM(reply: string): SchemeReading {
  const first = reply.trim().split('\n')[0]!.trim();
  if (!first) return unreadable('the reply is empty: JudgeLM writes the two scores on its first line');
  const parts = first.replace(/,/g, ' ').trim().split(/\s+/);
  if (parts.length !== 2) return unreadable(`the first line ${quote(first)} is not two scores ("8 7")`);
  const scores = parts.map((p) => (/^\d+(?:\.\d+)?$/.test(p) ? Number(p) : Number.NaN));
  if (scores.some((s) => !(s >= 1 && s <= 10)))
    return unreadable(`the first line ${quote(first)} is not two scores from 1 to 10`);
  const [a, b] = scores as [number, number];
  const label = `${parts[0]} ${parts[1]}`;
  return { verdict: a > b ? 'A' : b > a ? 'B' : 'tie', label };
}
