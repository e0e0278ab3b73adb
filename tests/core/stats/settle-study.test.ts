// The scheduler on the study's recorded Llama-2-70B outcomes (6 models, 80 questions × 2 turns): it must reach the
// full plan's rank certainty (every interval inside it, no wider in total) with at most half its calls.
import { describe, expect, it } from 'vitest';
import { fitRanks, nextRound } from '../../../src/core/stats/settle.ts';
import { JUDGE_LLAMA2_DIR, skipWhy } from '../../support/materials.ts';
import { studySix } from '../../support/study-six.ts';

const why = skipWhy('settle-study', JUDGE_LLAMA2_DIR ? undefined : 'JUDGE_LLAMA2_DIR is not set');

const study = () => studySix(JUDGE_LLAMA2_DIR!);

describe.skipIf(!!why)('nextRound on the study six', () => {
  it('reaches the full plan rank intervals with at most half of its matches', { timeout: 60_000 }, () => {
    const { matches, models, battles } = study();
    expect(matches).toHaveLength(2400);
    const full = fitRanks(models, battles(matches.map((m) => m.key)), 0.95)!.ranks;
    // the figures for the full plan: gpt-4 1-2, claude-v1 1-3, gpt-3.5-turbo 2-4, vicuna 3-4, alpaca 5, llama 6
    const at = (m: string) => full.find((r) => r.model === m)!;
    expect([at('gpt-4'), at('claude-v1'), at('gpt-3.5-turbo'), at('vicuna-13b-v1.2')]).toMatchObject([
      { best: 1, worst: 2 },
      { best: 1, worst: 3 },
      { best: 2, worst: 4 },
      { best: 3, worst: 4 },
    ]);
    const played = new Set<string>();
    let step;
    for (;;) {
      step = nextRound({ models, matches, played, battles: battles(played), round: 240 });
      if (step.stop) break;
      for (const k of step.next) played.add(k);
    }
    expect(step.stop).toBe('futile');
    expect(played.size / matches.length).toBeLessThanOrEqual(0.5);
    const width = (r: typeof full) => r.reduce((s, x) => s + x.worst - x.best, 0);
    expect(width(step.ranks!)).toBeLessThanOrEqual(width(full));
    step.ranks!.forEach((r, k) => {
      expect(r.best).toBeGreaterThanOrEqual(full[k]!.best);
      expect(r.worst).toBeLessThanOrEqual(full[k]!.worst);
    });
  });
});
