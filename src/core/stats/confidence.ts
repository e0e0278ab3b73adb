// Verdict confidence from a judge's token probabilities. Pure.
import type { Verdict } from '../types.ts';
import { toPosition } from '../verdict/parse.ts';

/** Shannon entropy in bits of a probability distribution (0: certain; log2(3) ≈ 1.585 over A/B/C: no idea). */
export function entropyBits(p: Record<string, number>): number {
  let h = 0;
  for (const v of Object.values(p)) if (v > 0) h -= v * Math.log2(v);
  return h;
}

/**
 * A game's confidence: the probability of the verdict it gave, p[verdict] (keys A, B, C by position).
 * At temperature 0 that is the largest probability; a sampled verdict can be a less likely one, and its
 * confidence is then its own probability, not the maximum. null when unknown (no probabilities, an error).
 */
export function gameConfidence(
  p: Record<string, number> | null | undefined,
  order: 'AB' | 'BA',
  verdict: Verdict,
): number | null {
  if (!p || verdict === 'error') return null;
  // A or B by position, C for a tie
  const v = p[verdict === 'tie' ? 'C' : toPosition(verdict, order)];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
