import type { MatchItem, MatchOutcome, SingleScore, SingleStanding, Standing } from './types.ts';
import { scoreOf } from './outcomes.ts';

/** A standing's columns, in the order tables show them (the site's tables and its sortable columns). */
export const STANDING_COLUMNS = [
  'model',
  'win',
  'loss',
  'tie',
  'inconsistent',
  'error',
  'winRate',
  'lossRate',
  'winRateAdjusted',
] as const satisfies readonly (keyof Standing)[];

export interface StandingsOptions {
  /** pairwise-baseline: only matches that involve this model count, and its own row is dropped */
  baseline?: string;
  /** restrict to one turn; turns are pooled otherwise (as FastChat's show_result does) */
  turn?: number;
  /** restrict to these models (a match counts when both its models are listed) */
  models?: string[];
  /** restrict to these question ids */
  questionIds?: Set<number>;
}

/**
 * FastChat's show_result for pairwise modes: errors are left out of the rates (but counted); a tie is "both tie"
 * or "the two orders disagree"; winRateAdjusted = (win + tie/2) / (win + loss + tie).
 */
export function pairwiseStandings(outcomes: Iterable<MatchOutcome>, opts: StandingsOptions = {}): Standing[] {
  return tallyStandings(outcomes, opts, (o, r1, r2) => {
    if (o.outcome === 'error') return void (r1.error++, r2.error++);
    if (o.outcome === 'inconsistent') (r1.inconsistent++, r2.inconsistent++);
    tallyScore(r1, r2, scoreOf(o.outcome));
  });
}

/** Model 1's score in one battle (1 win, 0 loss, 0.5 tie) counted into both rows. */
export function tallyScore(r1: Standing, r2: Standing, score: number): void {
  if (score === 1) (r1.win++, r2.loss++);
  else if (score === 0) (r2.win++, r1.loss++);
  else (r1.tie++, r2.tie++);
}

/**
 * The frame of every pairwise standings table: filter the matches (`opts`), let `count` tally each into its
 * two models' rows, drop the baseline's own row, compute the rates and sort by winRateAdjusted (then name).
 */
export function tallyStandings<M extends MatchItem>(
  matches: Iterable<M>,
  opts: StandingsOptions,
  count: (m: M, r1: Standing, r2: Standing) => void,
): Standing[] {
  const rows = new Map<string, Standing>();
  const zero = { win: 0, loss: 0, tie: 0, error: 0, inconsistent: 0 };
  const row = (model: string): Standing => {
    let r = rows.get(model);
    if (!r) rows.set(model, (r = { model, ...zero, winRate: 0, lossRate: 0, winRateAdjusted: 0 }));
    return r;
  };
  const allowed = opts.models ? new Set(opts.models) : undefined;
  for (const m of matches) {
    if (opts.turn !== undefined && m.turn !== opts.turn) continue;
    if (opts.questionIds && !opts.questionIds.has(m.questionId)) continue;
    if (allowed && !(allowed.has(m.model1) && allowed.has(m.model2))) continue;
    if (opts.baseline !== undefined && m.model1 !== opts.baseline && m.model2 !== opts.baseline) continue;
    count(m, row(m.model1), row(m.model2));
  }
  if (opts.baseline !== undefined) rows.delete(opts.baseline);
  const out = [...rows.values()];
  for (const r of out) {
    const n = r.win + r.loss + r.tie;
    r.winRate = n ? r.win / n : 0;
    r.lossRate = n ? r.loss / n : 0;
    r.winRateAdjusted = n ? (r.win + 0.5 * r.tie) / n : 0;
  }
  out.sort((a, b) => b.winRateAdjusted - a.winRateAdjusted || (a.model < b.model ? -1 : 1));
  return out;
}

/** FastChat's show_result for single grading: per-turn and overall means, unparsed scores left out (and counted). */
export function singleStandings(
  scores: Iterable<SingleScore>,
  opts: { models?: string[]; questionIds?: Set<number> } = {},
): SingleStanding[] {
  const acc = new Map<
    string,
    { s1: number; n1: number; s2: number; n2: number; s: number; n: number; error: number }
  >();
  const allowed = opts.models ? new Set(opts.models) : undefined;
  for (const sc of scores) {
    if (allowed && !allowed.has(sc.model)) continue;
    if (opts.questionIds && !opts.questionIds.has(sc.questionId)) continue;
    let a = acc.get(sc.model);
    if (!a) acc.set(sc.model, (a = { s1: 0, n1: 0, s2: 0, n2: 0, s: 0, n: 0, error: 0 }));
    if (sc.score === null) {
      a.error++;
      continue;
    }
    a.s += sc.score;
    a.n++;
    if (sc.turn === 1) ((a.s1 += sc.score), a.n1++);
    else if (sc.turn === 2) ((a.s2 += sc.score), a.n2++);
  }
  const out: SingleStanding[] = [...acc].map(([model, a]) => ({
    model,
    turn1: a.n1 ? a.s1 / a.n1 : null,
    turn2: a.n2 ? a.s2 / a.n2 : null,
    score: a.n ? a.s / a.n : null,
    n: a.n,
    error: a.error,
  }));
  out.sort((a, b) => (b.score ?? -1) - (a.score ?? -1) || (a.model < b.model ? -1 : 1));
  return out;
}
