// A judge's succession measured on a bridge: the matches both the old and the new judge gave an outcome on. Every
// figure comes with a percentile interval from one paired question-level bootstrap (each round draws the questions
// once and recomputes everything on that draw, as benchmark health does). Pure.
import { battleTable, type ClusteredBattle } from './battle-table.ts';
import { percentileInterval, DEFAULT_LEVEL, DEFAULT_ROUNDS, DEFAULT_SEED } from './bootstrap.ts';
import { healthDraws, kendallTauB, resampledRatings } from './benchmark-health.ts';
import { kappaFromConfusion } from './kappa.ts';
import type { AgreementRow } from './agreement.ts';
import { fitBradleyTerry } from '../ratings.ts';
import { itemKey, scoreOf } from '../outcomes.ts';
import type { MatchOutcome, Outcome } from '../types.ts';

/** One bridge match: the old and the new judge's outcomes on it. */
export interface BridgeMatch {
  questionId: number;
  turn: number;
  model1: string;
  model2: string;
  old: Outcome;
  new: Outcome;
}

/** An estimate with its percentile interval (null: not estimable on this bridge). */
export interface Figure {
  value: number | null;
  lo: number | null;
  hi: number | null;
}

export interface SuccessionFigures {
  matches: number;
  questions: number;
  /** comparisons where both gave a verdict (with ties), and where neither gave a tie (without) */
  agreement: Figure & { agree: number; total: number };
  agreementWithoutTies: Figure & { agree: number; total: number };
  kappa: Figure;
  kappaWithoutTies: Figure;
  /** share of the non-error matches whose two orders disagreed, per judge */
  inconsistency: { old: Figure; new: Figure };
  /** Bradley–Terry (Elo scale, mean 1000) on the bridge under each judge, and new − old */
  ratings: { model: string; old: Figure; new: Figure; difference: Figure }[];
  kendall: Figure;
  level: number;
  rounds: number;
  seed: number;
}

export interface JudgeOnBridge {
  judge: string;
  /** from its games on the bridge (none: a judge known only by recorded verdicts) */
  games: number;
  /** of the decisive games, the share that picked the answer shown first */
  positionA: number | null;
  /** exact sign test of conflicts favouring the first position against the second */
  signTestP: number | null;
}

export interface SuccessionReport {
  from: string;
  to: string;
  /** bridge matches, the old judge's matches, and the share of them the bridge covers */
  bridge: { matches: number; oldMatches: number; share: number };
  figures: SuccessionFigures;
  judges: JudgeOnBridge[];
  /** each judge's agreement with people (experts `human`, authors `author`) on the bridge, per turn */
  people: { people: string; votes: number; rows: (AgreementRow & { judge: string })[] }[];
}

/** The outcome's label on the sorted pair: 0 the first model wins, 1 the second, 2 a tie (inconsistent: a tie). */
const labelOf = (m: BridgeMatch, o: Outcome): number =>
  o === 'tie' || o === 'inconsistent' ? 2 : (o === 'model_1') === m.model1 <= m.model2 ? 0 : 1;

interface Cells {
  /** per question: 3×3 confusion (old row, new column) of the matches both gave a verdict on */
  confusion: Float64Array;
  /** per question: [old inconsistent, old non-error, new inconsistent, new non-error] */
  incons: Float64Array;
}

function cells(bridge: BridgeMatch[], qIndex: Map<number, number>): Cells {
  const confusion = new Float64Array(qIndex.size * 9);
  const incons = new Float64Array(qIndex.size * 4);
  for (const m of bridge) {
    const q = qIndex.get(m.questionId)!;
    for (const [j, o] of [m.old, m.new].entries())
      if (o !== 'error') {
        incons[q * 4 + 2 * j + 1]!++;
        if (o === 'inconsistent') incons[q * 4 + 2 * j]!++;
      }
    if (m.old !== 'error' && m.new !== 'error')
      confusion[q * 9 + labelOf(m, m.old) * 3 + labelOf(m, m.new)]!++;
  }
  return { confusion, incons };
}

/** The questions' confusion (3×3, with and without ties: 2×2) and inconsistency counts summed under weights. */
function summed(c: Cells, nq: number, w?: Float64Array) {
  const m = new Float64Array(9);
  const inc = new Float64Array(4);
  for (let q = 0; q < nq; q++) {
    const x = w ? w[q]! : 1;
    if (!x) continue;
    for (let k = 0; k < 9; k++) m[k]! += x * c.confusion[q * 9 + k]!;
    for (let k = 0; k < 4; k++) inc[k]! += x * c.incons[q * 4 + k]!;
  }
  const m2 = Float64Array.from([m[0]!, m[1]!, m[3]!, m[4]!]);
  const sum = (x: Float64Array) => x.reduce((s, v) => s + v, 0);
  return {
    m,
    m2,
    inc,
    withTies: { agree: m[0]! + m[4]! + m[8]!, total: sum(m) },
    withoutTies: { agree: m2[0]! + m2[3]!, total: sum(m2) },
  };
}

/** Agreement, agreement without ties, kappa, kappa without ties, old and new inconsistency under weights. */
function pooled(c: Cells, nq: number, w?: Float64Array): number[] {
  const { m, m2, inc, withTies: a, withoutTies: b } = summed(c, nq, w);
  return [
    a.total ? a.agree / a.total : NaN,
    b.total ? b.agree / b.total : NaN,
    kappaFromConfusion(m, 3),
    kappaFromConfusion(m2, 2),
    inc[1] ? inc[0]! / inc[1] : NaN,
    inc[3] ? inc[2]! / inc[3] : NaN,
  ];
}

const battlesOf = (bridge: BridgeMatch[], side: 'old' | 'new'): ClusteredBattle[] =>
  bridge
    .filter((m) => m[side] !== 'error')
    .map((m) => ({ a: m.model1, b: m.model2, score: scoreOf(m[side]), cluster: m.questionId }));

/** Column k of per-round rows. */
const at = (rows: readonly ArrayLike<number>[], k: number) => rows.map((r) => r[k]!);

function figure(value: number, samples: number[], level: number): Figure {
  if (!Number.isFinite(value)) return { value: null, lo: null, hi: null };
  const finite = samples.filter(Number.isFinite);
  if (finite.length < samples.length / 2) return { value, lo: null, hi: null };
  return { value, ...percentileInterval(finite, level) };
}

/** The bridge's figures; ratings and tau are null when a judge's bridge leaves some model without a finite rating. */
export function successionFigures(
  bridge: BridgeMatch[],
  o: { rounds?: number; level?: number; seed?: number } = {},
): SuccessionFigures {
  const level = o.level ?? DEFAULT_LEVEL;
  const rounds = o.rounds ?? DEFAULT_ROUNDS;
  const seed = o.seed ?? DEFAULT_SEED;
  const clusters = [...new Set(bridge.map((m) => m.questionId))].sort((a, b) => a - b);
  const qIndex = new Map(clusters.map((q, k) => [q, k]));
  const draws = healthDraws(clusters.length, rounds, seed);
  const c = cells(bridge, qIndex);
  const full = pooled(c, clusters.length);
  const per = draws.map((w) => pooled(c, clusters.length, w));
  const col = (k: number) => figure(full[k]!, at(per, k), level);
  // the comparisons themselves
  const { withTies, withoutTies } = summed(c, clusters.length);
  const { ratings, kendall } = ratingFigures(bridge, clusters, draws, level);
  return {
    matches: bridge.length,
    questions: clusters.length,
    agreement: { ...col(0), ...withTies },
    agreementWithoutTies: { ...col(1), ...withoutTies },
    kappa: col(2),
    kappaWithoutTies: col(3),
    inconsistency: { old: col(4), new: col(5) },
    ratings,
    kendall,
    level,
    rounds,
    seed,
  };
}

function ratingFigures(
  bridge: BridgeMatch[],
  clusters: number[],
  draws: Float64Array[],
  level: number,
): Pick<SuccessionFigures, 'ratings' | 'kendall'> {
  const models = [...new Set(bridge.flatMap((m) => [m.model1, m.model2]))].sort();
  const none: Figure = { value: null, lo: null, hi: null };
  const to = battleTable(battlesOf(bridge, 'old'), { models, clusters });
  const tn = battleTable(battlesOf(bridge, 'new'), { models, clusters });
  const fo = fitBradleyTerry(to.pairs);
  const fn = fitBradleyTerry(tn.pairs);
  const sane = (r: ArrayLike<number>) => Array.from(r).every((x) => Number.isFinite(x) && Math.abs(x) < 1e5);
  if (models.length < 2 || !sane(fo) || !sane(fn))
    return {
      ratings: models.map((model) => ({ model, old: none, new: none, difference: none })),
      kendall: none,
    };
  const so = resampledRatings(to, draws, fo);
  const sn = resampledRatings(tn, draws, fn);
  const taus = so.map((r, b) => kendallTauB(r, sn[b]!));
  return {
    ratings: models.map((model, k) => {
      const difference = sn.map((r, b) => r[k]! - so[b]![k]!);
      return {
        model,
        old: figure(fo[k]!, at(so, k), level),
        new: figure(fn[k]!, at(sn, k), level),
        difference: figure(fn[k]! - fo[k]!, difference, level),
      };
    }),
    kendall: figure(kendallTauB(fo, fn), taus, level),
  };
}

/** Half the width of a figure's interval (Infinity when it has none). */
export const halfWidth = (f: Figure): number =>
  f.lo === null || f.hi === null ? Infinity : (f.hi - f.lo) / 2;

/** The bridge from the two judges' outcomes: the matches both have, keyed orientation-free, as the old one stored it. */
export function bridgeOf(oldOutcomes: MatchOutcome[], newOutcomes: MatchOutcome[]): BridgeMatch[] {
  const key = (o: MatchOutcome) => itemKey(o.questionId, o.turn, o.model1, o.model2);
  const flip = (x: Outcome): Outcome => (x === 'model_1' ? 'model_2' : x === 'model_2' ? 'model_1' : x);
  const byKey = new Map(newOutcomes.map((o) => [key(o), o]));
  return oldOutcomes.flatMap(({ questionId, turn, model1, model2, outcome }) => {
    const n = byKey.get(itemKey(questionId, turn, model1, model2));
    if (!n) return [];
    return [
      {
        questionId,
        turn,
        model1,
        model2,
        old: outcome,
        new: n.model1 === model1 ? n.outcome : flip(n.outcome),
      },
    ];
  });
}
