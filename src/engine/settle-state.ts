// What an adaptive run reads between rounds: the plan's matches (both orders share a key) and which of them
// the store holds, with the played matches' outcomes. Shared by the pairwise-all and pairwise-baseline rounds.
import { matchKey, outcomesFromGames, storedVerdictOf } from '../core/outcomes.ts';
import type { SettleMatch } from '../core/stats/settle.ts';
import type { GameSpec, MatchOutcome } from '../core/types.ts';
import type { RunOptions } from './run.ts';

/** The key of a planned pairwise game's match (both orders share it). */
export function keyOf(spec: GameSpec): string {
  return matchKey({ ...spec.match, model2: spec.match.model2! });
}

/**
 * The models a pairwise plan's rounds rate (pairwise-baseline: but the baseline), and a round's matches (default: a
 * tenth of the plan's matches, per model against a baseline, at least 10).
 */
export function roundsOf(
  o: Pick<RunOptions, 'mode' | 'models' | 'baseline'> & { round?: number },
  matches: number,
) {
  const models = o.mode === 'pairwise-baseline' ? o.models.filter((m) => m !== o.baseline) : o.models;
  const per = o.mode === 'pairwise-all' ? 1 : models.length;
  return { models, round: o.round ?? Math.max(10, Math.ceil(matches / (10 * per))) };
}

/** The plan's matches by key, and each match's game ids. */
export function planMatches(games: { id: string; spec: GameSpec }[]): {
  matches: Map<string, SettleMatch>;
  gameIds: Map<string, string[]>;
} {
  const matches = new Map<string, SettleMatch>();
  const gameIds = new Map<string, string[]>();
  for (const g of games) {
    const k = keyOf(g.spec);
    if (!matches.has(k))
      matches.set(k, {
        key: k,
        a: g.spec.match.model1,
        b: g.spec.match.model2!,
        cluster: g.spec.match.questionId,
      });
    gameIds.set(k, [...(gameIds.get(k) ?? []), g.id]);
  }
  return { matches, gameIds };
}

/** The plan's games stored now: matches with both orders, those with one, and the played matches' outcomes. */
export async function playedState(o: RunOptions, planIds: Set<string>, gameIds: Map<string, string[]>) {
  const stored = await o.store.games.existingIds([...planIds]);
  const played = new Set<string>();
  const half = new Set<string>();
  for (const [k, ids] of gameIds) {
    const n = ids.filter((id) => stored.has(id)).length;
    if (n === ids.length) played.add(k);
    else if (n) half.add(k);
  }
  const mine = (
    await o.store.games.list({ judge: o.judge.id, kind: 'pairwise', ...(o.set ? { set: o.set } : {}) })
  )
    .filter((g) => planIds.has(g.id))
    .map(storedVerdictOf);
  const outcomes: MatchOutcome[] = outcomesFromGames(mine);
  return { stored: stored.size, played, half, outcomes };
}
