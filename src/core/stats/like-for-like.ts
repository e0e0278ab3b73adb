// Two judges compared on the same matches: only those both gave a verdict on count, so neither judge's figures
// rest on matches the other could not read. Every figure has a question-cluster bootstrap interval (a question's
// matches and its expert votes are correlated, so resampled together). Pure.
import type { MatchOutcome, Vote } from '../types.ts';
import { itemKey, scoreOf } from '../outcomes.ts';
import { agreement } from './agreement.ts';
import { pearson } from './judge-quality.ts';
import {
  DEFAULT_LEVEL,
  DEFAULT_ROUNDS,
  DEFAULT_SEED,
  drawClusterCounts,
  percentileInterval,
  type Interval,
} from './bootstrap.ts';
import { seededRng } from './random.ts';
import { intervalsWithheld, type IntervalsWithheld } from './rating-rows.ts';

/** Per model, [score sum, matches] for judge 0 then judge 1: what each judge's win rates are read from. */
export type JudgeScores = Map<string, [number, number, number, number]>;

/** Adds one outcome of judge `j` (0 or 1) to both its models' tallies, each scored from its own side. */
export function addScores(scores: JudgeScores, o: MatchOutcome, j: number): void {
  const s1 = scoreOf(o.outcome);
  for (const [m, s] of [
    [o.model1, s1],
    [o.model2, 1 - s1],
  ] as const) {
    let row = scores.get(m);
    if (!row) scores.set(m, (row = [0, 0, 0, 0]));
    row[2 * j]! += s;
    row[2 * j + 1]!++;
  }
}

export interface Estimate {
  value: number | null;
  interval: Interval | null;
}

/** Adds `from`'s tallies, weighted by `c` (a question's bootstrap multiplicity), into `into`. */
export function addWeightedScores(into: Map<string, number[]>, from: JudgeScores, c: number): void {
  for (const [m, row] of from) {
    const s = into.get(m) ?? [0, 0, 0, 0];
    row.forEach((x, k) => (s[k]! += c * x));
    into.set(m, s);
  }
}

/** Pearson's r of the two judges' win rates over the models both scored (NaN when undefined). */
export function winRateR(scores: Map<string, number[]>): number {
  const both = [...scores.values()].filter((s) => s[1]! > 0 && s[3]! > 0);
  const rate = (j: number) => both.map((s) => s[2 * j]! / s[2 * j + 1]!);
  return pearson(rate(0), rate(1)) ?? NaN;
}

/**
 * The figures of all questions (`point`) and `est`, which gives a figure with its percentile interval over
 * `rounds` question-bootstrap rounds (`figuresOf` at each round's question multiplicities; no interval at 0).
 */
export function questionBootstrap<T, F>(
  ts: T[],
  figuresOf: (ts: T[], w: ArrayLike<number>) => F,
  o: { rounds: number; seed: number; level: number },
): { point: F; est: (value: number, pick: (f: F) => number) => Estimate } {
  const point = figuresOf(ts, new Float64Array(ts.length).fill(1));
  const rng = seededRng(o.seed);
  const counts = new Float64Array(ts.length);
  const draws = Array.from({ length: o.rounds }, () =>
    figuresOf(ts, drawClusterCounts(rng, ts.length, counts)),
  );
  const est = (value: number, pick: (f: F) => number): Estimate =>
    Number.isFinite(value)
      ? { value, interval: o.rounds ? percentileInterval(draws.map(pick), o.level) : null }
      : { value: null, interval: null };
  return { point, est };
}

interface LikeForLikeJudge {
  judge: string;
  /** matches judged inconsistent (the two orders disagree) / the common matches */
  inconsistency: Estimate & { inconsistent: number };
  /**
   * agreement with the experts per turn: with ties (FastChat's S1) over the common matches; without ties (S2)
   * over the matches both judges decided, so both judges meet the same expert votes
   */
  agreement: (Estimate & { turn: number; setup: 'with-tie' | 'without-tie'; agree: number; total: number })[];
}

export interface LikeForLike {
  /** matches both judges gave a verdict on */
  matches: number;
  questions: number;
  judges: [LikeForLikeJudge, LikeForLikeJudge];
  /** the second judge's inconsistency over the first's */
  inconsistencyRatio: Estimate;
  /** Pearson's r of the models' adjusted win rates (ties and inconsistent matches count half) */
  r: Estimate & { models: number };
  /** 0 when the intervals are withheld */
  rounds: number;
  level: number;
  seed: number;
  /** set when the common matches rest on fewer than MIN_QUESTIONS_FOR_INTERVALS questions: no interval, and why */
  intervalsWithheld?: IntervalsWithheld;
}

/** One question's share of every figure, so a bootstrap round only sums weighted counts. */
interface QuestionTally {
  matches: number;
  inconsistent: [number, number];
  /** per model: [score, games] for each judge */
  scores: JudgeScores;
  /** `${judge index}/${turn}/${setup}` -> [agree, total] */
  agree: Map<string, [number, number]>;
}

const isSide = (w: Vote['winner']) => w === 'model_1' || w === 'model_2';

const toVote = (judge: string, o: MatchOutcome): Vote => ({
  judge,
  voter: judge,
  questionId: o.questionId,
  turn: o.turn,
  model1: o.model1,
  model2: o.model2,
  winner: o.outcome as Vote['winner'],
});

function tallies(
  a: [string, MatchOutcome[]],
  b: [string, MatchOutcome[]],
  experts: Vote[],
): Map<number, QuestionTally> {
  const key = (o: { questionId: number; turn: number; model1: string; model2: string }) =>
    itemKey(o.questionId, o.turn, o.model1, o.model2);
  const read = (os: MatchOutcome[]) =>
    new Map(os.filter((o) => o.outcome !== 'error').map((o) => [key(o), o]));
  const [ma, mb] = [read(a[1]), read(b[1])];
  const byQ = new Map<number, QuestionTally>();
  const votes = new Map<number, [Vote[], Vote[], Vote[]]>();
  for (const [k, oa] of ma) {
    const ob = mb.get(k);
    if (!ob) continue;
    let t = byQ.get(oa.questionId);
    if (!t)
      byQ.set(oa.questionId, (t = { matches: 0, inconsistent: [0, 0], scores: new Map(), agree: new Map() }));
    t.matches++;
    [oa, ob].forEach((o, j) => {
      if (o.outcome === 'inconsistent') t.inconsistent[j]!++;
      // ob may name the pair the other way round: score each model by its own side
      addScores(t.scores, o, j);
    });
    let v = votes.get(oa.questionId);
    if (!v) votes.set(oa.questionId, (v = [[], [], []]));
    v[0].push(toVote(a[0], oa));
    v[1].push(toVote(b[0], ob));
  }
  const common = new Set(ma.keys());
  for (const e of experts) if (common.has(key(e)) && mb.has(key(e))) votes.get(e.questionId)?.[2].push(e);
  for (const [q, [va, vb, ve]] of votes) {
    const t = byQ.get(q)!;
    // without ties: only the matches both judges decided (a side in both orders), so both judges are
    // compared with the same expert votes
    const decided = new Set(
      va.filter((v, i) => isSide(v.winner) && isSide(vb[i]!.winner)).map((v) => key(v)),
    );
    [va, vb].forEach((vs, j) => {
      for (const row of agreement(vs, ve))
        if (row.setup === 'with-tie') t.agree.set(`${j}/${row.turn}/${row.setup}`, [row.agree, row.total]);
      const kept = vs.filter((v) => decided.has(key(v)));
      for (const row of agreement(kept, ve))
        if (row.setup === 'without-tie' && kept.some((v) => v.turn === row.turn))
          t.agree.set(`${j}/${row.turn}/${row.setup}`, [row.agree, row.total]);
    });
  }
  return byQ;
}

interface Figures {
  inconsistency: [number, number];
  ratio: number;
  r: number;
  agree: Map<string, number>;
}

function figures(ts: QuestionTally[], w: ArrayLike<number>): Figures {
  let n = 0;
  const inc = [0, 0];
  const scores = new Map<string, number[]>();
  const agree = new Map<string, [number, number]>();
  ts.forEach((t, i) => {
    const c = w[i]!;
    if (!c) return;
    n += c * t.matches;
    inc[0]! += c * t.inconsistent[0];
    inc[1]! += c * t.inconsistent[1];
    addWeightedScores(scores, t.scores, c);
    for (const [k, [g, tot]] of t.agree) {
      const s = agree.get(k) ?? [0, 0];
      agree.set(k, [s[0] + c * g, s[1] + c * tot]);
    }
  });
  const inconsistency: [number, number] = [n ? inc[0]! / n : NaN, n ? inc[1]! / n : NaN];
  return {
    inconsistency,
    ratio: inconsistency[0] > 0 ? inconsistency[1] / inconsistency[0] : NaN,
    r: winRateR(scores),
    agree: new Map([...agree].map(([k, [g, tot]]) => [k, tot ? g / tot : NaN])),
  };
}

const finite = (x: number) => (Number.isFinite(x) ? x : null);

/**
 * `a` and `b` are two judges' match outcomes, `experts` the human votes (empty: no agreement rows).
 * Intervals are percentile intervals of `rounds` question-bootstrap rounds.
 */
export function likeForLike(
  a: [string, MatchOutcome[]],
  b: [string, MatchOutcome[]],
  experts: Vote[],
  o: { rounds?: number; level?: number; seed?: number; minQuestionsForIntervals?: number } = {},
): LikeForLike {
  const level = o.level ?? DEFAULT_LEVEL;
  const seed = o.seed ?? DEFAULT_SEED;
  const byQ = tallies(a, b, experts);
  const qs = [...byQ.keys()].sort((x, y) => x - y);
  const ts = qs.map((q) => byQ.get(q)!);
  // on too few questions the question bootstrap's intervals do not hold: no round is run
  const withheld = intervalsWithheld(ts.length, o.minQuestionsForIntervals);
  const rounds = withheld ? 0 : (o.rounds ?? DEFAULT_ROUNDS);
  const { point, est } = questionBootstrap(ts, figures, { rounds, seed, level });
  const sum = (j: 0 | 1, k: 0 | 1, key: string) =>
    ts.reduce((s, t) => s + (t.agree.get(`${j}/${key}`)?.[k] ?? 0), 0);
  const side = (j: 0 | 1, judge: string): LikeForLikeJudge => ({
    judge,
    inconsistency: {
      ...est(point.inconsistency[j], (f) => f.inconsistency[j]),
      inconsistent: ts.reduce((s, t) => s + t.inconsistent[j], 0),
    },
    agreement: [...point.agree.keys()]
      .filter((k) => k.startsWith(`${j}/`))
      .sort()
      .map((k) => {
        const [, turn, setup] = k.split('/') as [string, string, 'with-tie' | 'without-tie'];
        const key = `${turn}/${setup}`;
        return {
          turn: Number(turn),
          setup,
          agree: sum(j, 0, key),
          total: sum(j, 1, key),
          ...est(point.agree.get(k)!, (f) => f.agree.get(k) ?? NaN),
        };
      }),
  });
  return {
    matches: ts.reduce((s, t) => s + t.matches, 0),
    questions: ts.length,
    judges: [side(0, a[0]), side(1, b[0])],
    inconsistencyRatio: est(point.ratio, (f) => f.ratio),
    r: {
      ...est(point.r, (f) => f.r),
      models: finite(point.r) === null ? 0 : new Set(ts.flatMap((t) => [...t.scores.keys()])).size,
    },
    rounds,
    level,
    seed,
    ...(withheld ? { intervalsWithheld: withheld } : {}),
  };
}
