import type { PositionVerdict } from '../types.ts';
import { quote, unreadable, type SchemeReading } from './types.ts';

/** Arena-Hard's labels and their mirrored spellings (arena-hard-auto's show_result maps both). */
const LABELS: Record<string, { verdict: PositionVerdict; strong: boolean; label: string }> = {
  'A>>B': { verdict: 'A', strong: true, label: 'A>>B' },
  'A>B': { verdict: 'A', strong: false, label: 'A>B' },
  'A=B': { verdict: 'tie', strong: false, label: 'A=B' },
  'B>A': { verdict: 'B', strong: false, label: 'B>A' },
  'B>>A': { verdict: 'B', strong: true, label: 'B>>A' },
  'B<<A': { verdict: 'A', strong: true, label: 'A>>B' },
  'B<A': { verdict: 'A', strong: false, label: 'A>B' },
  'B=A': { verdict: 'tie', strong: false, label: 'A=B' },
  'A<B': { verdict: 'B', strong: false, label: 'B>A' },
  'A<<B': { verdict: 'B', strong: true, label: 'B>>A' },
};

/**
 * Arena-Hard-Auto (Li et al. 2024; github.com/lmarena/arena-hard-auto): the judge ends with one of five
 * labels, [[A>>B]] (A significantly better), [[A>B]], [[A=B]], [[B>A]], [[B>>A]].
 * arena-hard-auto's `get_score` finds every `\[\[([AB<>=]+)\]\]` in the upper-cased reply and takes the
 * last (gen_judgment.py; v0.1 wanted all matches to agree); show_result.py also reads the mirrored
 * spellings (A<B for B>A, B<<A for A>>B, ...).
 *
 * Our rules: the same regular expression on the upper-cased reply; the last match wins (so a reply that
 * quotes the five labels before its verdict is read by its verdict). The last match must be one of the
 * five labels or a mirrored spelling; anything else ("[[A>>>B]]", "[[AB]]") is an error, and so is a
 * reply with no label. A>>B and B>>A are `strong` (a strong verdict counts three times under
 * `--weight arena-hard`, see src/core/schemes/weighting.ts).
 */
export function parseArenaHard(reply: string): SchemeReading {
  let last: string | undefined;
  for (const m of reply.toUpperCase().matchAll(/\[\[([AB<>=]+)\]\]/g)) last = m[1];
  if (last === undefined)
    return unreadable('no verdict label ([[A>>B]], [[A>B]], [[A=B]], [[B>A]] or [[B>>A]]) in the reply');
  const l = LABELS[last];
  if (!l)
    return unreadable(
      `the last label ${quote(`[[${last}]]`)} is not one of [[A>>B]], [[A>B]], [[A=B]], [[B>A]], [[B>>A]]`,
    );
  return { verdict: l.verdict, label: l.label, strong: l.strong };
}
