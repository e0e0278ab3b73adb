// `arena ratings --ties rao-kupper` and `--position`: the Bradley–Terry variants over a judge's stored data.
import { pairGameOf } from '../core/outcomes.ts';
import {
  fitPositionBT,
  fitRaoKupper,
  type PositionFit,
  type RaoKupperFit,
} from '../core/stats/bt-variants.ts';
import { positionSe, type PositionSe } from '../core/stats/position-se.ts';
import type { Store } from '../storage/store.ts';
import { judgeBattles, judgeData } from './results.ts';

export type VariantReport =
  | ({ variant: 'rao-kupper'; judge: string; battles: number } & RaoKupperFit)
  | ({ variant: 'position'; judge: string; games: number } & PositionFit & PositionSe);

/** Rao–Kupper ties over the judge's match outcomes (the experts: their votes). */
export async function raoKupperReport(store: Store, judge: string, turn?: number): Promise<VariantReport> {
  const battles = judgeBattles(await judgeData(store, judge), judge, turn);
  return { variant: 'rao-kupper', judge, battles: battles.length, ...fitRaoKupper(battles) };
}

/**
 * A position term over the judge's stored games, each on its own, with its standard error clustered by question;
 * undefined when the judge has no games (only recorded match outcomes or votes).
 */
export async function positionReport(
  store: Store,
  judge: string,
  turn?: number,
): Promise<VariantReport | undefined> {
  const games = (await store.games.facts({ judge, kind: 'pairwise' }))
    .map(pairGameOf)
    .filter((g) => (turn === undefined || g.turn === turn) && g.verdict !== 'error');
  if (!games.length) return undefined;
  const fit = fitPositionBT(games);
  return { variant: 'position', judge, games: games.length, ...fit, ...positionSe(games, fit) };
}
