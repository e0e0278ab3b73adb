// `arena run --until-settled --dry-run`: how many of the plan's games a settled run will still pay for,
// simulated from the stored games (core/stats/settle-simulate.ts). Reads only.
import { pick } from '../core/pick.ts';
import { simulateSettled } from '../core/stats/settle-simulate.ts';
import { planRun } from './run.ts';
import type { SettleOptions } from './settle.ts';
import { planMatches, playedState, roundsOf } from './settle-state.ts';

export interface SettleEstimate {
  /** the full plan's games, and those stored */
  planned: number;
  stored: number;
  /** the plan's games not stored, keyed by id (for their cost) */
  toPlay: { id: string; spec: Awaited<ReturnType<typeof planRun>>['games'][number]['spec'] }[];
  /** judge calls each simulated run still made (both orders per match, plus the half-played matches' rest), sorted */
  calls: number[];
}

export async function estimateSettled(
  o: SettleOptions & { plan?: { store: Parameters<typeof planRun>[0]['store'] }; replicates?: number },
): Promise<SettleEstimate> {
  if (o.mode === 'single') throw new Error('--until-settled schedules pairwise plans only');
  const { games } = await planRun({ ...o, ...(o.plan ?? {}) });
  const { matches, gameIds } = planMatches(games);
  const list = [...matches.values()];
  const planIds = new Set(games.map((g) => g.id));
  const state = await playedState(o, planIds, gameIds);
  const { models, round } = roundsOf(o, list.length);
  // a half-played match is finished first: its missing order is paid whatever the scheduler says
  const half = [...state.half].length;
  const sims = simulateSettled({
    mode: o.mode,
    models,
    ...pick(o, ['baseline', 'target', 'width', 'level']),
    matches: list,
    played: new Set([...state.played, ...state.half]),
    outcomes: state.outcomes,
    round,
    replicates: o.replicates ?? 20,
  });
  const stored = await o.store.games.existingIds([...planIds]);
  return {
    planned: games.length,
    stored: stored.size,
    toPlay: games.filter((g) => !stored.has(g.id)),
    calls: sims.map((m) => 2 * m + half),
  };
}
