// `arena accuracy`: every judge's accuracy on every labelled pair set (arena import pairs), read from the store.
import { GOLD } from '../core/constants.ts';
import {
  accuracyRow,
  type AccuracyRow,
  type LabelledItem,
  type LabelledGame,
} from '../core/stats/pair-accuracy.ts';
import type { BootstrapOptions } from '../core/stats/bootstrap.ts';
import { pairVerdict } from '../core/verdict/stored.ts';
import { ArenaError } from '../core/types.ts';
import type { Store } from '../storage/store.ts';

/** The gold labels of a set, from the `gold` judge's votes. */
async function labelledItems(store: Store, set: string): Promise<LabelledItem[]> {
  return (await store.votes.list(GOLD, { set })).flatMap((v) =>
    v.winner === 'model_1' || v.winner === 'model_2' ? [{ questionId: v.questionId, gold: v.winner }] : [],
  );
}

/** A set's labelled items and, per judge and prompt scheme, its games. */
export interface SetData {
  set: string;
  items: LabelledItem[];
  games: { judge: string; prompt: string; games: LabelledGame[] }[];
}

export async function pairSetData(
  store: Store,
  o: { judge?: string; set?: string } = {},
): Promise<SetData[]> {
  const sets = await store.catalog.pairSets();
  if (o.set !== undefined && !sets.some((s) => s.set === o.set))
    throw new ArenaError(
      `no labelled set named "${o.set}" (sets: ${sets.map((s) => s.set).join(', ') || 'none; import some with `arena import pairs DIR`'})`,
    );
  if (o.judge !== undefined && !sets.some((s) => s.judges.some((j) => j.judge === o.judge)))
    throw new ArenaError(
      `judge "${o.judge}" has no games on a labelled set (judges: ${[...new Set(sets.flatMap((s) => s.judges.map((j) => j.judge)))].join(', ') || 'none'})`,
    );
  const out: SetData[] = [];
  for (const s of sets) {
    if (o.set !== undefined && s.set !== o.set) continue;
    const d: SetData = { set: s.set, items: await labelledItems(store, s.set), games: [] };
    for (const { judge } of s.judges) {
      if (judge === GOLD || (o.judge !== undefined && judge !== o.judge)) continue;
      const games = await store.games.facts({ judge, set: s.set, kind: 'pairwise' });
      for (const prompt of [...new Set(games.map((g) => g.promptName))].sort())
        d.games.push({
          judge,
          prompt,
          games: games
            .filter((g) => g.promptName === prompt)
            .map((g) => ({
              questionId: g.match.questionId,
              order: g.order,
              verdict: pairVerdict(g.verdict),
            })),
        });
    }
    out.push(d);
  }
  return out;
}

/**
 * One row per set, judge and prompt scheme (every judge with games on the set, or only `judge`). A set
 * or judge that is named but unknown is an error listing what exists.
 */
export async function accuracyReport(
  store: Store,
  o: BootstrapOptions & { judge?: string; set?: string } = {},
): Promise<AccuracyRow[]> {
  const rows: AccuracyRow[] = [];
  for (const s of await pairSetData(store, o))
    for (const g of s.games) rows.push(accuracyRow(s.set, g.judge, g.prompt, s.items, g.games, o));
  return rows;
}
