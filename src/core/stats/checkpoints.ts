// Checkpoint tracking statistics: win rate vs a baseline per checkpoint with its interval, and paired differences
// (by question) against the previous checkpoint and the best one so far. Pure.
import { percentileInterval } from './bootstrap.ts';
import { exactWhenAlike } from './exact.ts';
import { randInt, seededRng } from './random.ts';
import { intervalsWithheld } from './rating-rows.ts';
import type { MatchOutcome } from '../types.ts';
import { scoreOf } from '../outcomes.ts';

export interface Interval {
  mean: number;
  lo: number;
  hi: number;
  /** questions that entered */
  n: number;
}

/** A figure as shown: its interval by the one rule (questionInterval), or none with the reason in `note`. */
export interface ShownInterval {
  mean: number;
  lo: number | null;
  hi: number | null;
  /** questions that entered */
  n: number;
  /** why there is no interval (fewer than 30 questions) */
  note?: string;
}

/**
 * A model's score per question against the baseline: win 1, loss 0, tie or inconsistent 1/2 (as
 * FastChat's win_rate_adjusted), averaged over the question's turns; matches with an error are left out.
 */
export function questionScores(
  outcomes: Iterable<MatchOutcome>,
  model: string,
  baseline: string,
): Map<number, number> {
  const acc = new Map<number, { s: number; n: number }>();
  for (const o of outcomes) {
    let v: number;
    if (o.outcome === 'error') continue;
    if (o.model1 === model && o.model2 === baseline) v = scoreOf(o.outcome);
    else if (o.model2 === model && o.model1 === baseline) v = 1 - scoreOf(o.outcome);
    else continue;
    const a = acc.get(o.questionId) ?? { s: 0, n: 0 };
    a.s += v;
    a.n++;
    acc.set(o.questionId, a);
  }
  return new Map([...acc].map(([q, a]) => [q, a.s / a.n]));
}

/** Mean with a percentile bootstrap interval over questions (seeded: the same data give the same interval). */
export function bootstrapMean(
  values: number[],
  o: { seed?: number; resamples?: number; level?: number } = {},
): Interval {
  const n = values.length;
  if (!n) return { mean: NaN, lo: NaN, hi: NaN, n: 0 };
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const rng = seededRng(o.seed ?? 1);
  const B = o.resamples ?? 2000;
  const means = new Float64Array(B);
  for (let b = 0; b < B; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += values[randInt(rng, n)]!;
    means[b] = s / n;
  }
  return { mean, ...percentileInterval(means, o.level ?? 0.95), n };
}

/**
 * The one interval rule for a mean of per-question scores within `range`: none on too few questions (with the
 * reason), else the question bootstrap, except where every question scored alike and it would show a point: there
 * the exact interval (exactWhenAlike).
 */
function questionInterval(
  values: number[],
  range: readonly [number, number],
  o: { seed?: number; resamples?: number; level?: number } = {},
): ShownInterval {
  const n = values.length;
  if (!n) return { mean: NaN, lo: null, hi: null, n: 0 };
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const withheld = intervalsWithheld(n);
  if (withheld) return { mean, lo: null, hi: null, n, note: withheld.reason };
  const alike = exactWhenAlike(values, range, o.level);
  return alike ? { mean, ...alike, n } : bootstrapMean(values, o);
}

/** a - b over the questions both have. */
export function pairedScores(a: Map<number, number>, b: Map<number, number>): number[] {
  const d: number[] = [];
  for (const [q, v] of a) {
    const w = b.get(q);
    if (w !== undefined) d.push(v - w);
  }
  return d;
}

export interface CheckpointInfo {
  name: string;
  step: number;
  model: string;
}

export interface CheckpointRow {
  judge: string;
  checkpoint: string;
  step: number;
  model: string;
  /** win rate vs the baseline (ties 1/2) with its interval */
  winRate: ShownInterval;
  /** this minus the previous checkpoint, paired by question */
  vsPrevious: (ShownInterval & { against: string }) | null;
  /** this minus the best earlier checkpoint (the earlier step on a tie), paired by question */
  vsBest: (ShownInterval & { against: string }) | null;
  /** the best checkpoint of this judge: the highest win rate, never claimed on a tie */
  best: boolean;
}

/** The report of one judge over a series of checkpoints (ordered by step). */
export function checkpointReport(
  judge: string,
  checkpoints: CheckpointInfo[],
  outcomes: MatchOutcome[],
  baseline: string,
  o: { seed?: number; resamples?: number } = {},
): CheckpointRow[] {
  const sorted = [...checkpoints].sort((a, b) => a.step - b.step);
  const scores = sorted.map((c) => questionScores(outcomes, c.model, baseline));
  const rows: CheckpointRow[] = [];
  let bestIdx = -1;
  const diff = (k: number, j: number) => ({
    ...questionInterval(pairedScores(scores[k]!, scores[j]!), [-1, 1], o),
    against: sorted[j]!.name,
  });
  sorted.forEach((c, k) => {
    const winRate = questionInterval([...scores[k]!.values()], [0, 1], o);
    const vs = { vsPrevious: k > 0 ? diff(k, k - 1) : null, vsBest: bestIdx >= 0 ? diff(k, bestIdx) : null };
    rows.push({ judge, checkpoint: c.name, step: c.step, model: c.model, winRate, ...vs, best: false });
    if (winRate.n && (bestIdx < 0 || winRate.mean > rows[bestIdx]!.winRate.mean)) bestIdx = k;
  });
  // a tie at the top names no best
  const top = rows.filter((r) => r.winRate.n && r.winRate.mean === rows[bestIdx]?.winRate.mean);
  if (top.length === 1) top[0]!.best = true;
  return rows;
}

export interface SeriesReport {
  rows: CheckpointRow[];
  /** the best checkpoint's name per judge (none for a judge whose top win rate is tied) */
  best: Record<string, string>;
  /** per judge whose top win rate is shared: the checkpoints that share it */
  tiedBest: Record<string, string[]>;
}

/** The report of a series under several judges: each judge's rows (checkpointReport) and its best checkpoint. */
export function seriesReport(
  byJudge: { judge: string; outcomes: MatchOutcome[] }[],
  checkpoints: CheckpointInfo[],
  baseline: string,
  o: { seed?: number; resamples?: number } = {},
): SeriesReport {
  const rows: CheckpointRow[] = [];
  const best: Record<string, string> = {};
  const tiedBest: Record<string, string[]> = {};
  for (const { judge, outcomes } of byJudge) {
    const r = checkpointReport(judge, checkpoints, outcomes, baseline, o);
    rows.push(...r);
    const b = r.find((x) => x.best);
    const judged = r.filter((x) => x.winRate.n);
    const top = Math.max(...judged.map((x) => x.winRate.mean));
    if (b) best[judge] = b.checkpoint;
    else if (judged.length)
      tiedBest[judge] = judged.filter((x) => x.winRate.mean === top).map((x) => x.checkpoint);
  }
  return { rows, best, tiedBest };
}
