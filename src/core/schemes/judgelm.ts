import { quote, unreadable, type SchemeReading } from './types.ts';

/**
 * JudgeLM (Zhu et al. 2023; github.com/baaivision/JudgeLM): the two scores (1..10) on the first line, "8 7",
 * read as its `parse_score` does (commas as spaces; the higher score wins, equal ones tie); where JudgeLM turns
 * anything else into a tie, we return an error.
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
