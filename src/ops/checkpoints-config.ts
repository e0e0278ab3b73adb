// The checkpoints config (`arena checkpoints`): the fine-tuning run's checkpoints, each with answers imported
// or generated, the baseline and the judges; with the generation temperatures and the series' tournament
// that the plan and the run share.
import { z } from 'zod';
import { DEFAULT_REFERENCE_SOURCE } from '../core/constants.ts';
import {
  expandVariable,
  JudgeConfig,
  loadJsonConfig,
  refuseDatabaseTarget,
  resolvePath,
  SettleBaseline,
} from './config.ts';

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
  /** play the checkpoints' matches in rounds, each stopping once decided against the baseline (see config.ts) */
  untilSettled: SettleBaseline.optional(),
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

/** Load a checkpoints config: paths as `loadRefreshConfig` takes them (`${NAME}` from `env`, then relative to the file). */
export function loadCheckpointsConfig(file: string, env: Record<string, string | undefined> = {}) {
  const l = loadJsonConfig(file, CheckpointsConfig);
  const c = l.config;
  const at = (p: string) => resolvePath(file, expandVariable(file, p, env));
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
  refuseDatabaseTarget(l, ['chart'], c.chart, c.db);
  return l;
}

/** The model name a checkpoint's answers are stored under. */
export const modelOf = (c: CheckpointsConfig, k: CheckpointsConfig['checkpoints'][number]) =>
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
