import * as figures from '../core/format.ts';
import { nearMisses } from '../core/suggest.ts';

const FIGURE = /^(–|-?\$?\d[\d,]*(\.\d+)?(%| s)?)$/;

/** Plain aligned text tables for the terminal (`columns`: these fields, in this order). Numbers are right-aligned. */
export function table(objects: readonly object[], columns?: readonly string[]): string {
  const rows = objects as readonly Record<string, unknown>[];
  if (!rows.length) return '(no rows)';
  const cols = columns ?? Object.keys(rows[0]!);
  const cell = (v: unknown) =>
    typeof v === 'number'
      ? Number.isInteger(v)
        ? String(v)
        : v.toFixed(6).replace(/0+$/, '').replace(/\.$/, '')
      : v === null || v === undefined
        ? ''
        : String(v);
  const cells = rows.map((r) => cols.map((c) => cell(r[c])));
  const width = cols.map((c, k) => Math.max(c.length, ...cells.map((r) => r[k]!.length)));
  // numbers, and figures spelled by core/format.ts ("0.6250", "62.5%", "$0.0123", "12,345", "1.5 s", "–"), align right
  const figure = (v: unknown) =>
    typeof v === 'number' || v === null || v === undefined || (typeof v === 'string' && FIGURE.test(v));
  const numeric = cols.map((c) => rows.every((r) => figure(r[c])));
  const line = (vals: readonly string[]) =>
    vals
      .map((v, k) => (numeric[k] ? v.padStart(width[k]!) : v.padEnd(width[k]!)))
      .join('  ')
      .trimEnd();
  return [line(cols), line(width.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

export function list(v: string | undefined): string[] | undefined {
  if (v === undefined || v === '') return undefined;
  return v
    .trim()
    .split(/\s*,\s*/)
    .filter(Boolean);
}

/** The value of option `--name` as a number (`int`: a whole one); undefined when not given. */
const numberOf =
  (whole: boolean) =>
  (v: string | undefined, name: string): number | undefined => {
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    if (!(whole ? Number.isInteger(n) : Number.isFinite(n)))
      throw new UsageError(`--${name} expects ${whole ? 'an integer' : 'a number'}, got "${v}"`);
    return n;
  };
export const int = numberOf(true);
export const num = numberOf(false);

export function oneOf<T extends string>(
  v: string | undefined,
  name: string,
  allowed: readonly T[],
): T | undefined {
  if (v === undefined) return undefined;
  if (!allowed.includes(v as T)) {
    const near = nearMisses(v, allowed);
    throw new UsageError(
      `--${name} must be one of ${allowed.join(', ')}; got "${v}"${near.length ? ` (did you mean "${near[0]}"?)` : ''}`,
    );
  }
  return v as T;
}

/** A mistake in how the command was called (exit code 1 with the usage hint). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** How a summary line names its run (with nothing to play, the engine records none). */
export function runName(s: { id: string; toPlay: number }): string {
  return s.toPlay ? `run ${s.id}` : 'nothing to play, no run recorded';
}

/** A table of ratings, in the rows' order, with group and note columns where rows have them. */
export function ratingsTable(
  rows: readonly {
    model: string;
    rating: number | null;
    note?: string | undefined;
    group?: number | undefined;
  }[],
): string {
  const notes = rows.some((r) => r.note);
  const text = table(
    rows.map((r) => ({
      ...(r.group ? { group: r.group } : {}),
      model: r.model,
      rating: figures.rating(r.rating),
      ...(notes ? { note: r.note ?? '' } : {}),
    })),
  );
  return rows.some((r) => r.group)
    ? `${text}\n\nratings are fitted per group of models that played one another (mean 1000 in each); ratings of different groups are not comparable`
    : text;
}

/** Agreement per judge, turn and setup (with or without ties), as "agree / votes" and a percentage. */
export function agreementTable(
  rows: readonly {
    judge: string;
    turn: number;
    setup: string;
    agree: number;
    total: number;
    ratio: number;
  }[],
): string {
  return table(
    rows.map((x) => ({ ...x, 'agree / votes': `${x.agree} / ${x.total}`, agreement: figures.pct(x.ratio) })),
    ['judge', 'turn', 'setup', 'agree / votes', 'agreement'],
  );
}

/** `0.612 [0.540, 0.680]`: a figure (spelled) with its interval's bounds spelled by `f`; the figure alone without one. */
export function withInterval(
  x: string,
  lo: number | null,
  hi: number | null,
  f: (v: number) => string,
): string {
  return lo === null || hi === null ? x : `${x} [${f(lo)}, ${f(hi)}]`;
}
