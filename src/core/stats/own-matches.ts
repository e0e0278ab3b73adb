// Two judges each on its own matches, with question-bootstrap intervals: the naive comparison (each judge's
// inconsistency over the matches it read, their ratio, Pearson's r of the win rates), shown beside the
// like-for-like figures (like-for-like.ts) so the two denominators can be told apart. Pure.
import type { MatchOutcome } from '../types.ts';
import { itemKey } from '../outcomes.ts';
import { DEFAULT_LEVEL, DEFAULT_ROUNDS, DEFAULT_SEED } from './bootstrap.ts';
import { intervalsWithheld, type IntervalsWithheld } from './rating-rows.ts';
import {
  addScores,
  addWeightedScores,
  questionBootstrap,
  winRateR,
  type Estimate,
  type JudgeScores,
} from './like-for-like.ts';

export interface OwnMatchJudge {
  judge: string;
  /** matches this judge read in both orders (no error), and those whose two orders disagree */
  matches: number;
  inconsistent: number;
  inconsistency: Estimate;
}

export interface OwnMatches {
  judges: [OwnMatchJudge, OwnMatchJudge];
  /** the second judge's inconsistency over the first's, each on its own matches */
  inconsistencyRatio: Estimate;
  /** Pearson's r of the adjusted win rates over the matches both judged (each judge's errors left out) */
  r: Estimate & { matches: number; models: number };
  questions: number;
  /** 0 when the intervals are withheld */
  rounds: number;
  level: number;
  seed: number;
  intervalsWithheld?: IntervalsWithheld;
}

/** One question's counts: per judge read matches and inconsistent ones; per model [score, games] per judge. */
interface QuestionCounts {
  read: [number, number];
  inconsistent: [number, number];
  scores: JudgeScores;
}

function questionCounts(a: MatchOutcome[], b: MatchOutcome[]): Map<number, QuestionCounts> {
  const key = (o: MatchOutcome) => itemKey(o.questionId, o.turn, o.model1, o.model2);
  const inB = new Map(b.map((o) => [key(o), o]));
  const both = new Set(a.filter((o) => inB.has(key(o))).map(key));
  const byQ = new Map<number, QuestionCounts>();
  const at = (q: number) => {
    let t = byQ.get(q);
    if (!t) byQ.set(q, (t = { read: [0, 0], inconsistent: [0, 0], scores: new Map() }));
    return t;
  };
  [a, b].forEach((os, j) => {
    for (const o of os) {
      if (o.outcome === 'error') continue;
      const t = at(o.questionId);
      t.read[j]!++;
      if (o.outcome === 'inconsistent') t.inconsistent[j]!++;
      if (!both.has(key(o))) continue;
      addScores(t.scores, o, j);
    }
  });
  return byQ;
}

interface Point {
  rates: [number, number];
  ratio: number;
  r: number;
}

function point(ts: QuestionCounts[], w: ArrayLike<number>): Point {
  const read = [0, 0];
  const inc = [0, 0];
  const scores = new Map<string, number[]>();
  ts.forEach((t, i) => {
    const c = w[i]!;
    if (!c) return;
    for (const j of [0, 1]) {
      read[j]! += c * t.read[j]!;
      inc[j]! += c * t.inconsistent[j]!;
    }
    addWeightedScores(scores, t.scores, c);
  });
  const rates: [number, number] = [read[0] ? inc[0]! / read[0] : NaN, read[1] ? inc[1]! / read[1] : NaN];
  return { rates, ratio: rates[0] > 0 ? rates[1] / rates[0] : NaN, r: winRateR(scores) };
}

/** `a` and `b`: two judges' match outcomes. Percentile intervals of `rounds` question-bootstrap rounds. */
export function ownMatches(
  a: [string, MatchOutcome[]],
  b: [string, MatchOutcome[]],
  o: { rounds?: number; level?: number; seed?: number } = {},
): OwnMatches {
  const level = o.level ?? DEFAULT_LEVEL;
  const seed = o.seed ?? DEFAULT_SEED;
  const byQ = questionCounts(a[1], b[1]);
  const ts = [...byQ.keys()].sort((x, y) => x - y).map((q) => byQ.get(q)!);
  const withheld = intervalsWithheld(ts.length);
  const rounds = withheld ? 0 : (o.rounds ?? DEFAULT_ROUNDS);
  const { point: full, est } = questionBootstrap(ts, point, { rounds, seed, level });
  const side = (j: 0 | 1, judge: string): OwnMatchJudge => ({
    judge,
    matches: ts.reduce((s, t) => s + t.read[j], 0),
    inconsistent: ts.reduce((s, t) => s + t.inconsistent[j], 0),
    inconsistency: est(full.rates[j], (p) => p.rates[j]),
  });
  const models = new Set(ts.flatMap((t) => [...t.scores.keys()]));
  const keys = (os: MatchOutcome[]) =>
    new Set(os.map((x) => itemKey(x.questionId, x.turn, x.model1, x.model2)));
  const kb = keys(b[1]);
  return {
    judges: [side(0, a[0]), side(1, b[0])],
    inconsistencyRatio: est(full.ratio, (p) => p.ratio),
    r: {
      ...est(full.r, (p) => p.r),
      matches: [...keys(a[1])].filter((k) => kb.has(k)).length,
      models: models.size,
    },
    questions: ts.length,
    rounds,
    level,
    seed,
    ...(withheld ? { intervalsWithheld: withheld } : {}),
  };
}
