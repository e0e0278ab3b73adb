// Simulated leagues for the scheduler: latent strengths, per-question effects, a noisy judge preferring position A;
// each outcome drawn once (temperature 0), so a settled run and the full plan see the same games.
import type { ClusteredBattle } from '../../src/core/stats/battle-table.ts';
import { normal, seededRng } from '../../src/core/stats/random.ts';
import { sandwichCovariance } from '../../src/core/stats/sandwich.ts';
import { battleTable } from '../../src/core/stats/battle-table.ts';
import { fitRanks, nextRound, SETTLE_PRIOR, type SettleMatch } from '../../src/core/stats/settle.ts';

export interface LeagueOptions {
  questions?: number;
  turns?: number;
  /** sd of the latent strengths (logits) */
  spread?: number;
  /** sd of a model's per-question effect */
  questionSd?: number;
  /** the judge's pull towards position A (logits) */
  positionBias?: number;
  /** share of games the judge calls a tie */
  tie?: number;
}

export type Ranks = { model: string; best: number; worst: number }[];

export interface League {
  models: string[];
  theta: number[];
  matches: SettleMatch[];
  outcome: Map<string, ClusteredBattle>;
}

const DEFAULTS = { questions: 80, turns: 2, spread: 1, questionSd: 0.7, positionBias: 0.5, tie: 0.15 };

/** One game's verdict from position A's side: 1 A, 0 B, 0.5 a tie. */
function game(rng: () => number, d: number, bias: number, tie: number): 1 | 0 | 0.5 {
  const p = 1 / (1 + Math.exp(-(d + bias)));
  const u = rng();
  return u < tie ? 0.5 : u < tie + (1 - tie) * p ? 1 : 0;
}

/** A league of n models; `theta` fixes the strengths (else drawn from the seed). */
export function league(n: number, seed: number, o: LeagueOptions = {}, theta?: number[]): League {
  const c = { ...DEFAULTS, ...o };
  const rng = seededRng(seed);
  const models = Array.from({ length: n }, (_, k) => `m${String(k).padStart(2, '0')}`);
  const th = theta ?? models.map(() => c.spread * normal(rng));
  const matches: SettleMatch[] = [];
  const outcome = new Map<string, ClusteredBattle>();
  for (let q = 0; q < c.questions; q++) {
    const effect = models.map(() => c.questionSd * normal(rng));
    for (let t = 1; t <= c.turns; t++)
      for (let a = 0; a < n; a++)
        for (let b = a + 1; b < n; b++) {
          const key = `${q}:${t}:${a}:${b}`;
          const d = th[a]! + effect[a]! - th[b]! - effect[b]!;
          const ab = game(rng, d, c.positionBias, c.tie);
          const ba = 1 - game(rng, -d, c.positionBias, c.tie);
          // the engine's rule: equal verdicts stand, disagreeing ones are a tie
          const score = (ab === ba ? ab : 0.5) as 1 | 0 | 0.5;
          matches.push({ key, a: models[a]!, b: models[b]!, cluster: q });
          outcome.set(key, { a: models[a]!, b: models[b]!, score, cluster: q });
        }
  }
  return { models, theta: th, matches, outcome };
}

export const LEVEL = 0.95;

/** Play the scheduler's rounds on a league until it stops (rounds of `roundShare` of the plan). */
export function settledRun(l: League, roundShare = 0.1) {
  const played = new Set<string>();
  const round = Math.max(10, Math.ceil(l.matches.length * roundShare));
  for (;;) {
    const battles = [...played].map((k) => l.outcome.get(k)!);
    const step = nextRound({ models: l.models, matches: l.matches, played, battles, round, level: LEVEL });
    if (step.stop) return { played, ranks: step.ranks, stop: step.stop };
    for (const k of step.next) played.add(k);
  }
}

export function fitOf(l: League, keys: Iterable<string>) {
  return fitRanks(
    l.models,
    [...keys].map((k) => l.outcome.get(k)!),
    LEVEL,
  );
}

export const width = (r: Ranks) => r.reduce((s, x) => s + x.worst - x.best, 0);
export const inside = (r: Ranks, full: Ranks) =>
  r.every((x, k) => x.best >= full[k]!.best && x.worst <= full[k]!.worst);

/** Every model's true rank (by its latent strength) within its rank interval. */
export function coversRanks(l: League, r: Ranks): boolean {
  const order = l.theta.map((t, k) => [t, k] as const).sort((a, b) => b[0] - a[0]);
  const rank = new Map(order.map(([, k], i) => [l.models[k]!, i + 1]));
  return r.every((x) => rank.get(x.model)! >= x.best && rank.get(x.model)! <= x.worst);
}

/**
 * The ratings the fit estimates for these strengths and this judge (rating points, mean 1000): the same
 * Bradley–Terry fit, with the scheduler's prior, on a league of `questions` questions (many), full design.
 */
export function populationRatings(theta: number[], o: LeagueOptions, questions = 2000): Float64Array {
  const big = league(theta.length, 7_777, { ...o, questions }, theta);
  const t = battleTable([...big.outcome.values()], { models: big.models });
  return sandwichCovariance(t, 'question', SETTLE_PRIOR).ratings;
}

/**
 * Coverage of the 95% intervals of every rating difference (marginal: estimate ± z se from the sandwich) and of
 * the simultaneous ones (all pairs at once), against the population ratings; with the rank intervals' widths.
 */
export function intervalCoverage(l: League, keys: Iterable<string>, truth: Float64Array) {
  const f = fitOf(l, keys);
  if (!f) return undefined;
  const n = l.models.length;
  let covered = 0;
  let pairs = 0;
  let all = true;
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n; j++) {
      const se = Math.sqrt(
        f.covariance[i * n + i]! + f.covariance[j * n + j]! - 2 * f.covariance[i * n + j]!,
      );
      const err = Math.abs(f.ratings[i]! - f.ratings[j]! - (truth[i]! - truth[j]!));
      pairs++;
      if (err <= 1.959964 * se) covered++;
      if (err > f.critical * se) all = false;
    }
  return {
    marginal: covered / pairs,
    simultaneous: all,
    width: width(f.ranks),
    ranksCovered: coversRanks(l, f.ranks),
  };
}
