// `arena checkpoints run --dry-run`: the games a checkpoints config would play and what they would cost,
// computed on a throw-away copy of the database (importing and planning change nothing).
import { randomUUID } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planRun } from '../engine/run.ts';
import { importFiles } from '../importers/import.ts';
import type { JudgeProvider } from '../judges/judge.ts';
import { openSqliteStore } from '../storage/sqlite.ts';
import { loadCheckpointsConfig } from './checkpoints.ts';
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
  const scratch = join(tmpdir(), `arena-ckpt-dry-${randomUUID()}.db`);
  if (c.db !== ':memory:' && existsSync(c.db)) {
    const src = openSqliteStore(c.db);
    src.sqlite.prepare('VACUUM INTO ?').run(scratch);
    await src.close();
  }
  const store = openSqliteStore(scratch);
  try {
    await importFiles(store, { questions: c.questions, references: c.references, prompts: c.prompts, answers: [c.baseline.answers, ...c.checkpoints.flatMap((k) => (k.answers ? [k.answers] : []))] });
    const withAnswers = c.checkpoints.filter((k) => k.answers);
    const models = withAnswers.map((k) => k.model ?? `${c.series}@${k.name}`);
    const lines: CheckpointsPlanLine[] = [];
    for (const j of c.judges) {
      // planning needs only the judge's id: nothing is called
      const judge: JudgeProvider = { id: j.id, complete: () => Promise.reject(new Error('a dry run calls no judge')) };
      const price = priceFor(j.id, { price: j.price });
      const tokens = calibrate(await store.tokenTotals(j.id), { charsPerToken: c.estimate?.charsPerToken ?? 4, outputTokens: c.estimate?.outputTokens ?? c.settings.maxTokens });
      const { games } = models.length
        ? await planRun({ store, judge, mode: 'pairwise-baseline', models, baseline: c.baseline.model, ...(c.questionIds ? { questionIds: c.questionIds } : {}), turns: c.turns, ...(c.promptSet ? { promptSet: c.promptSet } : {}), referenceSource: c.referenceSource, settings: c.settings })
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
    for (const f of [scratch, `${scratch}-wal`, `${scratch}-shm`]) rmSync(f, { force: true });
  }
}
