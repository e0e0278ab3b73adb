// Arena-Hard's verdict weighting: a strong verdict counts `weight` (3) times.
import type { Battle } from '../ratings.ts';
import { tallyScore, tallyStandings, type StandingsOptions } from '../standings.ts';
import type { Standing } from '../types.ts';
import { pairGames, scoreOf, type PairedGames, type StoredVerdict } from '../outcomes.ts';

export type Weighting = 'none' | 'arena-hard';
export const WEIGHTINGS: readonly Weighting[] = ['none', 'arena-hard'];
/** arena-hard-auto's show_result.py `--weight` default */
export const ARENA_HARD_WEIGHT = 3;

/** One stored pairwise game with the strength of its verdict (Arena-Hard's >> labels). */
export interface WeightedGame extends StoredVerdict {
  /** a "significantly better" verdict ([[A>>B]] or [[B>>A]]) */
  strong: boolean;
}

/** Pair games into matches (stats/slot.ts's rule: without samples, a later game replaces an earlier one in the same slot); incomplete matches are left out. */
function matches(games: Iterable<WeightedGame>): Required<PairedGames<WeightedGame>>[] {
  return pairGames(games).filter((m): m is Required<PairedGames<WeightedGame>> => !!(m.ab && m.ba));
}

/** A game's battles in Arena-Hard's way: `weight` copies of a strong verdict, one of a slight verdict or a tie. */
function gameBattles(g: WeightedGame, weight: number): Battle[] {
  const score = scoreOf(g.verdict);
  const n = g.verdict !== 'tie' && g.strong ? weight : 1;
  return Array.from({ length: n }, () => ({ a: g.model1, b: g.model2, score }) as Battle);
}

/**
 * Arena-Hard's battles (arena-hard-auto show_result.py, `--weight 3`): each game counts on its own, both
 * orders, with no combining of the two: [[A>>B]] / [[B>>A]] give `weight` battles won by that side,
 * [[A>B]] / [[B>A]] one, [[A=B]] one tie (score 0.5). A match with an unparsable game is left out whole
 * (as show_result.py drops a row with a null score). Battles are in match, then AB-before-BA order.
 */
export function arenaHardBattles(games: Iterable<WeightedGame>, weight = ARENA_HARD_WEIGHT): Battle[] {
  const out: Battle[] = [];
  for (const m of matches(games)) {
    if (m.ab.verdict === 'error' || m.ba.verdict === 'error') continue;
    out.push(...gameBattles(m.ab, weight), ...gameBattles(m.ba, weight));
  }
  return out;
}

/**
 * Standings with Arena-Hard's weighting. `win`, `loss` and `tie` count battles (a strong verdict
 * `weight`, a slight one or a tie 1, each game on its own); `error` counts matches left out because a
 * game is unparsable; `inconsistent` counts matches whose two games disagree (they are not turned into
 * ties here: each game counts as it is). winRateAdjusted = (win + tie/2) / (win + loss + tie) is
 * Arena-Hard's score (the mean battle score). Filters as in pairwiseStandings.
 */
export function weightedStandings(
  games: Iterable<WeightedGame>,
  opts: StandingsOptions = {},
  weight = ARENA_HARD_WEIGHT,
): Standing[] {
  return tallyStandings(matches(games), opts, (m, r1, r2) => {
    if (m.ab.verdict === 'error' || m.ba.verdict === 'error') {
      r1.error++;
      r2.error++;
      return;
    }
    if (m.ab.verdict !== m.ba.verdict) {
      r1.inconsistent++;
      r2.inconsistent++;
    }
    for (const b of [...gameBattles(m.ab, weight), ...gameBattles(m.ba, weight)]) tallyScore(r1, r2, b.score);
  });
}
