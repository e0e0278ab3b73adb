// The home page's board: which judge's leaderboard a visitor sees first, and the few columns it shows (the details
// page has every other figure). Pure: it reads the boards the site's data already built.
import { isHumanJudge } from '../../core/constants.ts';
import type { BoardNote } from './succession.ts';
import type { LeaderRow } from './leaderboards.ts';

/** Matches on a judge's board: every model's row counts each of its matches, so each match is counted twice. */
export const boardMatches = (rows: LeaderRow[]): number =>
  rows.reduce((n, r) => n + r.win + r.loss + r.tie + r.error, 0) / 2;

/**
 * The judge whose board the home page shows when the visitor names none: the one the publisher named (if known),
 * else the one a succession made current, else the LLM judge with the most matches (ties: the judges' order).
 */
export function defaultJudge(
  boards: { judge: string; rows: LeaderRow[] }[],
  notes: Record<string, BoardNote>,
  named?: string,
): string | undefined {
  const judges = boards.map((b) => b.judge);
  if (named && judges.includes(named)) return named;
  const current = judges.find((j) => notes[j]?.state === 'current');
  if (current) return current;
  const llm = boards.filter((b) => !isHumanJudge(b.judge) && b.rows.length);
  let best = llm[0];
  for (const b of llm) if (boardMatches(b.rows) > boardMatches(best!.rows)) best = b;
  return best?.judge ?? judges[0];
}

/** The board's rows: a leaderboard's rows with only the home page's columns (rankRange: null without intervals). */
export function homeRows(rows: LeaderRow[]) {
  return rows.map((r) => ({
    rank: r.rank,
    rankFromPoint: r.rankFromPoint === true,
    rankRange:
      r.rankBest === null || r.rankWorst === null
        ? null
        : r.rankBest === r.rankWorst
          ? String(r.rankBest)
          : `${r.rankBest}–${r.rankWorst}`,
    model: r.model,
    rating: r.rating,
    ratingLo: r.ratingLo,
    ratingHi: r.ratingHi,
    ratingNote: r.ratingNote,
    matches: r.win + r.loss + r.tie + r.error,
    preliminary: r.preliminary === true,
  }));
}
