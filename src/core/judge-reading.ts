// A one-paragraph reading of how two judges differ, written from their measured figures. Pure.
import type { AgreementRow } from './stats/agreement.ts';
import type { QualityRow } from './stats/judge-quality.ts';
import type { Estimate, LikeForLike } from './stats/like-for-like.ts';
import type { OwnMatches } from './stats/own-matches.ts';

export interface JudgeSide {
  judge: string;
  /** quality rows per turn (1, 2) and over both (0) */
  quality: QualityRow[];
  /** agreement with the experts per turn, with and without ties */
  agreement: AgreementRow[];
}

export interface JudgeFigures {
  judge: string;
  matches: number;
  /** matches with an error in one or both games */
  errorMatches: number;
  errorRate: number;
  /** matches with an error on turn 2 / all matches with an error (null without errors) */
  errorShareTurn2: number | null;
  /** inconsistent / (consistent + inconsistent): matches whose two orders both parsed */
  inconsistencyRate: number | null;
  inconsistent: number;
  judged: number;
  /** agreement with the experts, without ties, per turn */
  expertsWithoutTie: Record<number, number | null>;
  expertsWithTie: Record<number, number | null>;
}

export function judgeFigures(s: JudgeSide): JudgeFigures {
  const row = (t: number) => s.quality.find((q) => q.turn === t);
  const all = row(0) ?? row(1) ?? row(2);
  const errors = (q?: QualityRow) => (q ? q.errorsOneGame + q.errorsBothGames : 0);
  const errorMatches = errors(all);
  const judged = all ? all.consistent + all.inconsistent : 0;
  const ratio = (turn: number, setup: AgreementRow['setup']) => {
    const a = s.agreement.find((x) => x.turn === turn && x.setup === setup);
    return a && a.total ? a.agree / a.total : null;
  };
  return {
    judge: s.judge,
    matches: all?.matches ?? 0,
    errorMatches,
    errorRate: all?.matches ? errorMatches / all.matches : 0,
    errorShareTurn2: errorMatches ? errors(row(2)) / errorMatches : null,
    inconsistencyRate: judged ? all!.inconsistent / judged : null,
    inconsistent: all?.inconsistent ?? 0,
    judged,
    expertsWithoutTie: { 1: ratio(1, 'without-tie'), 2: ratio(2, 'without-tie') },
    expertsWithTie: { 1: ratio(1, 'with-tie'), 2: ratio(2, 'with-tie') },
  };
}

export const pct = (x: number | null) => (x === null ? 'n/a' : `${(100 * x).toFixed(1)}%`);
export const int = (n: number) => n.toLocaleString('en-US');

/** `30.1% [27.2, 33.1]`: a share with its interval in percent (`n/a` when not estimable). */
export function pctWithInterval(e: Estimate): string {
  if (e.value === null) return 'n/a';
  const i = e.interval;
  return `${pct(e.value)}${i ? ` [${(100 * i.lo).toFixed(1)}, ${(100 * i.hi).toFixed(1)}]` : ''}`;
}

/** `1.87 [1.63, 2.15]`: a number with its interval. */
export function numWithInterval(e: Estimate, digits = 2): string {
  if (e.value === null) return 'n/a';
  const i = e.interval;
  return `${e.value.toFixed(digits)}${i ? ` [${i.lo.toFixed(digits)}, ${i.hi.toFixed(digits)}]` : ''}`;
}

/** `95% intervals from 1,000 rounds resampling the 80 questions`, or why there are none. */
export function intervalsNote(x: LikeForLike | OwnMatches): string {
  return x.intervalsWithheld
    ? `no intervals: ${x.intervalsWithheld.reason}`
    : `${Math.round(100 * x.level)}% intervals from ${int(x.rounds)} rounds resampling the ${x.questions} questions`;
}

/** The like-for-like sentences: both judges on the same matches, every figure with its interval. */
export function readLikeForLike(l: LikeForLike): string {
  const [g, o] = l.judges;
  const parts = [
    `Like for like, on the ${int(l.matches)} matches where both judges gave a verdict in both orders (${intervalsNote(l)}): ` +
      `${o.judge} contradicts itself in ${pctWithInterval(o.inconsistency)} of them and ${g.judge} in ` +
      `${pctWithInterval(g.inconsistency)}, ${numWithInterval(l.inconsistencyRatio)} times as often.`,
  ];
  const s2 = (j: typeof g) => j.agreement.filter((a) => a.setup === 'without-tie' && a.total > 0);
  const [os, gs] = [s2(o), s2(g)];
  if (os.length && os.length === gs.length)
    parts.push(
      `On the matches both decided, ${o.judge} agrees with the experts' decisive votes on ` +
        os.map((a) => `${pctWithInterval(a)} of turn-${a.turn} votes (${int(a.total)})`).join(' and ') +
        `, ${g.judge} on ${gs.map((a) => pctWithInterval(a)).join(' and ')} of the same votes.`,
    );
  if (l.r.value !== null)
    parts.push(`On these matches Pearson's r of the adjusted win rates is ${numWithInterval(l.r, 3)}.`);
  return parts.join(' ');
}

/**
 * `reference` is the judge to compare against (GPT-4), `other` the one being read (the Llama-2 judge).
 * `experts` is the experts' agreement among themselves without ties (per turn), when known.
 */
export function readTwoJudges(
  reference: JudgeSide,
  other: JudgeSide,
  o: { r?: number | null; experts?: Record<number, number | null> } = {},
): string {
  const g = judgeFigures(reference);
  const l = judgeFigures(other);
  const parts: string[] = [];
  if (l.inconsistencyRate !== null && g.inconsistencyRate !== null) {
    const times = g.inconsistencyRate > 0 ? l.inconsistencyRate / g.inconsistencyRate : null;
    parts.push(
      `${l.judge} contradicts itself when the two answers swap places in ${pct(l.inconsistencyRate)} of the matches it judged in both orders (${int(l.inconsistent)} of ${int(l.judged)}), ` +
        (times === null
          ? `while ${g.judge} never does (0 of ${int(g.judged)}).`
          : `${times.toFixed(1)}× as often as ${g.judge} (${pct(g.inconsistencyRate)}, ${int(g.inconsistent)} of ${int(g.judged)}).`),
    );
  }
  if (l.errorMatches) {
    parts.push(
      `It gave no readable verdict in at least one order in ${int(l.errorMatches)} of ${int(l.matches)} matches (${pct(l.errorRate)}), ` +
        `${pct(l.errorShareTurn2)} of them on turn 2, where the prompt holds the whole two-turn conversation; ${g.judge} has ${g.errorMatches ? `${int(g.errorMatches)} (${pct(g.errorRate)})` : 'none'}.`,
    );
  } else
    parts.push(
      `It gave a readable verdict in every game; ${g.judge} has ${g.errorMatches ? `${int(g.errorMatches)} matches with an error` : 'no errors either'}.`,
    );
  if (l.expertsWithoutTie[1] !== null || l.expertsWithoutTie[2] !== null) {
    const ex = o.experts;
    parts.push(
      `Where it gives a verdict, it agrees with the experts on ${pct(l.expertsWithoutTie[1]!)} of turn-1 and ${pct(l.expertsWithoutTie[2]!)} of turn-2 votes when ties are left out ` +
        `(${g.judge}: ${pct(g.expertsWithoutTie[1]!)} and ${pct(g.expertsWithoutTie[2]!)}${ex ? `; the experts among themselves: ${pct(ex[1] ?? null)} and ${pct(ex[2] ?? null)}` : ''}), ` +
        `and on ${pct(l.expertsWithTie[1]!)} and ${pct(l.expertsWithTie[2]!)} with ties (${g.judge}: ${pct(g.expertsWithTie[1]!)} and ${pct(g.expertsWithTie[2]!)}).`,
    );
  }
  if (o.r !== undefined && o.r !== null)
    parts.push(
      `The two leaderboards order the models alike: Pearson's r of the adjusted win rates is ${o.r.toFixed(3)}.`,
    );
  return parts.join(' ');
}
