// `arena checkpoints`: the checkpoints of one fine-tuning run, each with answers imported or generated
// (an OpenAI-compatible endpoint serving it, or in-process through node-llama-cpp: GGUF + optional LoRA),
// judged against a baseline by one or more judges; report per checkpoint and judge, and a chart.
import { setMaxListeners } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import pLimit from 'p-limit';
import { z } from 'zod';
import { seriesReport, type CheckpointRow } from '../core/stats/checkpoints.ts';
import { ArenaError, type Answer, type Question } from '../core/types.ts';
import { runTournament, type RunProgress } from '../engine/run.ts';
import type { Liveness } from '../engine/play/index.ts';
import { judgeData } from '../reports/results.ts';
import { llamaCppGenerator } from '../generators/llama-cpp.ts';
import { openaiGenerator } from '../generators/openai.ts';
import { ensureRunPrompts } from '../importers/builtin.ts';
import { importFiles } from '../importers/import.ts';
import { authStopError } from '../judges/auth-stop.ts';
import type { JudgeCallError } from '../judges/judge.ts';
import { apiKeyOf } from '../judges/registry.ts';
import type { CheckpointGeneration, Store } from '../storage/store.ts';
import { checkpointChart } from '../reports/charts.ts';
import { JudgeConfig, loadJsonConfig, resolvePath, type Loaded } from './config.ts';
import type { OpenJudge } from './deps.ts';
import { Budget, calibrate, costOf, estimateCost, priceFor } from './prices.ts';
import { DEFAULT_REFERENCE_SOURCE } from '../core/constants.ts';

/** FastChat's gen_model_answer temperatures per category (temperature_config); other categories get 0.7. */
export const CATEGORY_TEMPERATURES: Record<string, number> = {
  writing: 0.7,
  roleplay: 0.7,
  extraction: 0.0,
  math: 0.0,
  coding: 0.0,
  reasoning: 0.0,
  stem: 0.1,
  humanities: 0.1,
  'arena-hard-200': 0.0,
};
export const DEFAULT_TEMPERATURE = 0.7;

const Checkpoint = z
  .strictObject({
    name: z.string().min(1),
    step: z.number().int().nonnegative(),
    /** the model name its answers are stored under (default "<series>@<name>") */
    model: z.string().min(1).optional(),
    /** answers in model_answer JSONL shape */
    answers: z.string().min(1).optional(),
    /** an OpenAI-compatible server serving this checkpoint */
    endpoint: z
      .strictObject({ baseURL: z.url(), model: z.string().min(1), apiKeyEnv: z.string().optional() })
      .optional(),
    /** in-process through node-llama-cpp: a GGUF model, plus this checkpoint's LoRA adapter */
    gguf: z.string().min(1).optional(),
    lora: z.string().min(1).optional(),
  })
  .refine((c) => [c.answers, c.endpoint, c.gguf].filter((x) => x !== undefined).length === 1, {
    message: 'give exactly one of answers, endpoint or gguf',
  });

export const CheckpointsConfig = z.strictObject({
  $comment: z.union([z.string(), z.array(z.string())]).optional(),
  db: z.string().min(1),
  /** the fine-tuning run's name */
  series: z.string().min(1),
  questions: z.array(z.string().min(1)).min(1),
  references: z.array(z.string().min(1)).default([]),
  prompts: z.array(z.string().min(1)).default([]),
  questionIds: z.array(z.number().int()).optional(),
  turns: z.array(z.number().int().min(1).max(2)).default([1, 2]),
  baseline: z.strictObject({ model: z.string().min(1), answers: z.string().min(1) }),
  checkpoints: z.array(Checkpoint).min(1),
  judges: z.array(JudgeConfig).min(1),
  generation: z
    .strictObject({
      maxTokens: z.number().int().positive().default(1024),
      concurrency: z.number().int().positive().default(4),
      /** overrides of the per-category temperatures */
      temperatures: z.record(z.string(), z.number().min(0).max(2)).default({}),
      /** node-llama-cpp: CPU threads (default 1), context size, sampling seed */
      threads: z.number().int().positive().default(1),
      contextSize: z.number().int().positive().default(2048),
      seed: z.number().int().default(42),
    })
    .default({ maxTokens: 1024, concurrency: 4, temperatures: {}, threads: 1, contextSize: 2048, seed: 42 }),
  settings: z
    .strictObject({
      temperature: z.number().min(0).max(2).default(0),
      maxTokens: z.number().int().positive().default(2048),
    })
    .default({ temperature: 0, maxTokens: 2048 }),
  promptSet: z.string().optional(),
  referenceSource: z.string().default(DEFAULT_REFERENCE_SOURCE),
  parser: z.enum(['last', 'fastchat']).default('last'),
  budget: z.strictObject({ maxUsd: z.number().nonnegative() }).optional(),
  /** the dry run's cost estimate before a judge has stored games: characters per input token, output tokens per game (default: settings.maxTokens) */
  estimate: z
    .strictObject({
      charsPerToken: z.number().positive().default(4),
      outputTokens: z.number().positive().optional(),
    })
    .optional(),
  /** where the win-rate chart (SVG) is written */
  chart: z.string().min(1).optional(),
  /** bootstrap resamples for the intervals */
  resamples: z.number().int().min(100).default(2000),
});
export type CheckpointsConfig = z.infer<typeof CheckpointsConfig>;

export function loadCheckpointsConfig(file: string) {
  const l = loadJsonConfig(file, CheckpointsConfig);
  const c = l.config;
  const at = (p: string) => resolvePath(file, p);
  c.db = c.db === ':memory:' ? c.db : at(c.db);
  c.questions = c.questions.map(at);
  c.references = c.references.map(at);
  c.prompts = c.prompts.map(at);
  c.baseline.answers = at(c.baseline.answers);
  for (const k of c.checkpoints) {
    if (k.answers) k.answers = at(k.answers);
    if (k.gguf) k.gguf = at(k.gguf);
    if (k.lora) k.lora = at(k.lora);
  }
  if (c.chart) c.chart = at(c.chart);
  return l;
}

const modelOf = (c: CheckpointsConfig, k: CheckpointsConfig['checkpoints'][number]) =>
  k.model ?? `${c.series}@${k.name}`;

export function temperatureFor(category: string, overrides: Record<string, number> = {}): number {
  return overrides[category] ?? CATEGORY_TEMPERATURES[category] ?? DEFAULT_TEMPERATURE;
}

/** The series' tournament as the plan and the run both play it: every checkpoint's model against the baseline. */
export function seriesTournament(c: CheckpointsConfig, models: string[]) {
  return {
    mode: 'pairwise-baseline' as const,
    models,
    baseline: c.baseline.model,
    ...(c.questionIds ? { questionIds: c.questionIds } : {}),
    turns: c.turns,
    ...(c.promptSet ? { promptSet: c.promptSet } : {}),
    referenceSource: c.referenceSource,
    settings: c.settings,
  };
}

/** Records checkpoint `k` of the series under `model`, with how its answers came to be. */
function saveCheckpoint(
  store: Store,
  c: CheckpointsConfig,
  k: CheckpointsConfig['checkpoints'][number],
  model: string,
  generation: CheckpointGeneration,
) {
  return store.saveCheckpoint({
    series: c.series,
    name: k.name,
    step: k.step,
    model,
    baseline: c.baseline.model,
    generation,
  });
}

export interface CheckpointsOptions {
  store: Store;
  /** opens the judges of the config (the CLI: src/cli/ops-context.ts) */
  judges: OpenJudge;
  /** the checkpoints config, checked, with its paths resolved (loadCheckpointsConfig) */
  config: Loaded<CheckpointsConfig>;
  log?(m: string): void;
  onProgress?(p: { stage: string; done: number; total: number }): void;
  signal?: AbortSignal;
  /** who plays: this process as the runs' owner, and whether another run's owner is alive (the CLI: src/cli/liveness.ts) */
  liveness?: Liveness;
}

/** Generate what is missing (answers are stored one question at a time, so a rerun resumes), then judge. */
export async function runCheckpoints(
  o: CheckpointsOptions,
): Promise<{ generated: number; played: number; failed: number; cost: number; skipped: number }> {
  const log = o.log ?? (() => {});
  const c = o.config.config;
  for (const j of c.judges) apiKeyOf(j, process.env); // a missing key is said before anything is generated
  // the first 401/403 of any judge stops the whole run: no retries, no further calls, one message
  let refused: JudgeCallError | undefined;
  const authStop = new AbortController();
  o = { ...o, signal: o.signal ? AbortSignal.any([o.signal, authStop.signal]) : authStop.signal };
  setMaxListeners(0, o.signal!);
  const store = o.store;
  let generated = 0;
  await importFiles(store, {
    questions: c.questions,
    references: c.references,
    prompts: c.prompts,
    answers: [c.baseline.answers, ...c.checkpoints.flatMap((k) => (k.answers ? [k.answers] : []))],
  });
  await ensureRunPrompts(store, ['pairwise-baseline'], c.promptSet);
  let questions: Question[] = await store.listQuestions();
  if (c.questionIds) questions = questions.filter((q) => c.questionIds!.includes(q.id));
  const maxTurn = Math.max(...c.turns);
  for (const k of c.checkpoints) {
    const model = modelOf(c, k);
    if (k.answers) {
      const fileModel = k.answers.replace(/^.*[\\/]/, '').replace(/\.jsonl$/, '');
      if (fileModel !== model)
        throw new ArenaError(
          `[ops:checkpoints] checkpoint "${k.name}": answers are stored under the file's name "${fileModel}"; set "model": "${fileModel}"`,
        );
      await saveCheckpoint(store, c, k, model, { kind: 'imported', file: k.answers });
      continue;
    }
    const temperatures = Object.fromEntries(
      [...new Set(questions.map((q) => q.category))]
        .sort()
        .map((cat) => [cat, temperatureFor(cat, c.generation.temperatures)]),
    );
    const generation: CheckpointGeneration = k.endpoint
      ? {
          kind: 'openai',
          baseURL: k.endpoint.baseURL,
          model: k.endpoint.model,
          maxTokens: c.generation.maxTokens,
          temperatures,
        }
      : {
          kind: 'llama-cpp',
          gguf: k.gguf!,
          lora: k.lora ?? null,
          maxTokens: c.generation.maxTokens,
          seed: c.generation.seed,
          temperatures,
        };
    await saveCheckpoint(store, c, k, model, generation);
    const have = new Set((await store.listAnswers([model])).map((a) => a.questionId));
    const todo = questions.filter((q) => !have.has(q.id));
    if (!todo.length) continue;
    log(`${k.name}: generating answers to ${todo.length} questions (${generation.kind})`);
    const gen = k.endpoint
      ? openaiGenerator({
          baseURL: k.endpoint.baseURL,
          model: k.endpoint.model,
          apiKey: (k.endpoint.apiKeyEnv && process.env[k.endpoint.apiKeyEnv]) || undefined,
          maxTokens: c.generation.maxTokens,
        })
      : await llamaCppGenerator({
          gguf: k.gguf!,
          lora: k.lora,
          maxTokens: c.generation.maxTokens,
          threads: c.generation.threads,
          contextSize: c.generation.contextSize,
          seed: c.generation.seed,
        });
    try {
      const limit = pLimit(gen.concurrency ?? c.generation.concurrency);
      let done = 0;
      await Promise.all(
        todo.map((q) =>
          limit(async () => {
            if (o.signal?.aborted) return;
            const temperature = temperatureFor(q.category, c.generation.temperatures);
            const replies: string[] = [];
            for (let i = 0; i < Math.min(q.turns.length, maxTurn); i++)
              replies.push(await gen.generate(q.turns.slice(0, i + 1), replies, temperature));
            const a: Answer = {
              model,
              questionId: q.id,
              turns: replies,
              answerId: `${c.series}@${k.name}:t=${temperature}`,
            };
            await store.importBundle({
              answers: [{ source: `generated:${c.series}@${k.name}`, items: [a] }],
            });
            generated++;
            o.onProgress?.({ stage: `generate ${k.name}`, done: ++done, total: todo.length });
          }),
        ),
      );
    } finally {
      await gen.close();
    }
    if (o.signal?.aborted) break;
  }
  // judge every checkpoint against the baseline, per judge
  const models = c.checkpoints.map((k) => modelOf(c, k));
  const budget = c.budget ? new Budget(c.budget.maxUsd) : undefined;
  let played = 0;
  let failed = 0;
  let cost = 0;
  let skipped = 0;
  for (const j of c.judges) {
    if (o.signal?.aborted) break;
    const judge = await o.judges(j, {
      onAuthFailure: (e) => ((refused = e), setImmediate(() => authStop.abort(e))),
    });
    const price = priceFor(judge.id, { price: j.price });
    const tokens = calibrate(await store.tokenTotals(judge.id), {
      charsPerToken: 4,
      outputTokens: c.settings.maxTokens,
    });
    try {
      const r = await runTournament({
        store,
        judge,
        ...seriesTournament(c, models),
        parser: c.parser,
        concurrency: j.concurrency,
        costOf: (tin, tout) => costOf(price, tin, tout),
        ...(budget ? { budget: budget.gate((_id, spec) => estimateCost(spec, tokens, price)) } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
        onProgress: (p: RunProgress) =>
          o.onProgress?.({ stage: `judge ${judge.id}`, done: p.done + p.failed, total: p.total }),
        ...o.liveness,
      });
      played += r.played;
      failed += r.failed;
      skipped += r.skipped;
      cost += r.cost ?? 0;
      log(`${judge.id}: ${r.played} played, ${r.failed} failed, ${r.planned - r.toPlay} already stored`);
    } finally {
      await judge.close?.();
    }
  }
  if (refused) throw authStopError(refused, `the judge's apiKeyEnv and baseURL in ${o.config.file}`);
  return { generated, played, failed, cost, skipped };
}

export interface CheckpointsReport {
  series: string;
  baseline: string;
  checkpoints: { name: string; step: number; model: string; generation: unknown }[];
  rows: CheckpointRow[];
  best: Record<string, string>;
}

/** The report from what is stored: per judge and checkpoint, win rate vs the baseline and paired differences. */
export async function checkpointsReport(o: {
  store: Store;
  judges: OpenJudge;
  config: Loaded<CheckpointsConfig>;
}): Promise<CheckpointsReport> {
  const c = o.config.config;
  const store = o.store;
  const stored = await store.listCheckpoints(c.series);
  const infos = c.checkpoints.map((k) => {
    const s = stored.find((r) => r.name === k.name);
    return { name: k.name, step: k.step, model: modelOf(c, k), generation: s ? s.generation : null };
  });
  const byJudge = [];
  const qs = c.questionIds ? new Set(c.questionIds) : undefined;
  for (const j of c.judges) {
    const judge = j.id.startsWith('llama-cpp/') ? await judgeIdOf(o.judges, j) : j.id;
    const { outcomes } = await judgeData(store, judge);
    byJudge.push({
      judge,
      outcomes: outcomes.filter((x) => c.turns.includes(x.turn) && (!qs || qs.has(x.questionId))),
    });
  }
  const { rows, best } = seriesReport(byJudge, infos, c.baseline.model, { resamples: c.resamples });
  return { series: c.series, baseline: c.baseline.model, checkpoints: infos, rows, best };
}

/** A local judge's id names its model file's content: open it (only to plan) to read the id. */
async function judgeIdOf(open: OpenJudge, j: JudgeConfig): Promise<string> {
  const judge = await open(j, { planOnly: true });
  try {
    return judge.id;
  } finally {
    await judge.close?.();
  }
}

/** Win rate against step, one line per judge with its interval as a band (the site draws the same chart). */
export async function renderChart(
  report: CheckpointsReport,
  o: { width?: number; height?: number } = {},
): Promise<string> {
  return checkpointChart(report, { title: true, ...o });
}

export function writeChart(file: string, svg: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, svg);
}
