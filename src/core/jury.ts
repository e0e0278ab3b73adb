// Juries (Verga et al. 2024): a judge id `jury/<name>` whose verdict is pooled from its members' outcomes. A
// jury stores nothing: it is read on demand. Pure.
import type { MatchOutcome, Outcome, MatchGame, Verdict } from './types.ts';
import { itemKey } from './outcomes.ts';

/** How members' outcomes are pooled. */
export type JuryRule = 'majority' | 'mean';

export interface JuryDef {
  name: string;
  judges: string[];
  rule: JuryRule;
}

/** The judge id of a jury. */
export const juryId = (name: string): string => `jury/${name}`;

/** A side's orientation-free verdict on the sorted pair (lo, hi): 1 lo wins, 0 hi wins, 0.5 a tie. */
type Score = 0 | 0.5 | 1;

function scoreOnSorted(o: MatchOutcome): Score | undefined {
  if (o.outcome === 'error') return undefined;
  if (o.outcome === 'tie' || o.outcome === 'inconsistent') return 0.5;
  const firstWins = o.outcome === 'model_1';
  return firstWins === o.model1 <= o.model2 ? 1 : 0;
}

/**
 * The pooled verdict of the members that gave one (an `error` outcome abstains). `majority`: the verdict held by
 * more than half of them, else a tie; `mean`: the mean of their scores (win 1, tie 1/2, loss 0) above 1/2 is a
 * win, below a loss, exactly 1/2 a tie. Undefined when every member abstained.
 */
export function poolScores(scores: Score[], rule: JuryRule): Score | undefined {
  if (!scores.length) return undefined;
  if (rule === 'mean') {
    const m = scores.reduce<number>((s, x) => s + x, 0) / scores.length;
    return m > 0.5 ? 1 : m < 0.5 ? 0 : 0.5;
  }
  for (const v of [1, 0, 0.5] as const)
    if (scores.filter((s) => s === v).length * 2 > scores.length) return v;
  return 0.5;
}

const key = (o: MatchOutcome) => itemKey(o.questionId, o.turn, o.model1, o.model2);

/**
 * A jury's outcomes: one per match every member has an outcome for (a match a member lacks is still to be
 * played by that member, not judged by the others alone), oriented as the first member stored it. A match
 * every member gave an `error` is an `error`.
 */
export function poolOutcomes(members: MatchOutcome[][], rule: JuryRule): MatchOutcome[] {
  if (!members.length) return [];
  const maps = members.map((m) => new Map(m.map((o) => [key(o), o])));
  const out: MatchOutcome[] = [];
  for (const [k, first] of maps[0]!) {
    const all = maps.map((m) => m.get(k));
    if (all.some((o) => !o)) continue;
    const pooled = poolScores(
      all.map((o) => scoreOnSorted(o!)).filter((s): s is Score => s !== undefined),
      rule,
    );
    const { questionId, turn, model1, model2 } = first;
    out.push({ questionId, turn, model1, model2, outcome: outcomeOf(pooled, first) });
  }
  return out;
}

function outcomeOf(s: Score | undefined, o: MatchOutcome): Outcome {
  if (s === undefined) return 'error';
  if (s === 0.5) return 'tie';
  const loWins = s === 1;
  return loWins === o.model1 <= o.model2 ? 'model_1' : 'model_2';
}

/**
 * A jury's games: per match and per answer shown first, the members' game verdicts pooled by the same rule, where
 * every member has that game (the first game of each slot as given). Oriented on the sorted pair, so members that
 * stored a match either way meet; what positionBias reads, like any judge's games.
 */
export function poolGames(members: MatchGame[][], rule: JuryRule): MatchGame[] {
  const slotOf = (g: MatchGame) => {
    const [lo, hi] = g.model1 <= g.model2 ? [g.model1, g.model2] : [g.model2, g.model1];
    const first = g.order === 'AB' ? g.model1 : g.model2;
    return { key: `${g.questionId}\u0000${g.turn}\u0000${lo}\u0000${hi}\u0000${first}`, lo, hi, first };
  };
  const maps = members.map((gs) => {
    const m = new Map<string, MatchGame>();
    for (const g of gs) if (!m.has(slotOf(g).key)) m.set(slotOf(g).key, g);
    return m;
  });
  const out: MatchGame[] = [];
  for (const [k, g0] of maps[0] ?? []) {
    const all = maps.map((m) => m.get(k));
    if (all.some((g) => !g)) continue;
    const { lo, hi, first } = slotOf(g0);
    const scores = all
      .map((g) => scoreOnSorted({ ...g!, outcome: g!.verdict }))
      .filter((x): x is Score => x !== undefined);
    const pooled = poolScores(scores, rule);
    const verdict: Verdict =
      pooled === undefined ? 'error' : pooled === 0.5 ? 'tie' : pooled === 1 ? 'model_1' : 'model_2';
    out.push({
      questionId: g0.questionId,
      turn: g0.turn,
      model1: lo,
      model2: hi,
      order: first === lo ? 'AB' : 'BA',
      verdict,
    });
  }
  return out;
}

/**
 * The effective number of independent votes among n members agreeing beyond chance by the mean pairwise kappa κ̄:
 * n / (1 + (n − 1) κ̄), Kish's design effect for equicorrelated observations (κ̄ for ρ, clamped to [0, 1]).
 */
export function effectiveVotes(n: number, meanKappa: number): number {
  const rho = Number.isFinite(meanKappa) ? Math.min(1, Math.max(0, meanKappa)) : 1;
  return n / (1 + (n - 1) * rho);
}
