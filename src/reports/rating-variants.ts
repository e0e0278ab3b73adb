// What the site's rating variants page shows of one judge, from the CLI's functions: Bradley–Terry under our tie
// convention and FastChat's, Rao–Kupper ties, the position and length terms, and the power table (`arena power`).
import { adjacentPower, type PowerRow } from '../core/stats/power.ts';
import type { LengthEffect, LengthNotEstimable } from '../core/stats/length.ts';
import { intervalsWithheld } from '../core/stats/rating-rows.ts';
import { normalQuantile } from '../core/stats/normal.ts';
import type { Store } from '../storage/store.ts';
import { lengthReport } from './analytics.ts';
import { readOnce } from './read-once.ts';
import { positionReport, raoKupperReport, type VariantReport } from './bt-variants.ts';
import { judgeData, ratings, type RatingRow } from './results.ts';

/** The power table's settings: two-sided 5%, 80% power, at the observed gap (`arena power`'s defaults). */
const POWER = { alpha: 0.05, power: 0.8 } as const;

export interface VariantRow {
  model: string;
  /** Bradley–Terry, a "tie (inconsistent)" a tie (ours, the leaderboard's point estimate) */
  bt: number | null;
  /** Bradley–Terry without the inconsistent matches (FastChat's compute_mle_elo) */
  btFastchat: number | null;
  /** Rao–Kupper: a tie an outcome of its own */
  raoKupper: number | null;
  /** every game on its own with a term for the answer shown first; null when the judge has no games */
  withPosition: number | null;
  /** why a Bradley–Terry rating is missing (a model that won or lost everything) */
  note?: string;
}

/** A fitted term: Rao–Kupper's θ, the position term, the length effect. */
export interface VariantTerm {
  term: 'rao-kupper θ' | 'position' | 'length';
  /** null: not estimable here (see `note`) */
  estimate: number | null;
  /** standard error clustered by question (null for θ, which has none here) */
  se: number | null;
  /** standard error if every game or match were independent */
  seIndependent: number | null;
  /** 95% interval: estimate ± 1.96 clustered SEs */
  lo: number | null;
  hi: number | null;
  unit: string;
  /** what it rests on: games or matches, the questions they are on */
  observations: number | null;
  questions: number | null;
  note: string;
}

export interface RatingVariants {
  judge: string;
  rows: VariantRow[];
  /** matches FastChat's convention leaves out, of all matches with an outcome */
  inconsistent: number;
  matches: number;
  terms: VariantTerm[];
  power: PowerRow[];
  alpha: number;
  powerLevel: number;
}

const Z95 = normalQuantile(0.975);

const byModel = (rows: RatingRow[]) => new Map(rows.map((r) => [r.model, r]));

/** Every variant of one judge's ratings, its terms and its power table. */
export async function ratingVariants(store: Store, judge: string): Promise<RatingVariants> {
  // the fits below each read the same lists: each distinct read once
  store = readOnce(store, { games: 'list', votes: 'list', catalog: 'answers' });
  const [tie, drop, rk, pos, len, d] = await Promise.all([
    ratings(store, judge, 'bt', { inconsistent: 'tie' }),
    ratings(store, judge, 'bt', { inconsistent: 'drop' }),
    raoKupperReport(store, judge),
    positionReport(store, judge),
    // the effect and its clustered SE come from the one fit: no bootstrap rounds
    lengthReport(store, judge, { rounds: 0 }),
    judgeData(store, judge),
  ]);
  const dropped = byModel(drop);
  const rkOf = new Map(rk.models.map((m, k) => [m, rk.ratings[k]!]));
  const posOf = new Map(pos ? pos.models.map((m, k) => [m, pos.ratings[k]!]) : []);
  const rows: VariantRow[] = tie.map((r) => ({
    model: r.model,
    bt: r.rating,
    btFastchat: dropped.get(r.model)?.rating ?? null,
    raoKupper: rkOf.get(r.model) ?? null,
    withPosition: posOf.get(r.model) ?? null,
    ...(r.note ? { note: r.note } : {}),
  }));
  const played = d.outcomes.filter((x) => x.outcome !== 'error');
  return {
    judge,
    rows,
    inconsistent: played.filter((x) => x.outcome === 'inconsistent').length,
    matches: played.length,
    terms: [raoKupperTerm(rk), positionTerm(judge, pos), lengthTerm(len.lengthEffect, len.notEstimable)],
    power: adjacentPower(d.outcomes, POWER),
    alpha: POWER.alpha,
    powerLevel: POWER.power,
  };
}

/** A term's figures before any is known (the keys in the order a term prints them). */
const NO_ESTIMATE = { estimate: null, se: null, seIndependent: null, lo: null, hi: null };

function raoKupperTerm(r: VariantReport): VariantTerm {
  const rk = r.variant === 'rao-kupper' ? r : undefined;
  return {
    term: 'rao-kupper θ',
    ...NO_ESTIMATE,
    estimate: rk ? rk.theta : null,
    unit: 'θ ≥ 1; two equal models tie (θ − 1) / (θ + 1) of the time',
    observations: rk ? rk.battles : null,
    questions: null,
    note: rk
      ? `two equal models tie ${(100 * rk.tieAtEqual).toFixed(1)}% of the time${rk.converged ? '' : '; the fit did not converge'}`
      : '',
  };
}

function positionTerm(judge: string, r: VariantReport | undefined): VariantTerm {
  const p = r?.variant === 'position' ? r : undefined;
  const unit = 'rating points for being shown first';
  if (!p)
    return {
      term: 'position',
      ...NO_ESTIMATE,
      unit,
      observations: null,
      questions: null,
      note: `not estimable: ${judge} has no games, each in its order (recorded match outcomes and votes carry no order)`,
    };
  return {
    term: 'position',
    estimate: p.position,
    se: p.se,
    seIndependent: p.seIndependent,
    ...clusteredInterval(p.position, p.se, p.questions),
    unit,
    observations: p.games,
    questions: p.questions,
    note: `the first of two equal answers wins ${(100 * p.firstAtEqual).toFixed(1)}% of the time, ties half${p.converged ? '' : '; the fit did not converge'}${withheldNote(p.questions)}`,
  };
}

/** estimate ± z·SE (question-clustered), or none on fewer questions than MIN_QUESTIONS_FOR_INTERVALS. */
function clusteredInterval(
  estimate: number,
  se: number,
  questions: number,
): { lo: number | null; hi: number | null } {
  return intervalsWithheld(questions)
    ? { lo: null, hi: null }
    : { lo: estimate - Z95 * se, hi: estimate + Z95 * se };
}

/** The note's clause saying why a term has no interval, or nothing. */
function withheldNote(questions: number): string {
  const w = intervalsWithheld(questions);
  return w ? `; no interval: ${w.reason}` : '';
}

function lengthTerm(e: LengthEffect | null, why: LengthNotEstimable | null): VariantTerm {
  const unit = e ? `log-odds per unit of tanh(length difference / ${e.sigma.toFixed(0)} characters)` : '';
  return {
    term: 'length',
    estimate: e?.coefficient ?? null,
    se: e?.se ?? null,
    seIndependent: e?.seIndependent ?? null,
    ...(e ? clusteredInterval(e.coefficient, e.se, e.support.questions) : { lo: null, hi: null }),
    unit,
    observations: e?.support.decisive ?? why?.decisive ?? null,
    questions: e?.support.questions ?? why?.questions ?? null,
    note: e
      ? `${e.perThousandChars.toFixed(3)} log-odds per 1,000 characters at equal lengths; ${e.support.decisive} decisive of ${e.support.matches} matches${withheldNote(e.support.questions)}`
      : `not estimable: ${why?.reason ?? 'fewer than two models with both answers in the database'}`,
  };
}
