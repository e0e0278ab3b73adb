// The home page's reading of two judges: like for like first (both on the matches where both gave a verdict), then
// each on its own matches, every figure with its interval, so the two denominators are never mixed. Pure.
import {
  int,
  intervalsNote,
  judgeFigures,
  numWithInterval,
  pct,
  pctWithInterval,
  type JudgeSide,
} from './judge-reading.ts';
import type { LikeForLike } from './stats/like-for-like.ts';
import type { OwnMatches } from './stats/own-matches.ts';

/** The agreement sentences of the like-for-like comparison (other judge first, then the reference). */
function agreementSentences(l: LikeForLike, experts?: Record<number, number | null>): string[] {
  const [g, o] = l.judges;
  const rows = (j: typeof g, setup: 'with-tie' | 'without-tie') =>
    j.agreement.filter((a) => a.setup === setup && a.total > 0);
  const out: string[] = [];
  const [os, gs] = [rows(o, 'without-tie'), rows(g, 'without-tie')];
  if (os.length && os.length === gs.length) {
    const among = experts
      ? `; the experts agree among themselves on ${os.map((a) => pct(experts[a.turn] ?? null)).join(' and ')}`
      : '';
    out.push(
      `On the matches both decided, ${o.judge} agrees with the experts' decisive votes on ` +
        os.map((a) => `${pctWithInterval(a)} of turn-${a.turn} votes (${int(a.total)})`).join(' and ') +
        `, ${g.judge} on ${gs.map((a) => pctWithInterval(a)).join(' and ')} of the same votes${among}.`,
    );
  }
  const [ot, gt] = [rows(o, 'with-tie'), rows(g, 'with-tie')];
  if (ot.length && ot.length === gt.length)
    out.push(
      `Counting ties, it agrees on ${ot.map((a) => pctWithInterval(a)).join(' and ')}, ${g.judge} on ` +
        `${gt.map((a) => pctWithInterval(a)).join(' and ')}: it calls more ties.`,
    );
  return out;
}

/**
 * `reference` is the judge compared against (GPT-4), `other` the one read (the Llama-2 judge); `like` both on the
 * same matches, `own` each on its own; `experts` the experts' agreement among themselves without ties, per turn.
 */
export function readDuel(
  reference: JudgeSide,
  other: JudgeSide,
  like: LikeForLike,
  own: OwnMatches,
  experts?: Record<number, number | null>,
): string {
  const [g, o] = like.judges;
  const parts = [
    `On the ${int(like.matches)} matches where both judges gave a verdict in both orders (${intervalsNote(like)}), ` +
      `${o.judge} contradicts itself when the two answers swap places in ${pctWithInterval(o.inconsistency)} of them ` +
      `and ${g.judge} in ${pctWithInterval(g.inconsistency)}: ${numWithInterval(like.inconsistencyRatio)} times as often.`,
    ...agreementSentences(like, experts),
  ];
  if (like.r.value !== null)
    parts.push(
      `Pearson's r of the models' adjusted win rates on these matches is ${numWithInterval(like.r, 3)}.`,
    );
  const l = judgeFigures(other);
  const ref = judgeFigures(reference);
  if (l.errorMatches)
    parts.push(
      `${o.judge} gave no readable verdict in at least one order in ${int(l.errorMatches)} of ${int(l.matches)} matches ` +
        `(${pct(l.errorRate)}), ${pct(l.errorShareTurn2)} of them on turn 2, where the prompt holds the whole two-turn ` +
        `conversation; ${g.judge} in ${ref.errorMatches ? `${int(ref.errorMatches)} (${pct(ref.errorRate)})` : 'none'}.`,
    );
  const [og, oo] = own.judges;
  if (og.inconsistency.value !== null && oo.inconsistency.value !== null)
    parts.push(
      `Each judge on its own matches instead (${g.judge} on the ${int(og.matches)} it read in both orders, ` +
        `${o.judge} on its ${int(oo.matches)}; ${intervalsNote(own)}): ${pctWithInterval(oo.inconsistency)} against ` +
        `${pctWithInterval(og.inconsistency)} inconsistent, ${numWithInterval(own.inconsistencyRatio)} times` +
        (own.r.value !== null
          ? `, and r ${numWithInterval(own.r, 3)} over the ${int(own.r.matches)} matches both judged.`
          : '.'),
    );
  return parts.join(' ');
}
