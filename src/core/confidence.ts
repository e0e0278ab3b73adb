// Verdict confidence from a judge's token probabilities. Pure.

/** Shannon entropy in bits of a probability distribution (0: certain; log2(3) ≈ 1.585 over A/B/C: no idea). */
export function entropyBits(p: Record<string, number>): number {
  let h = 0;
  for (const v of Object.values(p)) if (v > 0) h -= v * Math.log2(v);
  return h;
}

/** A game's confidence: the probability of the verdict it gave (the largest), or null when unknown. */
export function gameConfidence(p: Record<string, number> | null | undefined): number | null {
  if (!p) return null;
  const v = Object.values(p);
  return v.length ? Math.max(...v) : null;
}

/** A match's confidence: the lower of its two games' confidences (null if either is unknown). */
export function matchConfidence(ab: Record<string, number> | null | undefined, ba: Record<string, number> | null | undefined): number | null {
  const a = gameConfidence(ab);
  const b = gameConfidence(ba);
  return a === null || b === null ? null : Math.min(a, b);
}
