// `arena checkpoints run --dry-run`: the games a checkpoints config would play and what they would cost,
// planned on a view of the database with the config's import applied (src/storage/pending.ts): nothing is written.
import { existsSync } from 'node:fs';
import { planRun } from '../engine/run.ts';
import { missingRunPrompts } from '../importers/builtin.ts';
import { readImport } from '../importers/import.ts';
import type { JudgeProvider } from '../judges/judge.ts';
import { pendingView } from '../storage/pending.ts';
import { openMemoryStore, openSqliteStore } from '../storage/sqlite.ts';
import { loadCheckpointsConfig } from './checkpoints.ts';
import { tokenTotals } from './ledger.ts';
import { calibrate, estimateCost, estimateTokens, priceFor } from './prices.ts';

export interface CheckpointsPlanLine {
  judge: string;
  /** games the config asks for (checkpoints with answers) */
  planned: number;
  stored: number;
  toPlay: number;
  estTokensIn: number;
  estTokensOut: number;
  estCost: number;
  /** USD per 1M tokens in / out */
  price: { input: number; output: number };
  basis: string;
}

export interface CheckpointsPlan {
  series: string;
  baseline: string;
  checkpoints: { name: string; step: number; model: string; answers: 'file' | 'to generate' }[];
  lines: CheckpointsPlanLine[];
  toPlay: number;
  estCost: number;
}

export async function planCheckpoints(configFile: string): Promise<CheckpointsPlan> {
  const { config: c } = loadCheckpointsConfig(configFile);
  // the database as it is (an empty one when the file does not exist yet)
  const store = existsSync(c.db) ? openSqliteStore(c.db) : openMemoryStore();
  try {
    const { bundle } = await readImport(store, { questions: c.questions, references: c.references, prompts: c.prompts, answers: [c.baseline.answers, ...c.checkpoints.flatMap((k) => (k.answers ? [k.answers] : []))] });
    const imported = pendingView(store, bundle);
    const reader = pendingView(imported, { prompts: await missingRunPrompts(imported, 'pairwise-baseline', c.promptSet) });
    const withAnswers = c.checkpoints.filter((k) => k.answers);
    const models = withAnswers.map((k) => k.model ?? `${c.series}@${k.name}`);
    const lines: CheckpointsPlanLine[] = [];
    for (const j of c.judges) {
      // planning needs only the judge's id: nothing is called
      const judge: JudgeProvider = { id: j.id, complete: () => Promise.reject(new Error('a dry run calls no judge')) };
      const price = priceFor(j.id, { price: j.price });
      const tokens = calibrate(await tokenTotals(store, j.id), { charsPerToken: c.estimate?.charsPerToken ?? 4, outputTokens: c.estimate?.outputTokens ?? c.settings.maxTokens });
      const { games } = models.length
        ? await planRun({ store: reader, judge, mode: 'pairwise-baseline', models, baseline: c.baseline.model, ...(c.questionIds ? { questionIds: c.questionIds } : {}), turns: c.turns, ...(c.promptSet ? { promptSet: c.promptSet } : {}), referenceSource: c.referenceSource, settings: c.settings })
        : { games: [] };
      const stored = await store.existingGameIds(games.map((g) => g.id));
      const todo = games.filter((g) => !stored.has(g.id));
      let tin = 0;
      let tout = 0;
      let cost = 0;
      for (const g of todo) {
        const t = estimateTokens(g.spec, tokens);
        tin += t.tokensIn;
        tout += t.tokensOut;
        cost += estimateCost(g.spec, tokens, price);
      }
      lines.push({ judge: j.id, planned: games.length, stored: stored.size, toPlay: todo.length, estTokensIn: tin, estTokensOut: Math.round(tout), estCost: cost, price: { input: price.input, output: price.output }, basis: tokens.basis });
    }
    return {
      series: c.series,
      baseline: c.baseline.model,
      checkpoints: c.checkpoints.map((k) => ({ name: k.name, step: k.step, model: k.model ?? `${c.series}@${k.name}`, answers: k.answers ? 'file' : 'to generate' })),
      lines,
      toPlay: lines.reduce((s, l) => s + l.toPlay, 0),
      estCost: lines.reduce((s, l) => s + l.estCost, 0),
    };
  } finally {
    await store.close();
  }
}
