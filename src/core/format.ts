// One spelling per kind of figure, for the terminal and the site alike: the CLI's tables
// and the site's pages call these, so a win rate, a rating or a cost reads the same in both. JSON output keeps
// full precision; these are for people. A missing value (null, undefined, NaN) is "–". Pure.

export const MISSING = '–';

const missing = (x: number | null | undefined): x is null | undefined =>
  x === null || x === undefined || Number.isNaN(x);

/** A win rate as FastChat's show_result prints it: a fraction with four decimals ("0.6250"). */
export function rate(x: number | null | undefined): string {
  return missing(x) ? MISSING : x.toFixed(4);
}

/** A share shown as a percentage with one decimal ("62.5%"): agreement, consistency, error and tie rates, separability. */
export function pct(x: number | null | undefined): string {
  return missing(x) ? MISSING : `${(100 * x).toFixed(1)}%`;
}

/** A rating (Bradley–Terry or Elo, mean 1000): whole points ("1043"), as leaderboards print them. */
export function rating(x: number | null | undefined): string {
  return missing(x) ? MISSING : x.toFixed(0);
}

/** An interval of two figures of one kind ("998 – 1043"); "–" when either bound is missing. */
export function interval(
  lo: number | null | undefined,
  hi: number | null | undefined,
  figure: (x: number) => string = rating,
): string {
  return missing(lo) || missing(hi) ? MISSING : `${figure(lo)} – ${figure(hi)}`;
}

/** Cohen's kappa, a correlation or a coefficient: three decimals ("0.612"). */
export function kappa(x: number | null | undefined): string {
  return missing(x) ? MISSING : x.toFixed(3);
}

/**
 * A whole number with a comma between groups of three digits, as `toLocaleString('en-US')` writes it ("-12,345"),
 * without Intl: its first use in a process or a Worker isolate loads ICU's number formatting, inside the first
 * request that shows a count (figures: bench/README.md).
 */
export function grouped(n: number): string {
  if (!Number.isInteger(n) || Math.abs(n) >= 1e21) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 || Object.is(n, -0) ? `-${out}` : out;
}

/** A count with thousands separators ("12,345"). */
export function count(x: number | null | undefined): string {
  return missing(x) ? MISSING : grouped(Math.round(x));
}

/** A cost in US dollars, four decimals ("$0.0123"; "$1,234.5000" with separators). */
export function usd(x: number | null | undefined): string {
  if (missing(x)) return MISSING;
  const [whole, frac] = Math.abs(x).toFixed(4).split('.');
  return `${x < 0 ? '-' : ''}$${grouped(Number(whole))}.${frac}`;
}

/** A moment to the minute, in UTC ("2026-11-22 19:51 UTC"). */
export function time(ms: number | null | undefined): string {
  return ms ? `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC` : MISSING;
}

/** A duration in seconds, one decimal ("12.3 s"). */
export function seconds(x: number | null | undefined): string {
  return missing(x) ? MISSING : `${x.toFixed(1)} s`;
}
