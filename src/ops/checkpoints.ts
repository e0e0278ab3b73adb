// `arena checkpoints`: the checkpoints of one fine-tuning run, each with answers imported or generated, judged
// against a baseline by one or more judges; report per checkpoint and judge, and a chart.
import { setMaxListeners } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import pLimit from 'p-limit';
import { seriesReport, type CheckpointRow } from '../core/stats/checkpoints.ts';
import { ArenaError, type Answer, type Question } from '../core/types.ts';
import type { Liveness } from '../engine/play/index.ts';
import { runTournament, type RunProgress, type RunSummary } from '../engine/run.ts';
import { runUntilSettled } from '../engine/settle.ts';
import { judgeData } from '../reports/results.ts';
import { llamaCppGenerator } from '../generators/llama-cpp.ts';
import { openaiGenerator } from '../generators/openai.ts';
import { ensureRunPrompts } from '../importers/builtin.ts';
import { modelFromFile } from '../importers/formats.ts';
import { readImport } from '../importers/import.ts';
import { fatalStopError } from '../judges/fatal-stop.ts';
import type { JudgeCallError } from '../judges/judge.ts';
import type { CheckpointGeneration, Store } from '../storage/store.ts';
import { checkpointChart } from '../reports/charts.ts';
import {
  answersSources,
  modelOf,
  refuseMissingAnswers,
  seriesTournament,
  temperatureFor,
  type CheckpointsConfig,
} from './checkpoints-config.ts';
import { settleOptions, type JudgeConfig, type Loaded } from './config.ts';
import type { Env, OpenJudge, Spill } from './deps.ts';
import { checkApiKeys } from '../judges/registry.ts';
import { Budget, calibrate, costOf, priceFor, upperBoundCost } from './prices.ts';

type CheckpointConfig = CheckpointsConfig['checkpoints'][number];

/** Records checkpoint `k` of the series under `model`, with how its answers came to be. */
function saveCheckpoint(
  store: Store,
  c: CheckpointsConfig,
  k: CheckpointConfig,
  model: string,
  generation: CheckpointGeneration,
) {
  return store.checkpoints.save({
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
  /** `failed` and `cost` (USD spent so far in this job, the figure its summary ends with) while judging */
  onProgress?(p: { stage: string; done: number; total: number; failed?: number; cost?: number }): void;
  signal?: AbortSignal;
  /** where the judges' and endpoints' API keys are read (the CLI: its process's); default none */
  env?: Env;
  /** who plays: this process as the runs' owner, and whether another run's owner is alive (the CLI: src/cli/liveness.ts) */
  liveness?: Liveness;
  /** where a run puts the replies it paid for but the database refused (a full disk: storage/recovery.ts) */
  spill?: Spill;
}

export interface CheckpointsRun {
  generated: number;
  played: number;
  failed: number;
  cost: number;
  skipped: number;
}

/** Generate what is missing (answers are stored one question at a time, so a rerun resumes), then judge. */
export async function runCheckpoints(o: CheckpointsOptions): Promise<CheckpointsRun> {
  const log = o.log ?? (() => {});
  const c = o.config.config;
  const env = o.env ?? {};
  checkApiKeys(c.judges, env); // a missing key is said before anything is generated
  // the first fatal refusal (401/403, a retired model, a refused parameter) of any judge stops the whole run: no retries, no further calls, one message
  let refused: JudgeCallError | undefined;
  const authStop = new AbortController();
  const onFatal = (e: JudgeCallError) => ((refused = e), setImmediate(() => authStop.abort(e)));
  o = { ...o, signal: o.signal ? AbortSignal.any([o.signal, authStop.signal]) : authStop.signal };
  setMaxListeners(0, o.signal!);
  if (!c.checkpoints.length) {
    log(`${o.config.file}: no checkpoints yet (add one with \`arena checkpoints add\`)`);
    return { generated: 0, played: 0, failed: 0, cost: 0, skipped: 0 };
  }
  const questions = await importInputs(o.store, c);
  let generated = 0;
  for (const k of c.checkpoints) {
    const todo = await prepareCheckpoint(o.store, c, k, questions);
    if (!todo) continue;
    log(`${k.name}: generating answers to ${todo.questions.length} questions (${todo.generation.kind})`);
    generated += await generateAnswers(o, c, k, todo.questions, env);
    if (o.signal?.aborted) break;
  }
  const judged = await judgeSeries(o, c, log, onFatal);
  if (refused) throw fatalStopError(refused, `the judge's apiKeyEnv and baseURL in ${o.config.file}`);
  return { generated, ...judged };
}

/** Imports the config's files and the prompts the tournament needs (a partial answers file refused first). */
async function importInputs(store: Store, c: CheckpointsConfig): Promise<Question[]> {
  const { bundle } = await readImport(store, {
    questions: c.questions,
    references: c.references,
    prompts: c.prompts,
    ...answersSources(c),
  });
  const byId = new Map((await store.catalog.questions()).map((q) => [q.id, q]));
  for (const q of bundle.questions?.items ?? []) byId.set(q.id, q);
  let questions = [...byId.values()];
  if (c.questionIds) questions = questions.filter((q) => c.questionIds!.includes(q.id));
  for (const k of c.checkpoints) if (k.answers) refuseMissingAnswers(c, k, questions, bundle.answers ?? []);
  await store.importBundle(bundle);
  await ensureRunPrompts(store, ['pairwise-baseline'], c.promptSet);
  return questions;
}

/** Records checkpoint `k` with how its answers come to be; the questions it still has to answer, if any. */
async function prepareCheckpoint(
  store: Store,
  c: CheckpointsConfig,
  k: CheckpointConfig,
  questions: Question[],
): Promise<{ generation: CheckpointGeneration; questions: Question[] } | undefined> {
  const model = modelOf(c, k);
  if (k.answers) {
    const fileModel = modelFromFile(k.answers);
    if (fileModel !== model)
      throw new ArenaError(
        `[ops:checkpoints] checkpoint "${k.name}": answers are stored under the file's name "${fileModel}"; set "model": "${fileModel}"`,
        { file: k.answers, field: 'model' },
      );
    await saveCheckpoint(store, c, k, model, { kind: 'imported', file: k.answers });
    return undefined;
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
  const have = new Set((await store.catalog.answers([model])).map((a) => a.questionId));
  const todo = questions.filter((q) => !have.has(q.id));
  return todo.length ? { generation, questions: todo } : undefined;
}

/** Generates checkpoint `k`'s answers to `todo`, storing each as it is done; how many were generated. */
async function generateAnswers(
  o: CheckpointsOptions,
  c: CheckpointsConfig,
  k: CheckpointConfig,
  todo: Question[],
  env: Env,
): Promise<number> {
  const model = modelOf(c, k);
  const maxTurn = Math.max(...c.turns);
  const gen = k.endpoint
    ? openaiGenerator({
        baseURL: k.endpoint.baseURL,
        model: k.endpoint.model,
        apiKey: (k.endpoint.apiKeyEnv && env[k.endpoint.apiKeyEnv]) || undefined,
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
  let generated = 0;
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
          await o.store.importBundle({
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
  return generated;
}

/** Judges every checkpoint against the baseline, per judge, under the config's budget. */
async function judgeSeries(
  o: CheckpointsOptions,
  c: CheckpointsConfig,
  log: (m: string) => void,
  onFatal: (e: JudgeCallError) => void,
): Promise<Omit<CheckpointsRun, 'generated'>> {
  const store = o.store;
  const models = c.checkpoints.map((k) => modelOf(c, k));
  const budget = c.budget ? new Budget(c.budget.maxUsd) : undefined;
  let played = 0;
  let failed = 0;
  let cost = 0;
  let skipped = 0;
  for (const [k, j] of c.judges.entries()) {
    if (o.signal?.aborted) break;
    const price = priceFor(j.id, { price: j.price, required: !!c.budget, field: `judges[${k}].price` });
    const judge = await o.judges(j, { onFatal });
    const tokens = calibrate(await store.ledger.tokenTotals(judge.id), {
      charsPerToken: 4,
      outputTokens: c.settings.maxTokens,
    });
    let runCost = 0;
    try {
      const r = await playSeries(c, {
        store,
        judge,
        ...seriesTournament(c, models),
        parser: c.parser,
        concurrency: j.concurrency,
        costOf: (tin, tout, cached) => costOf(price, tin, tout, cached),
        ...(budget
          ? { budget: budget.gate((_id, spec) => upperBoundCost(spec, tokens, price, c.settings.maxTokens)) }
          : {}),
        ...(o.signal ? { signal: o.signal } : {}),
        onProgress: (p: RunProgress) => {
          if (p.last && 'game' in p.last) runCost += p.last.game.cost ?? 0;
          o.onProgress?.({
            stage: `judge ${judge.id}`,
            done: p.done,
            failed: p.failed,
            total: p.total,
            cost: cost + runCost,
          });
        },
        ...o.liveness,
        ...(o.spill ? { spill: o.spill } : {}),
      });
      played += r.played;
      failed += r.failed;
      skipped += r.skipped;
      cost += (r.cost ?? 0) + r.costEstimated;
      log(`${judge.id}: ${r.played} played, ${r.failed} failed, ${r.stored} already stored`);
      if (r.settled) log(`${judge.id}: ${r.settled}`);
    } finally {
      await judge.close?.();
    }
  }
  return { played, failed, cost, skipped };
}

/** The series' tournament for one judge: the whole plan, or with `untilSettled` in rounds (engine/settle.ts). */
async function playSeries(c: CheckpointsConfig, t: TournamentOptions) {
  const settle = settleOptions(c.untilSettled);
  if (!settle) {
    const r = await runTournament(t);
    return { ...r, stored: r.planned - r.toPlay, settled: undefined };
  }
  const s = await runUntilSettled({ ...t, ...settle });
  const sum = (f: (r: RunSummary) => number) => s.runs.reduce((a, r) => a + f(r), 0);
  const why = (s.models ?? []).map((m) => `${m.model} ${m.why}`).join(', ');
  return {
    played: sum((r) => r.played),
    failed: sum((r) => r.failed),
    skipped: sum((r) => r.skipped),
    cost: sum((r) => r.cost ?? 0),
    costEstimated: sum((r) => r.costEstimated),
    stored: s.stored - sum((r) => r.played),
    settled: `until settled: ${s.stop} after ${s.rounds} round(s) (${why}); ${s.stored} of the full plan's ${s.planned} games stored`,
  };
}

type TournamentOptions = Parameters<typeof runTournament>[0];

export interface CheckpointsReport {
  series: string;
  baseline: string;
  checkpoints: { name: string; step: number; model: string; generation: unknown }[];
  rows: CheckpointRow[];
  best: Record<string, string>;
  /** judges whose top win rate is tied: no best is named, these share it */
  tiedBest: Record<string, string[]>;
}

/** The report from what is stored: per judge and checkpoint, win rate vs the baseline and paired differences. */
export async function checkpointsReport(o: {
  store: Store;
  judges: OpenJudge;
  config: Loaded<CheckpointsConfig>;
}): Promise<CheckpointsReport> {
  const c = o.config.config;
  const store = o.store;
  const stored = await store.checkpoints.list(c.series);
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
  const { rows, best, tiedBest } = seriesReport(byJudge, infos, c.baseline.model, { resamples: c.resamples });
  return { series: c.series, baseline: c.baseline.model, checkpoints: infos, rows, best, tiedBest };
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
