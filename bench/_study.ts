import { fitRanks, nextRound } from '../src/core/stats/settle.ts';
import { studySix } from '../tests/support/study-six.ts';
const design = process.argv[2] as 'variance' | 'width';
const { matches, models, battles } = studySix('/work/shared/judge_llama2');
const full = fitRanks(models, battles(matches.map((m) => m.key)), 0.95)!.ranks;
const played = new Set<string>();
let step;
for (;;) {
  step = nextRound({ models, matches, played, battles: battles(played), round: 240, design });
  if (step.stop) break;
  for (const k of step.next) played.add(k);
}
const width = (r: typeof full) => r.reduce((s, x) => s + x.worst - x.best, 0);
const inside = step.ranks!.every((r, k) => r.best >= full[k]!.best && r.worst <= full[k]!.worst);
console.log(design, step.stop, (100 * played.size / matches.length).toFixed(1) + '%', width(full), '->', width(step.ranks!), inside ? 'inside' : 'NOT inside');
