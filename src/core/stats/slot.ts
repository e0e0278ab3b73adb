// One rule for which game of a slot (match and order) counts when it holds several (MEC samples, reruns): the
// lowest sample index (absent: 0), then the one stored last. Every report uses it, so their conflict counts agree.

/** A game as the rule sees it: its sample index (absent: 0), in stored order. */
export interface SlotGame {
  sample?: number | null;
}

/** Does `candidate` (stored after `current`) replace `current` in its slot? */
export function replacesInSlot(current: SlotGame | undefined, candidate: SlotGame): boolean {
  return current === undefined || (candidate.sample ?? 0) <= (current.sample ?? 0);
}

/** A game's sample index from its judge settings (MEC samples carry `sample`; everything else is 0). */
export function sampleOf(settings: Record<string, unknown> | null | undefined): number {
  const s = Number(settings?.sample ?? 0);
  return Number.isFinite(s) ? s : 0;
}
