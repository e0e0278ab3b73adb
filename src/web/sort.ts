// The leaderboard's sortable columns and model search, on the server (they work without JavaScript and every view
// has its own URL). Sorting only reorders rows: ranks, ratings and intervals are those over every model.
import { STANDING_COLUMNS } from '../core/standings.ts';
import type { LeaderRow } from '../reports/site/leaderboards.ts';

/** The columns a leaderboard can be sorted by (`rank`, the table's own order, is the default). */
export const SORT_KEYS = ['rank', ...STANDING_COLUMNS, 'rating'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortDir = 'asc' | 'desc';

/** The direction a column sorts in first: names and ranks upward, counts and rates largest first. */
const firstDir = (k: SortKey): SortDir => (k === 'rank' || k === 'model' ? 'asc' : 'desc');

/** The rows in the order asked for (a stable sort); a missing value (no rating) goes last either way. */
export function sortRows(rows: LeaderRow[], key: SortKey = 'rank', dir?: SortDir): LeaderRow[] {
  const d = dir ?? firstDir(key);
  if (key === 'rank' && d === 'asc') return rows;
  const sign = d === 'asc' ? 1 : -1;
  return rows
    .map((r, k) => ({ r, k }))
    .sort((a, b) => {
      const [x, y] = [a.r[key], b.r[key]];
      if (x === null || y === null) return (x === null ? 1 : 0) - (y === null ? 1 : 0) || a.k - b.k;
      const c = typeof x === 'string' ? x.localeCompare(y as string) : (x as number) - (y as number);
      return sign * c || a.k - b.k;
    })
    .map(({ r }) => r);
}

/** The rows whose model name contains `q`, ignoring case (all rows for an empty search). */
export function matching(rows: LeaderRow[], q: string | undefined): LeaderRow[] {
  const needle = (q ?? '').trim().toLowerCase();
  return needle ? rows.filter((r) => r.model.toLowerCase().includes(needle)) : rows;
}

/** A column header's `aria-sort` (on the sorted column only) and the link that sorts by it (or the other way). */
export function sortHeaders(
  sort: SortKey | undefined,
  dir: SortDir | undefined,
  query: (p: { sort?: string; dir?: string }) => string,
) {
  const key = sort ?? 'rank';
  const current = dir ?? firstDir(key);
  return (k: SortKey) => {
    const next = k === key ? (current === 'asc' ? 'desc' : 'asc') : firstDir(k);
    return {
      ariaSort: k === key ? (current === 'asc' ? 'ascending' : 'descending') : undefined,
      href: query(k === 'rank' && next === 'asc' ? {} : { sort: k, dir: next }),
    };
  };
}
