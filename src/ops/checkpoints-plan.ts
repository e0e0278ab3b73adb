// `arena checkpoints run --dry-run`: the games a checkpoints config would play and their cost, planned on a view
// of the store with the config's import applied (src/storage/pending.ts): nothing is written.
import { TYPICAL_JUDGMENT_TOKENS } from '../core/constants.ts';
import { planRun } from '../engine/run.ts';
import { missingRunPrompts } from '../importers/builtin.ts';
import { readImport } from '../importers/import.ts';
import type { JudgeProvider } from '../judges/judge.ts';
import { plannedSettings } from '../judges/registry.ts';
import { pendingView } from '../storage/pending.ts';
import type { Store } from '../storage/store.ts';
import { answersSources, modelOf, seriesTournament, type CheckpointsConfig } from './checkpoints-config.ts';
import type { Loaded } from './config.ts';
import { calibrate, planEstimate, priceFor, type PlanEstimate } from './prices.ts';

/** `planned`: the games the config asks for (checkpoints with answers) */
interface CheckpointsPlanLine extends PlanEstimate {
  /** USD per 1M tokens in / out */
  price: { input: number; output: number };
}

export interface CheckpointsPlan {
  series: string;
  baseline: string;
  checkpoints: { name: string; step: number; model: string; answers: 'file' | 'to generate' }[];
  lines: CheckpointsPlanLine[];
  toPlay: number;
  estCost: number;
}

export async function planCheckpoints(o: {
  store: Store;
  config: Loaded<CheckpointsConfig>;
}): Promise<CheckpointsPlan> {
  const c = o.config.config;
  const store = o.store;
  const { bundle } = await readImport(store, {
    questions: c.questions,
    references: c.references,
    prompts: c.prompts,
    ...answersSources(c),
  });
  const imported = pendingView(store, bundle);
  const reader = pendingView(imported, {
    prompts: await missingRunPrompts(imported, 'pairwise-baseline', c.promptSet),
  });
  const withAnswers = c.checkpoints.filter((k) => k.answers);
  const models = withAnswers.map((k) => modelOf(c, k));
  const lines: CheckpointsPlanLine[] = [];
  for (const [k, j] of c.judges.entries()) {
    // planning needs only the judge's id and the settings it would send: nothing is called
    const settingsFor = plannedSettings(j);
    const judge: JudgeProvider = {
      id: j.id,
      complete: () => Promise.reject(new Error('a dry run calls no judge')),
      ...(settingsFor ? { settingsFor } : {}),
    };
    const price = priceFor(j.id, { price: j.price, required: !!c.budget, field: `judges[${k}].price` });
    const tokens = calibrate(await store.ledger.tokenTotals(j.id), {
      charsPerToken: c.estimate?.charsPerToken ?? 4,
      outputTokens: c.estimate?.outputTokens ?? Math.min(TYPICAL_JUDGMENT_TOKENS, c.settings.maxTokens),
    });
    const { games } = models.length
      ? await planRun({
          store: reader,
          judge,
          ...seriesTournament(c, models),
        })
      : { games: [] };
    const stored = await store.games.existingIds(games.map((g) => g.id));
    const todo = games.filter((g) => !stored.has(g.id));
    lines.push({
      ...planEstimate(j.id, games.length, stored.size, todo, tokens, price),
      price: { input: price.input, output: price.output },
    });
  }
  return {
    series: c.series,
    baseline: c.baseline.model,
    checkpoints: c.checkpoints.map((k) => ({
      name: k.name,
      step: k.step,
      model: modelOf(c, k),
      answers: k.answers ? 'file' : 'to generate',
    })),
    lines,
    toPlay: lines.reduce((s, l) => s + l.toPlay, 0),
    estCost: lines.reduce((s, l) => s + l.estCost, 0),
  };
}
