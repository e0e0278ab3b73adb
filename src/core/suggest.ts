/** "Did you mean ...?" for mistyped names: the valid values closest to what was typed. Pure. */

/**
 * Edit distance with adjacent transpositions (optimal string alignment), case-insensitive: a swapped pair of letters
 * (`--judeg`) is one edit, as it is one slip of the fingers.
 */
function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let before: number[] = [];
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        cur[j] = Math.min(cur[j]!, before[j - 2]! + 1);
    }
    before = prev;
    prev = cur;
  }
  return prev[t.length]!;
}

/**
 * The valid values near `value`: same spelling in another case, or within an edit distance of a third of
 * the length (at most 3), one a prefix of the other, or `value` after a provider's slash; the closest first. Empty when nothing is near.
 */
export function nearMisses(value: string, valid: readonly string[], max = 3): string[] {
  const limit = Math.min(3, Math.floor(value.length / 3));
  const low = value.toLowerCase();
  const prefix = (v: string) =>
    value.length >= 3 && (v.toLowerCase().startsWith(low) || low.startsWith(v.toLowerCase()));
  // a provider-qualified id named without its provider ("mock-judge" for "openai/mock-judge")
  const suffix = (v: string) => v.toLowerCase().endsWith(`/${low}`);
  const near = valid
    .map((v) => ({ v, d: v.toLowerCase() === value.toLowerCase() ? 0 : editDistance(value, v) }))
    .filter((x) => x.d <= limit || prefix(x.v) || suffix(x.v));
  // a far second guess beside a close one only muddies it ("swfit": "swift", not also "drift")
  const best = Math.min(...near.map((x) => x.d));
  return near
    .filter((x) => x.d <= best + 1 || prefix(x.v) || suffix(x.v))
    .sort((x, y) => x.d - y.d || (x.v < y.v ? -1 : 1))
    .slice(0, max)
    .map((x) => x.v);
}

/** `unknown judge "gpt4" (did you mean "gpt-4"?); known: gpt-4, human`: one line naming what is valid. */
export function unknownValueMessage(
  kind: string,
  value: string,
  valid: readonly string[],
  listMax = 20,
): string {
  const near = nearMisses(value, valid);
  const shown =
    valid.length > listMax
      ? `${valid.slice(0, listMax).join(', ')}, … (${valid.length} in all)`
      : valid.join(', ');
  return `unknown ${kind} "${value}"${near.length ? ` (did you mean ${near.map((n) => `"${n}"`).join(' or ')}?)` : ''}; ${valid.length ? `valid: ${shown}` : 'there are none yet'}`;
}
