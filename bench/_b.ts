import { league, fitOf } from '../tests/support/league-sim.ts';
import { rankCertaintyBound } from '../src/core/stats/settle-bound.ts';
const n = Number(process.argv[2] ?? 6), spread = Number(process.argv[3] ?? 2);
for (const seed of [1, 2, 3]) {
  const l = league(n, seed, { spread });
  const t0 = performance.now();
  const b = rankCertaintyBound(l.models, l.matches, [...l.outcome.values()], 0.95);
  console.log(n, spread, seed, JSON.stringify(b), Math.round(performance.now() - t0), 'ms');
}
import { fitRanks } from '../src/core/stats/settle.ts';
for (const seed of [1,2,3]) { const l = league(n, seed, { spread }); console.log('c', fitRanks(l.models, [...l.outcome.values()], 0.95)!.critical); }
