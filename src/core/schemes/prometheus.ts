import { quote, unreadable, type SchemeReading } from './types.ts';

/**
 * Prometheus 2, relative grading (Kim et al. 2024; github.com/prometheus-eval/prometheus-eval): feedback, then
 * "[RESULT] A" or "[RESULT] B" (no tie). Stricter than its `_parse_output_relative`: only the last "[RESULT]",
 * followed by A or B alone on its line, so "[Response A" in the feedback is never read as the result.
 */
export function parsePrometheusRelative(reply: string): SchemeReading {
  const upper = reply.toUpperCase();
  const pos = upper.lastIndexOf('[RESULT]');
  if (pos < 0) return unreadable('no "[RESULT] A" or "[RESULT] B" in the reply');
  const rest = reply.slice(pos + '[RESULT]'.length);
  const m = /^[ \t]*(?:\(\s*)?(?:Response\s+)?([AB])(?:\s*[)\]])?[ \t]*\.?[ \t]*(?:\n|$)/i.exec(rest);
  if (!m) return unreadable(`"[RESULT]" is followed by ${quote(rest, 40)}, not A or B`);
  const v = m[1]!.toUpperCase() as 'A' | 'B';
  return { verdict: v, label: v };
}
