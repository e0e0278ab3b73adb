// Bench: sandwich (robust CLT) intervals against the question bootstrap (1,000 refits) for
// Bradley–Terry, in the same run, on question-clustered battles: MT-Bench's shape (6 models, 80
// questions, 15 pairs × 2 turns × 2 orders per question) and a larger one (30 models, 500 questions).
//
//   node --import tsx bench/intervals.ts [--rounds 1000] [--repeats 3]
//
// Prints measured figures only (best of the repeats, and the ratio); no pass/fail.
import { battleTable, type ClusteredBattle } from '../src/core/stats/battle-table.ts';
import { bootstrapBradleyTerry } from '../src/core/stats/rating-bootstrap.ts';
import { normal, seededRng } from '../src/core/stats/random.ts';
import { sandwichBradleyTerry } from '../src/core/stats/sandwich.ts';

const arg = (name: string, def: number) => {
  const k = process.argv.indexOf(`--${name}`);
  return k < 0 ? def : Number(process.argv[k + 1]);
};
const ROUNDS = arg('rounds', 1000);
const REPEATS = arg('repeats', 3);

function tournament(models: number, questions: number, seed: number): ClusteredBattle[] {
  const rng = seededRng(seed);
  const theta = Array.from({ length: models }, () => 0.6 * normal(rng));
  const out: ClusteredBattle[] = [];
  for (let q = 0; q < questions; q++) {
    const effect = theta.map(() => 0.7 * normal(rng));
    for (let a = 0; a < models; a++)
      for (let b = a + 1; b < models; b++) {
        const p = 1 / (1 + Math.exp(-(Math.LN10 * (theta[a]! - theta[b]!) + effect[a]! - effect[b]!)));
        for (let g = 0; g < 4; g++)
          out.push({ cluster: q, a: `m${a}`, b: `m${b}`, score: rng() < 0.2 ? 0.5 : rng() < p ? 1 : 0 });
      }
  }
  return out;
}

function best(f: () => unknown): number {
  let min = Infinity;
  for (let r = 0; r < REPEATS; r++) {
    const t0 = performance.now();
    f();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

for (const [name, models, questions] of [
  ['MT-Bench shape', 6, 80],
  ['larger', 30, 500],
] as const) {
  const battles = tournament(models, questions, 7);
  const t = battleTable(battles);
  const boot = best(() => bootstrapBradleyTerry(t, { rounds: ROUNDS }));
  const sand = best(() => sandwichBradleyTerry(t));
  const b = bootstrapBradleyTerry(t, { rounds: ROUNDS });
  const s = sandwichBradleyTerry(t);
  let widthRatio = 0;
  for (const r of b.rows) {
    const x = s.rows.find((y) => y.model === r.model)!;
    widthRatio += (x.hi! - x.lo!) / (r.hi! - r.lo!) / b.rows.length;
  }
  console.log(
    `${name} (${models} models, ${questions} questions, ${battles.length} battles): bootstrap ${ROUNDS} rounds ${boot.toFixed(1)} ms, sandwich ${sand.toFixed(1)} ms (${(boot / sand).toFixed(1)}x faster); sandwich/bootstrap interval width ${widthRatio.toFixed(3)} on average`,
  );
}
