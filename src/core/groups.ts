/**
 * Tournaments that never met: the connected groups of models, two models linked when they played at least
 * one match. One database can hold several tournaments (the MT-Bench release and our own question set, judged
 * by the same judge); a standing or a rating is only meaningful within a group, never across groups. Pure.
 */
export function connectedModelGroups(matches: Iterable<{ model1: string; model2: string }>): string[][] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    for (let y = x; y !== r;) {
      const next = parent.get(y)!;
      parent.set(y, r);
      y = next;
    }
    return r;
  };
  for (const m of matches) {
    for (const x of [m.model1, m.model2]) if (!parent.has(x)) parent.set(x, x);
    const a = find(m.model1);
    const b = find(m.model2);
    if (a !== b) parent.set(a, b);
  }
  const groups = new Map<string, string[]>();
  for (const x of parent.keys()) {
    const r = find(x);
    groups.set(r, [...(groups.get(r) ?? []), x]);
  }
  // the largest group first, then by name: a stable order for tables
  return [...groups.values()]
    .map((g) => g.sort())
    .sort((a, b) => b.length - a.length || (a[0]! < b[0]! ? -1 : 1));
}

/** The items of each group, in the groups' order (items whose models are in no group are dropped). */
export function splitByGroup<T extends { model1: string; model2: string }>(
  items: readonly T[],
  groups: string[][],
): T[][] {
  const of = new Map<string, number>();
  groups.forEach((g, k) => g.forEach((m) => of.set(m, k)));
  const out = groups.map((): T[] => []);
  for (const it of items) {
    const k = of.get(it.model1);
    if (k !== undefined) out[k]!.push(it);
  }
  return out;
}

/**
 * "Split into connected groups, fit, tag the group": each group of models that met is fitted apart (a rating across
 * groups would mean nothing), and when there are several each row says its group (1 = the largest). `sides` names
 * an item's two models; the fit sees the group's items in their given order (online Elo depends on it).
 */
export function ratingsByGroup<T, P, R extends object>(
  items: readonly T[],
  sides: (it: T) => { model1: string; model2: string },
  fit: (part: T[]) => P,
  rowsOf: (p: P) => readonly R[],
): { groups: string[][]; parts: P[]; rows: (R & { group?: number })[] } {
  const groups = connectedModelGroups(items.map(sides));
  // one group (or none: no items) is fitted whole, untagged
  if (groups.length <= 1) {
    const whole = fit([...items]);
    return { groups, parts: [whole], rows: [...rowsOf(whole)] };
  }
  const of = new Map(groups.flatMap((g, k) => g.map((m) => [m, k] as const)));
  const split = groups.map((): T[] => []);
  for (const it of items) split[of.get(sides(it).model1)!]!.push(it);
  const parts = split.map(fit);
  return { groups, parts, rows: parts.flatMap((p, k) => rowsOf(p).map((r) => ({ ...r, group: k + 1 }))) };
}

/** A battle's two models as a match names them. */
export const battleSides = (b: { a: string; b: string }) => ({ model1: b.a, model2: b.b });
