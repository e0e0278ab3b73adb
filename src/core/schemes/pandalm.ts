import { quote, unreadable, type SchemeReading } from './types.ts';

/**
 * PandaLM (Wang et al. 2023; github.com/WeOpenML/PandaLM): after "### Evaluation:" the judge writes
 * "1", "2" or "Tie" alone on its first line, then "### Reason: ..." and "### Reference: ...".
 * PandaLM's own `parse_pandalm_response` (pandalm/utils/pandalm_inference.py) reads the first line:
 * "1" or "2", "tie" in any case, and anything else as a tie (0). We return an error instead.
 *
 * Our rules: the reply's first non-empty line, trimmed, must be exactly "1" (A), "2" (B) or "Tie" in any
 * case (tie). A reply that writes "### Evaluation:" again first has it skipped. Anything else ("Response 1",
 * "1.", "1 is better", an empty reply) is an error.
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
