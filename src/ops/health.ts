// A judge's health over one refresh (error and inconsistency rates) and the drift canary's comparison.
import { pairVerdict } from '../core/verdict/stored.ts';
import { outcomesFromGames } from '../core/outcomes.ts';
import type { GameVerdictRow } from '../storage/store.ts';

export interface JudgeHealth {
  played: number;
  failed: number;
  /** games whose reply gave no verdict */
  unparsable: number;
  /** (failed calls + unparsable replies) / calls; null when fewer calls than `minGames` */
  errorRate: number | null;
  matches: number;
  inconsistent: number;
  /** inconsistent / complete matches without errors; null when fewer than `minGames` matches */
  inconsistencyRate: number | null;
}

/** What health reads of a game (Store.games.ofRuns returns it). */
export type HealthGame = Pick<
  GameVerdictRow,
  'questionId' | 'turn' | 'model1' | 'model2' | 'order' | 'verdict'
>;

export function judgeHealth(games: HealthGame[], failed: number, minGames: number): JudgeHealth {
  const pair = games.filter((g) => g.model2 !== null);
  const unparsable = games.filter((g) => g.verdict === 'error').length;
  const calls = games.length + failed;
  const outcomes = outcomesFromGames(
    pair.map((g) => ({ ...g, model2: g.model2!, verdict: pairVerdict(g.verdict) })),
  ).filter((o) => o.outcome !== 'error');
  const inconsistent = outcomes.filter((o) => o.outcome === 'inconsistent').length;
  return {
    played: games.length,
    failed,
    unparsable,
    errorRate: calls >= minGames ? (failed + unparsable) / calls : null,
    matches: outcomes.length,
    inconsistent,
    inconsistencyRate: outcomes.length >= minGames ? inconsistent / outcomes.length : null,
  };
}

/** Reasons a judge is degraded: a rate rose by more than its bound over the last measured value. */
export function healthJumps(
  judge: string,
  now: JudgeHealth,
  before: { errorRate: number | null; inconsistencyRate: number | null },
  bounds: { maxErrorRateJump: number; maxInconsistencyJump: number },
): string[] {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const rates = [
    ['error rate', 'errorRate', bounds.maxErrorRateJump],
    ['inconsistency rate', 'inconsistencyRate', bounds.maxInconsistencyJump],
  ] as const;
  return rates.flatMap(([name, k, bound]) => {
    const [a, b] = [before[k], now[k]];
    return a !== null && b !== null && b - a > bound
      ? [`${judge}: ${name} ${pct(a)} -> ${pct(b)} (bound +${pct(bound)})`]
      : [];
  });
}

export interface CanaryGame extends HealthGame {
  promptName: string;
  /** the refresh nonce in the game's judge settings */
  nonce: string;
  createdAt: number;
}

export interface Drift {
  /** the refresh whose canary this one is compared with; null on the first canary */
  against: string | null;
  compared: number;
  changed: number;
  changeRate: number | null;
}

/** Compare this refresh's anchor verdicts with the most recent earlier canary of the same judge. */
export function canaryDrift(games: CanaryGame[], nonce: string): Drift {
  const slot = (g: CanaryGame) =>
    [g.questionId, g.turn, g.model1, g.model2, g.order, g.promptName].join('\u0000');
  const now = new Map(games.filter((g) => g.nonce === nonce).map((g) => [slot(g), g.verdict]));
  const latest = new Map<string, number>();
  for (const g of games)
    if (g.nonce !== nonce) latest.set(g.nonce, Math.max(latest.get(g.nonce) ?? 0, g.createdAt));
  const against = [...latest].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  if (!against) return { against: null, compared: 0, changed: 0, changeRate: null };
  let compared = 0;
  let changed = 0;
  for (const g of games) {
    if (g.nonce !== against) continue;
    const v = now.get(slot(g));
    if (v === undefined) continue;
    compared++;
    if (v !== g.verdict) changed++;
  }
  return { against, compared, changed, changeRate: compared ? changed / compared : null };
}
