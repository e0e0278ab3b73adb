/**
 * `node --import tsx bench/softent-split.ts --db FILE --set NAME [--judge PREFIX]`: the split of "On the Limitations
 * of Fine-tuned Judge Models" (its reliability section) on a labelled pair set judged with `arena run --set NAME
 * --reliability softent-cali --base-gguf FILE`: the items ordered by SoftEnt-Cali (the mean of the item's two
 * orders; lower = more reliable), and the judge's accuracy (mean of the two orders, as LLMBar reports it) on the
 * more reliable half against the less reliable half.
 */
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    set: { type: 'string' },
    judge: { type: 'string', default: 'llama-cpp/' },
  },
});
if (!values.db || !values.set)
  throw new Error('usage: bench/softent-split.ts --db FILE --set NAME [--judge PREFIX]');
const db = new Database(values.db, { readonly: true });
// a labelled set's gold labels are votes of judge 'gold' whose voter is the set (lower-cased) and source names it
const gold = new Map(
  (
    db
      .prepare(
        `SELECT question_id q, winner FROM votes WHERE judge = 'gold' AND source LIKE 'pairs:' || ? || '/%'`,
      )
      .all(values.set) as { q: number; winner: string }[]
  ).map((r) => [r.q, r.winner === 'model_a' ? 'model_1' : r.winner === 'model_b' ? 'model_2' : 'tie']),
);
const games = db
  .prepare(
    `SELECT question_id q, "order" o, verdict, reliability FROM games
      WHERE judge LIKE ? || '%' AND source = 'run' AND reliability IS NOT NULL`,
  )
  .all(values.judge) as { q: number; o: string; verdict: string; reliability: number }[];
const items = new Map<number, { r: number[]; correct: number[] }>();
for (const g of games) {
  const want = gold.get(g.q);
  if (!want) continue;
  const it = items.get(g.q) ?? { r: [], correct: [] };
  it.r.push(g.reliability);
  it.correct.push(g.verdict === want ? 1 : 0);
  items.set(g.q, it);
}
const both = [...items.values()]
  .filter((it) => it.r.length === 2)
  .map((it) => ({ r: (it.r[0]! + it.r[1]!) / 2, acc: (it.correct[0]! + it.correct[1]!) / 2 }))
  .sort((a, b) => a.r - b.r);
const half = Math.floor(both.length / 2);
const acc = (xs: { acc: number }[]) =>
  xs.length ? (100 * xs.reduce((s, x) => s + x.acc, 0)) / xs.length : NaN;
const more = both.slice(0, half);
const less = both.slice(both.length - half);
console.log(`${values.set}: ${both.length} items with both orders scored; accuracy ${acc(both).toFixed(1)}%`);
console.log(
  `  more reliable half (${more.length} items, SoftEnt-Cali ${more[0]?.r.toFixed(3)} to ${more.at(-1)?.r.toFixed(3)}): ${acc(more).toFixed(1)}%`,
);
console.log(
  `  less reliable half (${less.length} items, SoftEnt-Cali ${less[0]?.r.toFixed(3)} to ${less.at(-1)?.r.toFixed(3)}): ${acc(less).toFixed(1)}%`,
);
