// Battles collapsed into the table that the ratings' fit and their resampling read: per model pair, per
// (question, pair) and per (pair, outcome); and the records and question counts per model read from it.
import type { Battle, CollapsedBattles } from '../ratings.ts';

/** A battle that belongs to a cluster (its question): the unit a question-level bootstrap resamples. */
export interface ClusteredBattle extends Battle {
  cluster: string | number;
}

/**
 * Battles collapsed twice: per model pair (for the fit) and per (cluster, pair) (for resampling), so
 * a round costs O(cluster entries), not O(battles). Also per (pair, outcome) cell for game resampling.
 * Battles without a cluster give no cluster entries (only game-level resampling is possible then).
 */
export interface BattleTable {
  pairs: CollapsedBattles;
  clusters: (string | number)[];
  /** cluster k's entries are [start[k], start[k+1]) of entryPair/entryW/entryS */
  start: Int32Array;
  entryPair: Int32Array;
  entryW: Float64Array;
  entryS: Float64Array;
  /** game-level cells: pair, score of the pair's first model (0, 0.5, 1), count */
  cellPair: Int32Array;
  cellScore: Float64Array;
  cellCount: Float64Array;
  battles: number;
}

/**
 * Models and clusters are numbered in order of first appearance, unless `fixed` gives them: then the table is
 * over exactly those models (a battle of another model, or of a model with itself, is left out) and has an entry
 * list for every given cluster, in the given order (so two tables drawn with one set of cluster draws line up).
 */
export function battleTable(
  battles: Iterable<ClusteredBattle | Battle>,
  fixed?: { models: readonly string[]; clusters?: readonly (string | number)[] },
): BattleTable {
  const index = new Map<string, number>(fixed?.models.map((m, k) => [m, k]));
  const idx = (m: string) => {
    let k = index.get(m);
    if (k === undefined) {
      if (fixed) return -1;
      index.set(m, (k = index.size));
    }
    return k;
  };
  const pairIndex = new Map<number, number>();
  const pi: number[] = [];
  const pj: number[] = [];
  const clusterIndex = new Map<string | number, number>(fixed?.clusters?.map((c, k) => [c, k]));
  const entries: Map<number, { w: number; s: number }>[] = Array.from(
    { length: clusterIndex.size },
    () => new Map(),
  );
  const cells = new Map<number, number>();
  let n = 0;
  for (const bt of battles) {
    let i = idx(bt.a);
    let j = idx(bt.b);
    if (fixed && (i < 0 || j < 0 || i === j)) continue;
    let s: number = bt.score;
    if (i > j) [i, j, s] = [j, i, 1 - s];
    const key = i * 1_000_003 + j;
    let p = pairIndex.get(key);
    if (p === undefined) {
      pairIndex.set(key, (p = pi.length));
      pi.push(i);
      pj.push(j);
    }
    if ('cluster' in bt) {
      let c = clusterIndex.get(bt.cluster);
      if (c === undefined) {
        clusterIndex.set(bt.cluster, (c = entries.length));
        entries.push(new Map());
      }
      const e = entries[c]!.get(p);
      if (e) {
        e.w++;
        e.s += s;
      } else entries[c]!.set(p, { w: 1, s });
    }
    const cell = p * 3 + s * 2;
    cells.set(cell, (cells.get(cell) ?? 0) + 1);
    n++;
  }
  const np = pi.length;
  const pairs: CollapsedBattles = {
    models: [...index.keys()],
    i: Int32Array.from(pi),
    j: Int32Array.from(pj),
    w: new Float64Array(np),
    s: new Float64Array(np),
  };
  let total = 0;
  for (const m of entries) total += m.size;
  const t: BattleTable = {
    pairs,
    clusters: [...clusterIndex.keys()],
    start: new Int32Array(entries.length + 1),
    entryPair: new Int32Array(total),
    entryW: new Float64Array(total),
    entryS: new Float64Array(total),
    cellPair: new Int32Array(cells.size),
    cellScore: new Float64Array(cells.size),
    cellCount: new Float64Array(cells.size),
    battles: n,
  };
  let k = 0;
  entries.forEach((m, c) => {
    t.start[c] = k;
    for (const [p, e] of m) {
      t.entryPair[k] = p;
      t.entryW[k] = e.w;
      t.entryS[k] = e.s;
      pairs.w[p]! += e.w;
      pairs.s[p]! += e.s;
      k++;
    }
  });
  t.start[entries.length] = k;
  k = 0;
  for (const [cell, count] of cells) {
    const p = Math.floor(cell / 3);
    t.cellPair[k] = p;
    t.cellScore[k] = (cell % 3) / 2;
    t.cellCount[k] = count;
    if (!entries.length) {
      // no clusters: the pair totals come from the cells
      pairs.w[p]! += count;
      pairs.s[p]! += count * t.cellScore[k]!;
    }
    k++;
  }
  return t;
}

/** Wins, losses and ties of every model (from the table's game-level cells). */
export function tableRecords(t: BattleTable): { wins: number; losses: number; ties: number }[] {
  const r = t.pairs.models.map(() => ({ wins: 0, losses: 0, ties: 0 }));
  for (let k = 0; k < t.cellPair.length; k++) {
    const p = t.cellPair[k]!;
    const i = t.pairs.i[p]!;
    const j = t.pairs.j[p]!;
    const n = t.cellCount[k]!;
    const sc = t.cellScore[k]!;
    if (sc === 1) ((r[i]!.wins += n), (r[j]!.losses += n));
    else if (sc === 0) ((r[j]!.wins += n), (r[i]!.losses += n));
    else ((r[i]!.ties += n), (r[j]!.ties += n));
  }
  return r;
}

/** Distinct questions per model (0 when battles carry no question). */
export function questionsPerModel(t: BattleTable): number[] {
  const q = t.pairs.models.map(() => 0);
  for (let c = 0; c < t.clusters.length; c++) {
    const seen = new Set<number>();
    for (let k = t.start[c]!; k < t.start[c + 1]!; k++) {
      const p = t.entryPair[k]!;
      seen.add(t.pairs.i[p]!);
      seen.add(t.pairs.j[p]!);
    }
    for (const m of seen) q[m]!++;
  }
  return q;
}

/** The pairs of a question bootstrap round: every entry of cluster c counted counts[c] times, into `round`. */
export function resamplePairs(
  t: BattleTable,
  counts: ArrayLike<number>,
  round: CollapsedBattles,
): CollapsedBattles {
  round.w.fill(0);
  round.s.fill(0);
  for (let c = 0; c < t.clusters.length; c++) {
    const m = counts[c]!;
    if (!m) continue;
    for (let k = t.start[c]!; k < t.start[c + 1]!; k++) {
      const p = t.entryPair[k]!;
      round.w[p]! += m * t.entryW[k]!;
      round.s[p]! += m * t.entryS[k]!;
    }
  }
  return round;
}
