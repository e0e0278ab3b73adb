// The checkpoints config (`arena checkpoints`): the checkpoints with their answers, the baseline and the judges,
// the generation temperatures and the series' tournament that the plan and the run share.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ArenaError, type Question } from '../core/types.ts';
import type { ImportBundle } from '../storage/store.ts';
import {
  INPUTS,
  JudgeConfig,
  JUDGING,
  loadJsonConfig,
  refuseDatabaseTarget,
  resolveInputs,
  SettleBaseline,
  tournamentOf,
  type Loaded,
} from './config.ts';
import { jsonLines } from '../importers/json-spans.ts';

/** FastChat's gen_model_answer temperatures per category (temperature_config); other categories get 0.7. */
const CATEGORY_TEMPERATURES: Record<string, number> = {
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
const DEFAULT_TEMPERATURE = 0.7;

export const Checkpoint = z
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
  ...INPUTS,
  /** the fine-tuning run's name */
  series: z.string().min(1),
  questionIds: z.array(z.number().int()).optional(),
  turns: z.array(z.number().int().min(1).max(2)).default([1, 2]),
  baseline: z.strictObject({ model: z.string().min(1), answers: z.string().min(1) }),
  /** may start empty: checkpoints come later (`arena checkpoints add`, or files in `watch.dir`) */
  checkpoints: z.array(Checkpoint).default([]),
  /**
   * a directory where checkpoints appear as files, each matching `pattern` named after it, its step the first
   * group: an answers file, or with `gguf` a LoRA adapter on that base model
   */
  watch: z
    .strictObject({
      dir: z.string().min(1),
      pattern: z.string().refine(isStepPattern, {
        message: 'a regular expression with a group that captures the step, e.g. "^step-(\\d+)\\.jsonl$"',
      }),
      gguf: z.string().min(1).optional(),
    })
    .optional(),
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
  ...JUDGING,
  budget: z.strictObject({ maxUsd: z.number().nonnegative() }).optional(),
  /** the dry run's cost estimate before a judge has stored games: characters per input token, output tokens per game (default: TYPICAL_JUDGMENT_TOKENS, at most settings.maxTokens) */
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

function isStepPattern(p: string): boolean {
  try {
    return new RegExp(`${p}|`).exec('')!.length > 1;
  } catch {
    return false;
  }
}

/**
 * Load a checkpoints config (paths as `loadRefreshConfig` takes them); the files in `watch.dir` come after the
 * list. A duplicate name, step or model in the list is an error; such a file is left out (`refused`). `text`:
 * check this text as the file's.
 */
export function loadCheckpointsConfig(
  file: string,
  env: Record<string, string | undefined> = {},
  text?: string,
): LoadedCheckpoints {
  const l = loadJsonConfig(file, CheckpointsConfig, text);
  const c = l.config;
  const at = resolveInputs(file, c, env);
  c.baseline.answers = at(c.baseline.answers);
  for (const k of c.checkpoints) {
    if (k.answers) k.answers = at(k.answers);
    if (k.gguf) k.gguf = at(k.gguf);
    if (k.lora) k.lora = at(k.lora);
  }
  if (c.chart) c.chart = at(c.chart);
  refuseDatabaseTarget(l, ['chart'], c.chart, c.db);
  if (c.watch) {
    c.watch.dir = at(c.watch.dir);
    if (c.watch.gguf) c.watch.gguf = at(c.watch.gguf);
  }
  const listed = c.checkpoints.length;
  if (c.watch) c.checkpoints.push(...watchedCheckpoints(file, c.watch));
  return { ...l, refused: refuseDuplicates(l, listed) };
}

/** A loaded checkpoints config, and the files in watch.dir left out of it, each with why (for the caller to say). */
export interface LoadedCheckpoints extends Loaded<CheckpointsConfig> {
  refused: string[];
}

/** The checkpoints that are files in the watched directory, by step (none while the directory does not exist). */
function watchedCheckpoints(file: string, w: NonNullable<CheckpointsConfig['watch']>) {
  let names: string[];
  try {
    names = readdirSync(w.dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new ArenaError(`${file}: field "watch.dir": cannot read ${w.dir} (${(e as Error).message})`, {
      file,
      field: 'watch.dir',
    });
  }
  const re = new RegExp(w.pattern);
  const out: CheckpointsConfig['checkpoints'] = [];
  for (const name of names.sort()) {
    const m = re.exec(name);
    if (!m) continue;
    const step = Number(m[1]);
    if (!/^\d+$/.test(m[1] ?? '') || !Number.isSafeInteger(step))
      throw new ArenaError(
        `${file}: field "watch.pattern": ${join(w.dir, name)} matches, but its step "${m[1] ?? ''}" is not a whole number`,
        { file, field: 'watch.pattern' },
      );
    const stem = name.replace(/\.[^.]*$/, '');
    const path = join(w.dir, name);
    out.push(
      w.gguf
        ? { name: stem, step, gguf: w.gguf, lora: path }
        : { name: stem, step, model: stem, answers: path },
    );
  }
  return out.sort((a, b) => a.step - b.step);
}

type Checkpoint = CheckpointsConfig['checkpoints'][number];

/**
 * Two checkpoints with one name, step or model: in the list the config's error; a file in watch.dir that collides
 * is left out, with why (a stray file must not stop a watcher), all colliding files alike, whatever their order.
 */
function refuseDuplicates(l: Loaded<CheckpointsConfig>, listed: number): string[] {
  const c = l.config;
  const keys = (k: Checkpoint) =>
    [
      ['name', JSON.stringify(k.name)],
      ['step', String(k.step)],
      ['model', JSON.stringify(modelOf(c, k))],
    ] as const;
  const seen = new Map<string, number>();
  c.checkpoints.slice(0, listed).forEach((k, i) => {
    for (const [field, value] of keys(k)) {
      const first = seen.get(`${field}\0${value}`);
      if (first === undefined) {
        seen.set(`${field}\0${value}`, i);
        continue;
      }
      const lines = jsonLines(l.text);
      const line =
        lines.get(JSON.stringify(['checkpoints', i, field])) ?? lines.get(JSON.stringify(['checkpoints', i]));
      throw new ArenaError(
        `${l.file}${line ? `:${line}` : ''}: checkpoints[${i}] has the ${field} ${value} of checkpoints[${first}]; each checkpoint needs its own name, step and model`,
        { file: l.file, ...(line ? { line } : {}), field: `checkpoints.${field}` },
      );
    }
  });
  const files = c.checkpoints.slice(listed);
  const fileOf = (k: Checkpoint) => (k.answers ?? k.lora)!;
  const byKey = new Map<string, Checkpoint[]>();
  for (const k of files)
    for (const [field, value] of keys(k))
      byKey.set(`${field}\0${value}`, [...(byKey.get(`${field}\0${value}`) ?? []), k]);
  const refused = new Set<string>();
  const kept = files.filter((k) => {
    for (const [field, value] of keys(k)) {
      const key = `${field}\0${value}`;
      const inList = seen.get(key);
      if (inList !== undefined) {
        refused.add(
          `${fileOf(k)} (watch.dir) has the ${field} ${value} of checkpoints[${inList}] in ${l.file}: it is not a checkpoint while it does`,
        );
        return false;
      }
      const same = byKey.get(key)!.map(fileOf).sort();
      if (same.length > 1) {
        refused.add(
          `${same.slice(0, -1).join(', ')} and ${same.at(-1)} ${same.length > 2 ? 'all' : 'both'} have the ${field} ${value}: none of them is a checkpoint until one is left (each checkpoint needs its own name, step and model)`,
        );
        return false;
      }
    }
    return true;
  });
  c.checkpoints = [...c.checkpoints.slice(0, listed), ...kept];
  return [...refused];
}

/** An answers file must answer every question of the series: a partial one is still being written, or failed. */
export function refuseMissingAnswers(
  c: CheckpointsConfig,
  k: Checkpoint,
  questions: Question[],
  answers: NonNullable<ImportBundle['answers']>,
): void {
  const model = modelOf(c, k);
  const turns = new Map(
    answers.flatMap((a) =>
      a.items.filter((x) => x.model === model).map((x) => [x.questionId, x.turns.length]),
    ),
  );
  const maxTurn = Math.max(...c.turns);
  const missing = questions.filter((q) => (turns.get(q.id) ?? 0) < Math.min(q.turns.length, maxTurn));
  if (!missing.length) return;
  const ids = missing.slice(0, 8).map((q) => q.id);
  throw new ArenaError(
    `${k.answers}: answers of "${model}" miss question ${ids.join(', ')}${missing.length > 8 ? ` and ${missing.length - 8} more` : ''} (each checkpoint answers every question of the series, every turn judged)`,
    { file: k.answers!, field: 'question_id' },
  );
}

/** The model name a checkpoint's answers are stored under. */
export const modelOf = (c: CheckpointsConfig, k: CheckpointsConfig['checkpoints'][number]) =>
  k.model ?? `${c.series}@${k.name}`;

/** The config's answers files, each stored under the model the config names for it (not a name read from it). */
export function answersSources(c: CheckpointsConfig): {
  answers: string[];
  answerModels: Record<string, string>;
} {
  const files: [string, string][] = [
    [c.baseline.answers, c.baseline.model],
    ...c.checkpoints.flatMap((k): [string, string][] => (k.answers ? [[k.answers, modelOf(c, k)]] : [])),
  ];
  return { answers: files.map(([f]) => f), answerModels: Object.fromEntries(files) };
}

export function temperatureFor(category: string, overrides: Record<string, number> = {}): number {
  return overrides[category] ?? CATEGORY_TEMPERATURES[category] ?? DEFAULT_TEMPERATURE;
}

/** The series' tournament as the plan and the run both play it: every checkpoint's model against the baseline. */
export function seriesTournament(c: CheckpointsConfig, models: string[]) {
  return {
    mode: 'pairwise-baseline' as const,
    models,
    baseline: c.baseline.model,
    ...tournamentOf(c),
  };
}
