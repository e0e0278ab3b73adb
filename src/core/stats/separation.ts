// Separated data in Bradley–Terry: Ford (1957): the maximum-likelihood ratings exist exactly when the "scored
// against" graph (i -> j when i won or tied a game against j) is strongly connected. Each connected group keeps its
// largest strongly connected part (estimable relative to each other); every other model is above it (it never
// lost to it), below it, or neither. Pure.
import type { CollapsedBattles } from '../ratings.ts';

export type Estimability = 'ok' | 'above' | 'below' | 'apart' | 'missing';

export interface EstimabilityResult {
  status: Estimability[];
  /** true when some model that has games is not estimable */
  separated: boolean;
}

/**
 * Which models are estimable from the pair totals. `only` restricts the analysis to these models (others are
 * 'missing' and their pairs ignored). A model with no games is 'missing'.
 */
export function estimability(c: CollapsedBattles, only?: Uint8Array): EstimabilityResult {
  const quick = twoWayConnected(c, only);
  if (quick) return quick;
  const n = c.models.length;
  const out: Estimability[] = new Array(n).fill('missing');
  const adj: number[][] = Array.from({ length: n }, () => []); // i -> j: i scored against j
  const und: number[][] = Array.from({ length: n }, () => []);
  const has = new Uint8Array(n);
  pairsThatMet(c, only, (i, j, w, s) => {
    has[i] = has[j] = 1;
    und[i]!.push(j);
    und[j]!.push(i);
    if (s > 0) adj[i]!.push(j);
    if (s < w) adj[j]!.push(i);
  });
  const scc = tarjan(n, adj, has);
  // connected groups
  const group = new Int32Array(n).fill(-1);
  let ng = 0;
  for (let s = 0; s < n; s++) {
    if (!has[s] || group[s]! >= 0) continue;
    const stack = [s];
    group[s] = ng;
    while (stack.length) {
      const x = stack.pop()!;
      for (const y of und[x]!) if (group[y]! < 0) ((group[y] = ng), stack.push(y));
    }
    ng++;
  }
  let separated = false;
  for (let g = 0; g < ng; g++) {
    const members = [];
    for (let x = 0; x < n; x++) if (group[x] === g) members.push(x);
    // the largest strongly connected part (ties broken by the most games, then the lowest index)
    const size = new Map<number, number>();
    for (const x of members) size.set(scc[x]!, (size.get(scc[x]!) ?? 0) + 1);
    let main = scc[members[0]!]!;
    for (const [id, sz] of size) if (sz > size.get(main)! || (sz === size.get(main)! && id < main)) main = id;
    const reachesMain = reach(members, adj, (x) => scc[x] === main, 'to');
    const fromMain = reach(members, adj, (x) => scc[x] === main, 'from');
    for (const x of members) {
      if (scc[x] === main) out[x] = 'ok';
      else {
        separated = true;
        out[x] = reachesMain.has(x) ? 'above' : fromMain.has(x) ? 'below' : 'apart';
      }
    }
  }
  return { status: out, separated };
}

/**
 * The common case, cheaply: when the pairs that went both ways (each side scored) connect every model that
 * played, the scored-against graph is strongly connected and every such model is estimable. null when
 * that does not settle it (then the full analysis runs).
 */
function twoWayConnected(c: CollapsedBattles, only?: Uint8Array): EstimabilityResult | null {
  const n = c.models.length;
  const parent = new Int32Array(n);
  for (let x = 0; x < n; x++) parent[x] = x;
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]!]!;
    return x;
  };
  const has = new Uint8Array(n);
  pairsThatMet(c, only, (i, j, w, s) => {
    has[i] = has[j] = 1;
    if (s > 0 && s < w) parent[find(i)] = find(j);
  });
  let root = -1;
  for (let x = 0; x < n; x++) {
    if (!has[x]) continue;
    const r = find(x);
    if (root < 0) root = r;
    else if (r !== root) return null;
  }
  return { status: Array.from(has, (h) => (h ? 'ok' : 'missing')), separated: false };
}

/** Every pair that met among the `only` models: `visit(i, j, w, s)` with its games and i's score against j. */
function pairsThatMet(
  c: CollapsedBattles,
  only: Uint8Array | undefined,
  visit: (i: number, j: number, w: number, s: number) => void,
): void {
  for (let k = 0; k < c.i.length; k++) {
    const i = c.i[k]!;
    const j = c.j[k]!;
    if (c.w[k]! > 0 && (!only || (only[i] && only[j]))) visit(i, j, c.w[k]!, c.s[k]!);
  }
}

/** Models that reach (`to`) or are reached from (`from`) the target set along `adj`. */
function reach(
  members: number[],
  adj: number[][],
  target: (x: number) => boolean,
  dir: 'to' | 'from',
): Set<number> {
  const n = adj.length;
  const next: number[][] = dir === 'from' ? adj : Array.from({ length: n }, () => []);
  if (dir === 'to') for (const x of members) for (const y of adj[x]!) next[y]!.push(x);
  const seen = new Set<number>();
  const stack = members.filter(target);
  for (const x of stack) seen.add(x);
  while (stack.length) {
    const x = stack.pop()!;
    for (const y of next[x]!) if (!seen.has(y)) (seen.add(y), stack.push(y));
  }
  return seen;
}

/** Strongly connected components (Tarjan, iterative); ids per node, -1 for nodes without games. */
function tarjan(n: number, adj: number[][], has: Uint8Array): Int32Array {
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const comp = new Int32Array(n).fill(-1);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  let counter = 0;
  let nc = 0;
  for (let s = 0; s < n; s++) {
    if (!has[s] || index[s]! >= 0) continue;
    const work: [number, number][] = [[s, 0]];
    index[s] = low[s] = counter++;
    stack.push(s);
    onStack[s] = 1;
    while (work.length) {
      const top = work[work.length - 1]!;
      const [v, k] = top;
      if (k < adj[v]!.length) {
        top[1]++;
        const w = adj[v]![k]!;
        if (index[w]! < 0) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = 1;
          work.push([w, 0]);
        } else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
      } else {
        work.pop();
        if (work.length) {
          const u = work[work.length - 1]![0];
          low[u] = Math.min(low[u]!, low[v]!);
        }
        if (low[v] === index[v]) {
          let w: number;
          do {
            w = stack.pop()!;
            onStack[w] = 0;
            comp[w] = nc;
          } while (w !== v);
          nc++;
        }
      }
    }
  }
  return comp;
}

/** The pair totals with `prior` tie games added to every pair that met (a weak pull towards equal ratings). */
export function withPrior(c: CollapsedBattles, prior: number): CollapsedBattles {
  if (!(prior > 0)) return c;
  return {
    ...c,
    w: c.w.map((w) => (w > 0 ? w + prior : w)),
    s: c.s.map((s, k) => (c.w[k]! > 0 ? s + prior / 2 : s)),
  };
}
