// The succession report: the bridge (the matches both the old and the new judge gave an outcome on) and its figures
// (core/stats/succession.ts), and each judge's position bias and agreement with people on those matches.
import { agreement } from '../core/stats/agreement.ts';
import {
  bridgeOf,
  successionFigures,
  type JudgeOnBridge,
  type SuccessionReport,
} from '../core/stats/succession.ts';
import { itemKey } from '../core/outcomes.ts';
import { AUTHOR, HUMAN } from '../core/constants.ts';
import { ArenaError, type MatchItem } from '../core/types.ts';
import type { Store } from '../storage/store.ts';
import { biasReport } from './analytics.ts';
import { judgeData, outcomeVotes } from './results.ts';

export type { JudgeOnBridge, SuccessionReport } from '../core/stats/succession.ts';

export async function successionReport(
  store: Store,
  from: string,
  to: string,
  o: { seed?: number; rounds?: number } = {},
): Promise<SuccessionReport> {
  const known = new Set((await store.games.judges()).map((j) => j.judge));
  for (const j of [from, to])
    if (!known.has(j))
      throw new ArenaError(
        `no games or recorded verdicts of "${j}" (judges: ${[...known].sort().join(', ')})`,
      );
  const [old, neu] = [await judgeData(store, from), await judgeData(store, to)];
  const bridge = bridgeOf(old.outcomes, neu.outcomes);
  const items = new Set(bridge.map((m) => itemKey(m.questionId, m.turn, m.model1, m.model2)));
  const only = (m: MatchItem) => items.has(itemKey(m.questionId, m.turn, m.model1, m.model2));
  const judges: JudgeOnBridge[] = [];
  for (const judge of [from, to]) {
    const row = (await biasReport(store, judge, [], { only })).games[0];
    judges.push({
      judge,
      games: row?.games ?? 0,
      positionA: row?.positionA ?? null,
      signTestP: row?.signTestP ?? null,
    });
  }
  const people: SuccessionReport['people'] = [];
  for (const p of [HUMAN, AUTHOR]) {
    if (!known.has(p)) continue;
    const votes = (await judgeData(store, p)).votes.filter(only);
    const rows = [from, to].flatMap((judge, k) =>
      agreement(outcomeVotes(judge, (k ? neu : old).outcomes.filter(only)), votes).map((r) => ({
        judge,
        ...r,
      })),
    );
    people.push({ people: p, votes: votes.length, rows });
  }
  return {
    from,
    to,
    bridge: {
      matches: bridge.length,
      oldMatches: old.outcomes.length,
      share: old.outcomes.length ? bridge.length / old.outcomes.length : 0,
    },
    figures: successionFigures(bridge, o),
    judges,
    people,
  };
}
