// Whether a judge's games come from adaptive runs (`--until-settled`: the round's number in the run's config): the
// standings and the win matrix say so, since the matches per pair then differ by design.
import type { Store } from '../storage/store.ts';

/** The adaptive rounds stored for this judge (0: none). */
export async function adaptiveRounds(store: Pick<Store, 'runs'>, judge: string): Promise<number> {
  return (await store.runs.list()).filter(
    (r) => r.judge === judge && typeof r.config.untilSettled === 'number',
  ).length;
}

/** The note the standings and the win matrix show for a judge with adaptive rounds, else undefined. */
export function adaptiveNote(rounds: number): string | undefined {
  if (!rounds) return undefined;
  return `Some of this judge's games come from an adaptive run (${rounds} round(s) of --until-settled): pairs were played until their order was decided, so the matches per pair differ by design and skipped pairs have none; the ratings and intervals use the games as played.`;
}
