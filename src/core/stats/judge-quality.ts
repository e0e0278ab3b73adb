// The judgment-quality report: how a judge behaves (errors, empty replies, order consistency, ties) and
// how judges compare (agreement, correlation of the leaderboards they produce). Pure.
import { pairwiseStandings } from '../standings.ts';
import type { MatchOutcome, Outcome, Standing, Verdict } from '../types.ts';
import { combineGames, itemKey, pairGames, type StoredVerdict } from '../outcomes.ts';

/** One stored pairwise game, as this report needs it. */
export interface QualityGame extends StoredVerdict {
  reply: string;
  /** the probability of the verdict given, when the judge exposes it */
  confidence?: number | null;
  entropy?: number | null;
}

export interface QualityRow {
  judge: string;
  turn: number;
  games: number;
  /** matches with both orders played */
  matches: number;
  /** matches where exactly one of the two games did not parse */
  errorsOneGame: number;
  /** matches where neither game parsed */
  errorsBothGames: number;
  /** games whose reply is empty (or only whitespace) */
  emptyReplies: number;
  /** both games parsed and named the same winner (or both a tie) */
  consistent: number;
  /** both games parsed and disagree (counted as a tie in standings) */
  inconsistent: number;
  /** both games a tie */
  ties: number;
  /** mean confidence and entropy over the games that carry them (null when none do) */
  meanConfidence: number | null;
  meanEntropy: number | null;
}

/** Per turn (and over all turns, turn 0) for one judge. */
export function qualityRows(judge: string, games: QualityGame[]): QualityRow[] {
  return perTurn(games, (turn, gs) => {
    const r = blankRow(judge, turn);
    let [confSum, confN, entSum, entN] = [0, 0, 0, 0];
    for (const g of gs) {
      if (!g.reply.trim()) r.emptyReplies++;
      if (g.confidence != null) ((confSum += g.confidence), confN++);
      if (g.entropy != null) ((entSum += g.entropy), entN++);
    }
    r.games = gs.length;
    r.meanConfidence = confN ? confSum / confN : null;
    r.meanEntropy = entN ? entSum / entN : null;
    for (const { ab, ba } of pairGames(gs)) {
      if (!ab || !ba) continue;
      const oneError = Number(ab.verdict === 'error') + Number(ba.verdict === 'error') === 1;
      countMatch(r, oneError ? 'one error' : combineGames(ab.verdict, ba.verdict));
    }
    return r;
  });
}

/**
 * Rows for a judge known only by its recorded match outcomes (e.g. the HF gpt4_pair split: one combined verdict
 * per match, "tie (inconsistent)" kept as inconsistent): games 0, each outcome one match.
 */
export function qualityRowsFromOutcomes(judge: string, outcomes: MatchOutcome[]): QualityRow[] {
  return perTurn(outcomes, (turn, os) => {
    const r = blankRow(judge, turn);
    for (const o of os) countMatch(r, o.outcome);
    return r;
  });
}

/** Rows per turn, and over all turns (turn 0) when there are several. */
function perTurn<T extends { turn: number }>(items: T[], row: (turn: number, of: T[]) => QualityRow) {
  const turns = [...new Set(items.map((g) => g.turn))].sort((a, b) => a - b);
  const of = (t: number) => items.filter((g) => g.turn === t);
  const rows = turns.map((t) => row(t, of(t)));
  if (turns.length > 1) rows.push(row(0, items));
  return rows;
}

const blankRow = (judge: string, turn: number): QualityRow => ({
  judge,
  turn,
  games: 0,
  matches: 0,
  errorsOneGame: 0,
  errorsBothGames: 0,
  emptyReplies: 0,
  consistent: 0,
  inconsistent: 0,
  ties: 0,
  meanConfidence: null,
  meanEntropy: null,
});

/** One match into its row: an error in one game or both, or its two orders consistent (a tie among them) or not. */
function countMatch(r: QualityRow, o: Outcome | 'one error'): void {
  r.matches++;
  if (o === 'one error') r.errorsOneGame++;
  else if (o === 'error') r.errorsBothGames++;
  else if (o === 'inconsistent') r.inconsistent++;
  else (r.consistent++, o === 'tie' && r.ties++);
}

/** How a model's win rate is computed for the correlation. */
export type RateVariant = 'adjusted' | 'without-ties' | 'errors-as-ties';

/**
 * `adjusted`: FastChat's (win + tie/2) / (win + loss + tie), errors left out. `without-ties`:
 * win / (win + loss). `errors-as-ties`: like adjusted, with errors counted as ties.
 */
export function winRate(s: Standing, v: RateVariant): number | null {
  if (v === 'adjusted') return s.win + s.loss + s.tie ? (s.win + s.tie / 2) / (s.win + s.loss + s.tie) : null;
  if (v === 'without-ties') return s.win + s.loss ? s.win / (s.win + s.loss) : null;
  const t = s.tie + s.error;
  return s.win + s.loss + t ? (s.win + t / 2) / (s.win + s.loss + t) : null;
}

/** Pearson's r of two equally long series (null when fewer than 2 points or a series is constant). */
export function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  const n = x.length;
  if (n < 2 || y.length !== n) return null;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) ((mx += x[i]!), (my += y[i]!));
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null;
}

export interface CorrelationRow {
  judge1: string;
  judge2: string;
  variant: RateVariant;
  /** models rated by both */
  models: number;
  /** matches both judges have an outcome for (the correlation uses only these) */
  matches: number;
  r: number | null;
}

/**
 * Correlation across models of two judges' win rates, over the matches both judged (so neither judge
 * is rated on matches the other never saw).
 */
export function winRateCorrelation(
  judge1: string,
  o1: MatchOutcome[],
  judge2: string,
  o2: MatchOutcome[],
  turn?: number,
): CorrelationRow[] {
  const key = (o: MatchOutcome) => itemKey(o.questionId, o.turn, o.model1, o.model2);
  const keep = (o: MatchOutcome) => turn === undefined || o.turn === turn;
  const k2 = new Set(o2.filter(keep).map(key));
  const common = new Set(o1.filter((o) => keep(o) && k2.has(key(o))).map(key));
  const s1 = new Map(pairwiseStandings(o1.filter((o) => common.has(key(o)))).map((s) => [s.model, s]));
  const s2 = new Map(pairwiseStandings(o2.filter((o) => common.has(key(o)))).map((s) => [s.model, s]));
  const models = [...s1.keys()].filter((m) => s2.has(m)).sort();
  return (['adjusted', 'without-ties', 'errors-as-ties'] as const).map((variant) => {
    const x: number[] = [];
    const y: number[] = [];
    for (const m of models) {
      const a = winRate(s1.get(m)!, variant);
      const b = winRate(s2.get(m)!, variant);
      if (a !== null && b !== null) (x.push(a), y.push(b));
    }
    return { judge1, judge2, variant, models: x.length, matches: common.size, r: pearson(x, y) };
  });
}

/** Why a match goes to the second judge, or null when the local verdict stands. */
export function escalationReason(
  ab: { verdict: Verdict; confidence?: number | null; reliability?: number | null } | undefined,
  ba: { verdict: Verdict; confidence?: number | null; reliability?: number | null } | undefined,
  below: number,
  softentAbove?: number,
): 'missing' | 'error' | 'inconsistent' | 'low-confidence' | 'unreliable' | null {
  if (!ab || !ba) return 'missing';
  const o = combineGames(ab.verdict, ba.verdict);
  if (o === 'error') return 'error';
  if (o === 'inconsistent') return 'inconsistent';
  const c = Math.min(ab.confidence ?? -1, ba.confidence ?? -1);
  if (c < below) return 'low-confidence';
  if (softentAbove === undefined) return null;
  // a game whose SoftEnt-Cali was not computed is as unsure as one above the bar (like a missing probability)
  const r = Math.max(ab.reliability ?? Infinity, ba.reliability ?? Infinity);
  return r > softentAbove ? 'unreliable' : null;
}
