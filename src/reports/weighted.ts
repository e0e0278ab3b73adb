// Standings and ratings under Arena-Hard's verdict weighting (a strong verdict counts three times),
// derived on read from a judge's stored games and their raw replies.
import { bradleyTerry, onlineElo, type Rating } from '../core/ratings.ts';
import { parseArenaHard } from '../core/schemes/arena-hard.ts';
import { outputFormatOfVersion } from '../core/schemes/index.ts';
import {
  arenaHardBattles,
  ARENA_HARD_WEIGHT,
  weightedStandings,
  type WeightedGame,
} from '../core/schemes/weighting.ts';
import { pairVerdict } from '../core/verdict/stored.ts';
import { ArenaError, type Standing } from '../core/types.ts';
import type { Store } from '../storage/store.ts';
import { questionFilter, standingsFilter, type StandingsQuery } from './results.ts';
import { pairGameOf } from '../core/outcomes.ts';

/**
 * A judge's pairwise games with the strength of each verdict; a game not read by the arena-hard parser is an error
 * (the weighting is meaningless without strong labels), not silently weighted 1.
 */
async function arenaHardGames(store: Store, judge: string): Promise<WeightedGame[]> {
  const games = await store.games.list({ judge, kind: 'pairwise' });
  const other = games.filter((g) => outputFormatOfVersion(g.parser)?.name !== 'arena-hard');
  if (!games.length)
    throw new ArenaError(
      `--weight arena-hard: judge "${judge}" has no pairwise games (play some with \`arena run --prompts arena-hard\`)`,
    );
  if (other.length) {
    const names = [...new Set(other.map((g) => g.promptName))].slice(0, 4).join(', ');
    throw new ArenaError(
      `--weight arena-hard: ${other.length} of judge "${judge}"'s ${games.length} pairwise games were not judged with Arena-Hard's labels (prompt ${names}); the weighting needs games played with \`--prompts arena-hard\``,
    );
  }
  return games.map((g) => {
    const verdict = pairVerdict(g.verdict);
    // the stored verdict is the fact; its strength is read again from the raw reply (the same parser wrote it)
    const r = parseArenaHard(g.reply);
    const strong = verdict !== 'tie' && verdict !== 'error' && r.strong === true;
    return { ...pairGameOf(g), strong };
  });
}

/** `arena standings --weight arena-hard`: battle counts, each game on its own, a strong verdict counting 3. */
export async function arenaHardStandings(store: Store, q: StandingsQuery): Promise<Standing[]> {
  if (q.mode === 'single') throw new ArenaError('--weight arena-hard applies to pairwise modes only');
  const games = await arenaHardGames(store, q.judge);
  return weightedStandings(
    games,
    standingsFilter(q, await questionFilter(store, q.category)),
    ARENA_HARD_WEIGHT,
  );
}

/** `arena ratings --weight arena-hard`: Bradley–Terry or Elo over Arena-Hard's weighted battles. */
export async function arenaHardRatings(
  store: Store,
  judge: string,
  method: 'bt' | 'elo',
  opts: { turn?: number } = {},
): Promise<Rating[]> {
  let games = await arenaHardGames(store, judge);
  if (opts.turn !== undefined) games = games.filter((g) => g.turn === opts.turn);
  const battles = arenaHardBattles(games, ARENA_HARD_WEIGHT);
  return method === 'bt' ? bradleyTerry(battles) : onlineElo(battles);
}
