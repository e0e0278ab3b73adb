// `arena run --judge <local> --escalate-to <second> --below p`: judge every match locally, then send the second
// judge only the matches whose local verdict is unsure, inconsistent, unparsable, missing or (softentAbove) out
// of the judge's fine-tuning.
import { gameConfidence } from '../core/stats/confidence.ts';
import { escalationReason } from '../core/stats/judge-quality.ts';
import { pairVerdict } from '../core/verdict/stored.ts';
import type { MatchOutcome } from '../core/types.ts';
import { combineGames, pairGames, storedVerdictOf } from '../core/outcomes.ts';
import type { JudgeProvider } from '../judges/judge.ts';
import { planRun, runTournament, type RunOptions, type RunSummary } from './run.ts';
import { judgeData } from '../reports/results.ts';

export interface EscalationOptions extends Omit<RunOptions, 'judge'> {
  local: JudgeProvider;
  second: JudgeProvider;
  /** escalate a match whose lower game confidence is below this */
  below: number;
  /** also escalate a match when a game's SoftEnt-Cali (nats, stored by a judge asked for it) is above this */
  softentAbove?: number;
  onStage?(stage: 'local' | 'second', judge: string): void;
  /** the second judge's price per call (the local judge is free); without it the cost is unknown */
  secondCostOf?(tokensIn: number | null, tokensOut: number | null): number | null;
}

export interface EscalationSummary {
  local: RunSummary;
  second: RunSummary;
  /** planned pairwise matches */
  matches: number;
  escalated: number;
  reasons: Record<string, number>;
  /** the matches sent on, by match key */
  escalatedKeys: string[];
  /** outcomes of the combined judge: the second judge's where escalated (and played), the local one's elsewhere */
  combined: MatchOutcome[];
  /** how the combined result compares with the second judge on every match (only when it has judged them all) */
  vsSecondEverywhere: { matches: number; agree: number; ratio: number } | null;
  /** the second judge's cost (USD) and tokens for the escalated matches */
  cost: number | null;
  tokens: number;
}

const matchKey = (m: { questionId: number; turn: number; model1: string; model2?: string }) =>
  `${m.questionId}\u0000${m.turn}\u0000${m.model1}\u0000${m.model2 ?? ''}`;

export async function runEscalation(o: EscalationOptions): Promise<EscalationSummary> {
  const { local, second, below, softentAbove, onStage, secondCostOf, ...rest } = o;
  onStage?.('local', local.id);
  const localRun = await runTournament({ ...rest, judge: local });
  const { games } = await planRun({ ...rest, judge: local });
  const ids = new Set(games.map((g) => g.id));
  const stored = (
    await rest.store.games.list({
      judge: local.id,
      kind: 'pairwise',
      ...(rest.set !== undefined ? { set: rest.set } : {}),
    })
  ).filter((g) => ids.has(g.id));
  const paired = new Map(
    pairGames(
      stored.map((g) => ({
        ...storedVerdictOf(g),
        confidence: gameConfidence(g.verdictProbs, g.order, pairVerdict(g.verdict)),
        reliability: g.reliability ?? null,
      })),
    ).map((m) => [matchKey(m), m]),
  );
  const planned = new Set(
    games.filter((g) => g.spec.match.model2 !== undefined).map((g) => matchKey(g.spec.match)),
  );
  const reasons: Record<string, number> = {};
  const escalated = new Set<string>();
  const combined = new Map<string, MatchOutcome>();
  for (const key of planned) {
    const m = paired.get(key);
    const why = escalationReason(m?.ab, m?.ba, below, softentAbove);
    if (why) {
      escalated.add(key);
      reasons[why] = (reasons[why] ?? 0) + 1;
    } else {
      const [q, t, m1, m2] = key.split('\u0000');
      combined.set(key, {
        questionId: Number(q),
        turn: Number(t),
        model1: m1!,
        model2: m2!,
        outcome: combineGames(m!.ab!.verdict, m!.ba!.verdict),
      });
    }
  }
  onStage?.('second', second.id);
  const secondRun = await runTournament({
    ...rest,
    judge: second,
    only: (spec) => escalated.has(matchKey(spec.match)),
    ...(secondCostOf ? { costOf: secondCostOf } : {}),
  });
  const secondAll = await judgeData(rest.store, second.id);
  const secondByKey = new Map(secondAll.outcomes.map((x) => [matchKey(x), x]));
  for (const key of escalated) {
    const x = secondByKey.get(key);
    if (x) combined.set(key, x);
  }
  let vs: EscalationSummary['vsSecondEverywhere'] = null;
  if ([...planned].every((k) => secondByKey.has(k))) {
    let agree = 0;
    for (const k of planned) {
      const a = combined.get(k);
      const b = secondByKey.get(k)!;
      if (a && label(a.outcome) === label(b.outcome)) agree++;
    }
    vs = { matches: planned.size, agree, ratio: planned.size ? agree / planned.size : 0 };
  }
  return {
    local: localRun,
    second: secondRun,
    matches: planned.size,
    escalated: escalated.size,
    reasons,
    escalatedKeys: [...escalated],
    combined: [...combined.values()],
    vsSecondEverywhere: vs,
    cost: secondRun.cost ?? null,
    tokens: secondRun.tokensIn + secondRun.tokensOut,
  };
}

/** inconsistent counts as a tie, as everywhere */
function label(o: MatchOutcome['outcome']): string {
  return o === 'inconsistent' ? 'tie' : o;
}
