// How many more matches an adaptive run will need, before paying for them: the run is replayed with the real
// schedulers (settle.ts, settle-baseline.ts) on outcomes drawn from what the stored games say now (ratingDraw,
// shareDraw). Pure and seeded.
import type { MatchOutcome } from '../types.ts';
import { pick } from '../pick.ts';
import { scoreOf } from '../outcomes.ts';
import { SCALE } from '../ratings.ts';
import { normal, randInt, seededRng, type Rng } from './random.ts';
import { nextBaselineRound } from './settle-baseline.ts';
import { fitRanks, nextRound, type SettleMatch } from './settle.ts';

export interface SimulateInput {
  mode: 'pairwise-all' | 'pairwise-baseline';
  /** pairwise-all: every model; pairwise-baseline: the models played against the baseline */
  models: string[];
  baseline?: string;
  matches: SettleMatch[];
  played: ReadonlySet<string>;
  outcomes: MatchOutcome[];
  round: number;
  target?: number;
  width?: number;
  level?: number;
  replicates?: number;
  seed?: number;
}

/** Matches (both orders) each simulated run played beyond those stored, sorted. */
export function simulateSettled(o: SimulateInput): number[] {
  const rng = seededRng(o.seed ?? 1);
  const draws = o.mode === 'pairwise-all' ? ratingDraw(o) : () => shareDraw(o);
  const byKey = new Map(o.matches.map((m) => [m.key, m]));
  const out: number[] = [];
  for (let r = 0; r < (o.replicates ?? 20); r++) {
    const played = new Set(o.played);
    const outcomes = o.outcomes.slice();
    let extra = 0;
    const draw = draws(rng);
    for (;;) {
      const next = step(o, played, outcomes);
      if (!next.length) break;
      for (const k of next) {
        const m = byKey.get(k)!;
        played.add(k);
        outcomes.push({ questionId: m.cluster, turn: 1, model1: m.a, model2: m.b, outcome: draw(m, rng) });
        extra++;
      }
    }
    out.push(extra);
  }
  return out.sort((a, b) => a - b);
}

function step(o: SimulateInput, played: ReadonlySet<string>, outcomes: MatchOutcome[]): string[] {
  const common = { models: o.models, matches: o.matches, played, round: o.round, ...pick(o, ['level']) };
  if (o.mode === 'pairwise-baseline')
    return nextBaselineRound({ ...common, baseline: o.baseline!, outcomes, ...pick(o, ['width']) }).next;
  return nextRound({ ...common, battles: battlesOf(outcomes), ...pick(o, ['target']) }).next;
}

type Draw = (m: SettleMatch, rng: Rng) => MatchOutcome['outcome'];

const battlesOf = (outcomes: MatchOutcome[]) =>
  outcomes
    .filter((m) => m.outcome !== 'error')
    .map((m) => ({ a: m.model1, b: m.model2, score: scoreOf(m.outcome), cluster: m.questionId }));

/**
 * Per simulated run, a match of the league from the current ratings and the stored share of ties. Models with no
 * stored game, when the rest can be fitted, get a rating drawn from the rated models' mean and spread.
 */
export function ratingDraw(o: Pick<SimulateInput, 'models' | 'outcomes' | 'level'>): (rng: Rng) => Draw {
  const battles = battlesOf(o.outcomes);
  const level = o.level ?? 0.95;
  const met = new Set(battles.flatMap((b) => [b.a, b.b]));
  const rated = o.models.filter((m) => met.has(m));
  const fit =
    fitRanks(o.models, battles, level) ?? (rated.length >= 2 ? fitRanks(rated, battles, level) : undefined);
  const known = new Map<string, number>();
  if (fit)
    (fit.ratings.length === o.models.length ? o.models : rated).forEach((m, k) =>
      known.set(m, fit.ratings[k]!),
    );
  const r = [...known.values()];
  const mean = r.reduce((s, x) => s + x, 0) / (r.length || 1);
  const sd = Math.sqrt(r.reduce((s, x) => s + (x - mean) ** 2, 0) / (r.length || 1));
  const decided = o.outcomes.filter((m) => m.outcome !== 'error');
  const ties = decided.filter((m) => m.outcome === 'tie' || m.outcome === 'inconsistent').length;
  const tie = (ties + 1) / (decided.length + 2);
  return (runRng) => {
    const rating = new Map(known);
    for (const m of o.models)
      if (!rating.has(m)) rating.set(m, r.length >= 2 ? mean + sd * normal(runRng) : 0);
    return (m, rng) => {
      const d = rating.get(m.a)! - rating.get(m.b)!;
      if (rng() < tie) return 'tie';
      return rng() < 1 / (1 + 10 ** (-d / SCALE)) ? 'model_1' : 'model_2';
    };
  };
}

/** A model's match against the baseline from its stored win/tie/loss shares (plus one of each). */
function shareDraw(o: SimulateInput): Draw {
  const counts = new Map<string, [number, number, number]>(o.models.map((m) => [m, [1, 1, 1]]));
  for (const x of o.outcomes) {
    const c = counts.get(x.model1);
    if (!c || x.model2 !== o.baseline || x.outcome === 'error') continue;
    c[x.outcome === 'model_1' ? 0 : x.outcome === 'model_2' ? 2 : 1]++;
  }
  return (m, rng) => {
    const [w, t, l] = counts.get(m.a)!;
    const u = randInt(rng, w + t + l);
    return u < w ? 'model_1' : u < w + t ? 'tie' : 'model_2';
  };
}
