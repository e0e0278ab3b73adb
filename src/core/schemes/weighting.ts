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

/** The complete matches of the games (pairGames). */
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
 * Arena-Hard's battles (show_result.py, `--weight 3`): each game of both orders counts on its own; a match with
 * an unparsable game is left out whole (as show_result.py drops a row with a null score).
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
 * Standings with Arena-Hard's weighting: `win`, `loss` and `tie` count battles (arenaHardBattles), `error` the
 * matches left out, `inconsistent` those whose games disagree (not turned into ties: each game counts as it is).
 */
export function weightedStandings(
  games: Iterable<WeightedGame>,
  opts: StandingsOptions = {},
  weight = ARENA_HARD_WEIGHT,
): Standing[] {
  return tallyStandings(matches(games), opts, (m, r1, r2) => {
    if (m.ab.verdict === 'error' || m.ba.verdict === 'error') return void (r1.error++, r2.error++);
    if (m.ab.verdict !== m.ba.verdict) (r1.inconsistent++, r2.inconsistent++);
    for (const b of [...gameBattles(m.ab, weight), ...gameBattles(m.ba, weight)]) tallyScore(r1, r2, b.score);
  });
}
