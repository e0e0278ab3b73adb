// Adaptive scheduling against a baseline: a model stops once the question-bootstrap interval of its win rate
// against the baseline excludes 50% or is narrower than asked; an open one gets matches on questions it has not
// met. The interval is read once per round, so one look's level is Bonferroni's share of the run's, and no decision
// rests on fewer questions than an exact sign test could call at that level. Pure: the engine plays the round.
import { bootstrapMean, questionScores, type Interval } from './checkpoints.ts';
import type { MatchOutcome } from '../types.ts';
import { hash, type SettleMatch } from './settle.ts';

export interface BaselineSettleInput {
  /** the models played against the baseline */
  models: string[];
  baseline: string;
  /** every match of the full plan: `a` is the model, `b` the baseline */
  matches: SettleMatch[];
  /** keys of the matches played (both orders stored) */
  played: ReadonlySet<string>;
  /** the played matches' outcomes */
  outcomes: MatchOutcome[];
  /** matches per model per round */
  round: number;
  /** stop a model once its interval is narrower than this (a win-rate share, 0..1) */
  width?: number;
  /** the run's level, shared over its looks (default 0.95) */
  level?: number;
}

/** Why a model stopped, or `open`: `better` / `worse` (the interval excludes 50%), `narrow`, `exhausted`. */
type BaselineWhy = 'better' | 'worse' | 'narrow' | 'exhausted' | 'open';

export interface BaselineModelState {
  model: string;
  /** win rate against the baseline with its interval at one look's level (NaN before any game) */
  interval: Interval;
  why: BaselineWhy;
  /** the model's matches played and in the plan */
  played: number;
  planned: number;
}

export interface BaselineStep {
  next: string[];
  /** `settled` when every model is decided, `exhausted` when the open ones have nothing left to play */
  stop?: 'settled' | 'exhausted';
  models: BaselineModelState[];
  /** one look's level */
  lookLevel: number;
}

/** Looks a run takes at most: one per round of the largest model's plan. */
function looksOf(matches: SettleMatch[], round: number): number {
  const per = new Map<string, number>();
  for (const m of matches) per.set(m.a, (per.get(m.a) ?? 0) + 1);
  return Math.max(1, Math.ceil(Math.max(0, ...per.values()) / Math.max(1, round)));
}

/** The fewest questions an exact two-sided sign test can call at `alpha` (all in one direction). */
function minQuestions(alpha: number): number {
  return Math.max(1, Math.ceil(Math.log2(2 / alpha)));
}

/** Each model's state and the next round's matches (see the file's head). */
export function nextBaselineRound(o: BaselineSettleInput): BaselineStep {
  const looks = looksOf(o.matches, o.round);
  const lookLevel = 1 - (1 - (o.level ?? 0.95)) / looks;
  const least = minQuestions(1 - lookLevel);
  const byModel = new Map<string, SettleMatch[]>(o.models.map((m) => [m, []]));
  for (const m of o.matches) byModel.get(m.a)?.push(m);
  const next: string[] = [];
  const models = o.models.map((model): BaselineModelState => {
    const all = byModel.get(model)!;
    const scores = [...questionScores(o.outcomes, model, o.baseline).values()];
    const interval = bootstrapMean(scores, { level: lookLevel });
    const left = all.filter((m) => !o.played.has(m.key));
    const state = { model, interval, played: all.length - left.length, planned: all.length };
    const why = decide(interval, least, o.width);
    if (why !== 'open') return { ...state, why };
    if (!left.length) return { ...state, why: 'exhausted' };
    next.push(...spread(left, all, o.played, o.round));
    return { ...state, why: 'open' };
  });
  if (models.some((m) => m.why === 'open')) return { next, models, lookLevel };
  const stop = models.some((m) => m.why === 'exhausted') ? 'exhausted' : 'settled';
  return { next: [], stop, models, lookLevel };
}

function decide(i: Interval, least: number, width: number | undefined): BaselineWhy {
  if (i.n < least) return 'open';
  if (i.lo > 0.5) return 'better';
  if (i.hi < 0.5) return 'worse';
  if (width !== undefined && i.hi - i.lo < width) return 'narrow';
  return 'open';
}

/** `k` of a model's unplayed matches, questions it has not met first, then in a fixed order (a key hash). */
function spread(left: SettleMatch[], all: SettleMatch[], played: ReadonlySet<string>, k: number): string[] {
  const met = new Set(all.filter((m) => played.has(m.key)).map((m) => m.cluster));
  return left
    .slice()
    .sort(
      (x, y) =>
        Number(met.has(x.cluster)) - Number(met.has(y.cluster)) ||
        hash(String(x.cluster)) - hash(String(y.cluster)) ||
        (x.key < y.key ? -1 : 1),
    )
    .slice(0, k)
    .map((m) => m.key);
}
