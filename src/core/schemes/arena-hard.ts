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
 * Arena-Hard-Auto (Li et al. 2024; github.com/lmarena/arena-hard-auto): the last `[[label]]` of the upper-cased
 * reply, as its `get_score` reads it (so a reply that quotes the labels first is read by its verdict); anything
 * but the five labels or a mirrored spelling is an error. A>>B and B>>A are `strong` (schemes/weighting.ts).
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
