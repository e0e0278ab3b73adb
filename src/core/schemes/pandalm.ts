import { quote, unreadable, type SchemeReading } from './types.ts';

/**
 * PandaLM (Wang et al. 2023; github.com/WeOpenML/PandaLM): "1", "2" or "Tie" alone on the first line (a repeated
 * "### Evaluation:" skipped). Its `parse_pandalm_response` reads anything else as a tie; we return an error.
 */
export function parsePandaLM(reply: string): SchemeReading {
  const text = reply.trim().replace(/^###\s*Evaluation:\s*/i, '');
  const first = text.split('\n')[0]!.trim();
  if (first === '1') return { verdict: 'A', label: '1' };
  if (first === '2') return { verdict: 'B', label: '2' };
  if (first.toLowerCase() === 'tie') return { verdict: 'tie', label: first };
  return unreadable(
    first
      ? `the first line ${quote(first)} is not "1", "2" or "Tie"`
      : 'the reply is empty: PandaLM writes "1", "2" or "Tie" on its first line',
  );
}
