// `arena refresh`: the nightly job. Import what changed, play only the games that do not exist yet,
// re-judge the drift canary, check the judges' health against the last refresh, record the cost, publish.
import { CANARY_SOURCE } from '../core/constants.ts';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ArenaError, type GameSpec, type Mode } from '../core/types.ts';
import { planRun, runTournament, type RunProgress, type RunSummary } from '../engine/run.ts';
import type { Liveness } from '../engine/play/index.ts';
import { modelFromFile } from '../importers/formats.ts';
import { ensureRunPrompts, missingRunPrompts } from '../importers/builtin.ts';
import { importFiles, readImport } from '../importers/import.ts';
import { authStopError } from '../judges/auth-stop.ts';
import type { JudgeCallError, JudgeProvider } from '../judges/judge.ts';
import { apiKeyOf } from '../judges/registry.ts';
import { bundleCounts, pendingView, type StoreReader } from '../storage/pending.ts';
import { type RefreshRecord, type RefreshStatus, type Store } from '../storage/store.ts';
import { resolvePath, type JudgeConfig, type Loaded, type RefreshConfig } from './config.ts';
import type { OpenBatchClient, OpenJudge, Publisher } from './deps.ts';
import { canaryDrift, healthJumps, judgeHealth, type Drift, type JudgeHealth } from './health.ts';
import type { BatchReport } from './batch.ts';
import {
  Budget,
  calibrate,
  costOf,
  estimateCost,
  planEstimate,
  priceFor,
  type PlanEstimate,
  type TokenModel,
} from './prices.ts';

/** Exit codes a cron job or CI can act on (0 ok; 1 is a usage or config error, from the CLI). */
export const EXIT = { ok: 0, failed: 2, degraded: 3, budget: 4, interrupted: 130 } as const;

export interface RefreshOptions {
  /** the database the refresh works on (a dry run only reads it) */
  store: Store;
  /** opens the judges of the config (the CLI: src/cli/ops-context.ts) */
  judges: OpenJudge;
  /** opens the Batch API client of a `batch: true` judge (the CLI: src/cli/ops-context.ts); needed only by those */
  batches?: OpenBatchClient;
  /** the refresh config, checked, with its paths resolved (loadRefreshConfig) */
  config: Loaded<RefreshConfig>;
  /** the targets of `publish.sqlite` and `publish.d1` (they copy the database file); without it they are refused */
  publish?: Publisher;
  /** print the plan and the estimated cost; the database is not changed */
  dryRun?: boolean;
  signal?: AbortSignal;
  log?(msg: string): void;
  /** a run is about to play `toPlay` games */
  onRunStart?(info: { judge: string; mode: string; toPlay: number }): void;
  onProgress?(p: RunProgress & { judge: string }): void;
  /** where a batch judge's API key is read (`judges[].apiKeyEnv`); default process.env */
  env?: Record<string, string | undefined>;
  /** who plays: this process as the runs' owner, and whether another run's owner is alive (the CLI: src/cli/liveness.ts) */
  liveness?: Liveness;
}

export interface PlanLine extends PlanEstimate {
  mode: string;
}

export interface RefreshSummary {
  id: string;
  status: RefreshStatus | 'dry-run';
  exitCode: number;
  imported: { answers: number; newModels: string[]; changedAnswers: number; questions: number };
  plan: PlanLine[];
  estCost: number;
  runs: {
    id: string;
    judge: string;
    mode: string;
    played: number;
    failed: number;
    skipped: number;
    cost: number | null;
    status: string;
  }[];
  played: number;
  failed: number;
  skipped: number;
  cost: number;
  judges: Record<string, JudgeHealth>;
  drift: Record<string, Drift>;
  degraded: string[];
  batches: BatchReport[];
  published: string[];
  seconds: number;
  /** the one line for the cron log */
  line: string;
}

/** The answer files of the config's `answers` (a directory: its .jsonl files); a missing path is an error naming it. */
export function answerFiles(paths: string[]): string[] {
  return paths.flatMap((p) => {
    if (!existsSync(p)) throw new ArenaError(`${p}: no such answer file or directory`, { file: p });
    return statSync(p).isDirectory()
      ? readdirSync(p)
          .filter((f) => f.endsWith('.jsonl'))
          .sort()
          .map((f) => join(p, f))
      : [p];
  });
}

interface JudgePlan {
  cfg: JudgeConfig;
  judge: JudgeProvider;
  tokens: TokenModel;
  price: ReturnType<typeof priceFor>;
  modes: {
    mode: Mode;
    models: string[];
    baseline?: string;
    games: { spec: GameSpec; id: string }[];
    toPlay: number;
  }[];
}

export async function refresh(o: RefreshOptions): Promise<RefreshSummary> {
  const t0 = Date.now();
  const log = o.log ?? (() => {});
  const env = o.env ?? process.env;
  // the first 401/403 of any judge stops the whole refresh: no retries, no further calls, one message
  let refused: JudgeCallError | undefined;
  const authStop = new AbortController();
  const onAuthFailure = (e: JudgeCallError) => {
    refused = e;
    setImmediate(() => authStop.abort(e));
  };
  o = { ...o, signal: o.signal ? AbortSignal.any([o.signal, authStop.signal]) : authStop.signal };
  setMaxListeners(0, o.signal!);
  const { config: c, text, file: configFile } = o.config;
  const store = o.store;
  if (!o.dryRun) for (const j of c.judges) apiKeyOf(j, env); // a missing key is said before anything is imported
  const batchJudge = c.judges.find((j) => j.batch);
  if (!o.dryRun && batchJudge && !o.batches)
    throw new ArenaError(
      `judge ${batchJudge.id}: batch mode needs a Batch API client (RefreshOptions.batches: judges/openai-batch.ts)`,
    );
  const files = answerFiles(c.answers);
  // a dry run writes nothing: it reads the store and plans on a view of it with the import applied
  // (src/storage/pending.ts)
  const id = randomUUID();
  const judges: JudgePlan[] = [];
  try {
    if (!o.dryRun) {
      const stale = await store.markRefreshesInterrupted();
      if (stale)
        log(`${stale} earlier refresh(es) had been killed; marked interrupted (their stored games are kept)`);
    }
    // 1. import: upserts; a changed answer has new content, hence new game ids
    const before = new Map(
      (await store.listAnswers()).map((a) => [`${a.model}\u0000${a.questionId}`, JSON.stringify(a.turns)]),
    );
    const oldModels = new Set(await store.listModels());
    const sources = { questions: c.questions, references: c.references, prompts: c.prompts, answers: files };
    let reader: StoreReader = store;
    const pending = o.dryRun ? (await readImport(store, sources)).bundle : undefined;
    if (pending) reader = pendingView(store, pending);
    const counts = pending ? bundleCounts(pending) : await importFiles(store, sources);
    const after = await reader.listAnswers();
    const changedAnswers = after.filter((a) => {
      const b = before.get(`${a.model}\u0000${a.questionId}`);
      return b !== undefined && b !== JSON.stringify(a.turns);
    }).length;
    // planning reads only: the shipped prompts the modes (and the canary) need are imported here
    const runModes = [...c.modes.map((m) => m.mode), ...(c.canary ? ['pairwise-all' as const] : [])];
    if (o.dryRun)
      for (const mode of new Set(runModes))
        reader = pendingView(reader, { prompts: await missingRunPrompts(reader, mode, c.promptSet) });
    else await ensureRunPrompts(store, runModes, c.promptSet);
    const fileModels = files.map(modelFromFile);
    const models = c.models ?? [...new Set(fileModels)].sort();
    const newModels = models.filter((m) => !oldModels.has(m));
    log(
      `${o.dryRun ? 'would import' : 'imported'} ${counts.answers} answers of ${fileModels.length} models (${newModels.length} new: ${newModels.join(', ') || '-'}; ${changedAnswers} changed answers)`,
    );

    // 2. plan every judge x mode; estimate what the games to play will cost
    const plan: PlanLine[] = [];
    for (const j of c.judges) {
      const judge = await o.judges(j, { onAuthFailure, planOnly: !!o.dryRun });
      const price = priceFor(judge.id, { price: j.price, batch: j.batch });
      const tokens = calibrate(await store.tokenTotals(judge.id), {
        charsPerToken: c.estimate.charsPerToken,
        outputTokens: c.estimate.outputTokens ?? c.settings.maxTokens,
      });
      const jp: JudgePlan = { cfg: j, judge, tokens, price, modes: [] };
      judges.push(jp);
      for (const m of c.modes) {
        const mModels = m.models ?? models;
        const baseline = m.mode === 'pairwise-baseline' ? m.baseline : undefined;
        const { games } = await planRun({
          store: reader,
          judge,
          mode: m.mode,
          models: mModels,
          ...(baseline ? { baseline } : {}),
          ...(c.questionIds ? { questionIds: c.questionIds } : {}),
          turns: c.turns,
          ...(c.promptSet ? { promptSet: c.promptSet } : {}),
          referenceSource: c.referenceSource,
          settings: c.settings,
        });
        const stored = await store.existingGameIds(games.map((g) => g.id));
        const todo = uniq(games.filter((g) => !stored.has(g.id)));
        jp.modes.push({
          mode: m.mode,
          models: mModels,
          ...(baseline ? { baseline } : {}),
          games,
          toPlay: todo.length,
        });
        plan.push(planLine(judge.id, m.mode, games.length, games.length - todo.length, todo, tokens, price));
      }
      if (c.canary) {
        const { games } = await canaryPlan(reader, judge, c, id);
        plan.push(planLine(judge.id, 'canary', games.length, 0, games, tokens, price));
      }
    }
    const estCost = plan.reduce((s, p) => s + p.estCost, 0);
    const base = {
      id,
      imported: { answers: counts.answers, newModels, changedAnswers, questions: counts.questions },
      plan,
      estCost,
    };
    if (o.dryRun) {
      const toPlay = plan.reduce((s, p) => s + p.toPlay, 0);
      const line = `refresh dry run: ${toPlay} games to play, estimated $${estCost.toFixed(4)}${c.budget ? ` (budget $${c.budget.maxUsd})` : ''}; nothing was changed`;
      return {
        ...base,
        status: 'dry-run',
        exitCode: EXIT.ok,
        runs: [],
        played: 0,
        failed: 0,
        skipped: 0,
        cost: 0,
        judges: {},
        drift: {},
        degraded: [],
        batches: [],
        published: [],
        seconds: (Date.now() - t0) / 1000,
        line,
      };
    }
    const record: RefreshRecord = {
      id,
      startedAt: t0,
      finishedAt: null,
      status: 'running',
      config: { file: configFile, config: JSON.parse(text) },
      summary: base,
      degraded: null,
      cost: 0,
    };
    await store.saveRefresh(record);

    try {
      // 3. play
      const budget = c.budget ? new Budget(c.budget.maxUsd) : undefined;
      const runs: RefreshSummary['runs'] = [];
      const batches: RefreshSummary['batches'] = [];
      const drift: Record<string, Drift> = {};
      const playRun = async (jp: JudgePlan, mode: string, opts: Parameters<typeof runTournament>[0]) => {
        const est = (_id: string, spec: GameSpec) => estimateCost(spec, jp.tokens, jp.price);
        const r: RunSummary = await runTournament({
          ...opts,
          parser: c.parser,
          concurrency: jp.cfg.concurrency,
          costOf: (tin, tout) => costOf(jp.price, tin, tout),
          ...(budget ? { budget: budget.gate(est) } : {}),
          ...(o.signal ? { signal: o.signal } : {}),
          onPlan: ({ toPlay }) => o.onRunStart?.({ judge: jp.judge.id, mode, toPlay }),
          onProgress: (p) => o.onProgress?.({ ...p, judge: jp.judge.id }),
          ...o.liveness,
        });
        runs.push({
          id: r.id,
          judge: jp.judge.id,
          mode,
          played: r.played,
          failed: r.failed,
          skipped: r.skipped,
          cost: r.cost ?? null,
          status: r.status,
        });
        if (r.errors.length && !refused)
          for (const e of r.errors.slice(0, 3)) log(`[${jp.judge.id}] failed: ${e}`);
        return r;
      };
      for (const jp of judges) {
        if (o.signal?.aborted) break;
        const common = {
          store,
          judge: jp.judge,
          ...(c.questionIds ? { questionIds: c.questionIds } : {}),
          turns: c.turns,
          ...(c.promptSet ? { promptSet: c.promptSet } : {}),
          referenceSource: c.referenceSource,
          settings: c.settings,
        };
        if (jp.cfg.batch) {
          const { runBatches } = await import('./batch.ts');
          const games = jp.modes.flatMap((m) => m.games);
          const gate = budget?.gate((_id, spec) => estimateCost(spec, jp.tokens, jp.price));
          const b = await runBatches({
            store,
            judgeId: jp.judge.id,
            model: jp.judge.id.slice(jp.judge.id.indexOf('/') + 1),
            client: o.batches!(jp.cfg, apiKeyOf(jp.cfg, env)),
            games,
            settings: c.settings,
            parser: c.parser,
            price: jp.price,
            refreshId: id,
            ...(gate ? { admit: gate.reserve } : {}),
            waitS: jp.cfg.batchWaitS,
            pollS: jp.cfg.batchPollS,
            log,
            ...(o.signal ? { signal: o.signal } : {}),
            ...(o.liveness ? { liveness: o.liveness } : {}),
          });
          batches.push(b);
          if (b.runId || b.skipped)
            runs.push({
              id: b.runId ?? '',
              judge: jp.judge.id,
              mode: 'batch',
              played: b.imported,
              failed: b.failed,
              skipped: b.skipped,
              cost: b.cost,
              status: b.failed ? 'failed' : b.skipped ? 'budget' : 'done',
            });
        } else {
          for (const m of jp.modes) {
            if (o.signal?.aborted) break;
            await playRun(jp, m.mode, {
              ...common,
              mode: m.mode,
              models: m.models,
              ...(m.baseline ? { baseline: m.baseline } : {}),
            });
          }
        }
        if (c.canary && !o.signal?.aborted) {
          await playRun(jp, 'canary', {
            ...common,
            mode: 'pairwise-all',
            models: c.canary.models,
            questionIds: c.canary.questionIds,
            turns: c.canary.turns,
            settings: { ...c.settings, canary: id },
            source: CANARY_SOURCE,
          });
          drift[jp.judge.id] = canaryDrift(await canaryGames(store, jp.judge.id), id);
        }
      }
      if (refused) throw authStopError(refused, `the judge's apiKeyEnv and baseURL in ${configFile}`);

      // 4. health vs the last refresh that measured each judge; drift
      const previous = (await store.listRefreshes(100)).filter((r) => r.id !== id && r.status !== 'running');
      const health: Record<string, JudgeHealth> = {};
      const degraded: string[] = [];
      for (const jp of judges) {
        const jr = runs.filter((r) => r.judge === jp.judge.id);
        const h = judgeHealth(
          await store.gamesOfRuns(
            jp.judge.id,
            jr.map((r) => r.id),
          ),
          jr.reduce((s, r) => s + r.failed, 0),
          c.health.minGames,
        );
        health[jp.judge.id] = h;
        const last = { errorRate: null as number | null, inconsistencyRate: null as number | null };
        for (const p of previous) {
          const ph = p.summary.judges?.[jp.judge.id];
          if (!ph) continue;
          last.errorRate ??= ph.errorRate;
          last.inconsistencyRate ??= ph.inconsistencyRate;
          if (last.errorRate !== null && last.inconsistencyRate !== null) break;
        }
        degraded.push(...healthJumps(jp.judge.id, h, last, c.health));
        const d = drift[jp.judge.id];
        if (d?.changeRate != null && d.changeRate > c.canary!.maxChangeRate)
          degraded.push(
            `${jp.judge.id}: drift: ${d.changed} of ${d.compared} anchor games changed verdict (${(100 * d.changeRate).toFixed(1)}% > ${(100 * c.canary!.maxChangeRate).toFixed(1)}%)`,
          );
      }
      const sum = (k: 'played' | 'failed' | 'skipped') => runs.reduce((s, r) => s + r[k], 0);
      const cost = runs.reduce((s, r) => s + (r.cost ?? 0), 0);
      const interrupted = !!o.signal?.aborted;
      const status: RefreshStatus = interrupted
        ? 'interrupted'
        : degraded.length
          ? 'degraded'
          : sum('failed')
            ? 'failed'
            : sum('skipped')
              ? 'budget'
              : 'ok';
      const exitCode = EXIT[status];

      const pending = batches.reduce((s, b) => s + b.pending, 0);
      const summary: RefreshSummary = {
        ...base,
        status,
        exitCode,
        runs,
        played: sum('played'),
        failed: sum('failed'),
        skipped: sum('skipped'),
        cost,
        judges: health,
        drift,
        degraded,
        batches,
        published: [],
        seconds: 0,
        line: '',
      };
      const finish = async () => {
        summary.seconds = (Date.now() - t0) / 1000;
        summary.line =
          `refresh ${id.slice(0, 8)}: ${status.toUpperCase()}; ${newModels.length} new model(s), ${changedAnswers} changed answer(s); ` +
          `${sum('played')} played, ${sum('failed')} failed${sum('skipped') ? `, ${sum('skipped')} not started (budget)` : ''}${pending ? `, ${pending} in pending batches` : ''}; ` +
          `$${cost.toFixed(4)} spent (est. $${estCost.toFixed(4)})` +
          `${
            Object.values(drift).some((d) => d.changeRate !== null)
              ? `; canary change ${Object.values(drift)
                  .map((d) => (d.changeRate === null ? '-' : `${(100 * d.changeRate).toFixed(0)}%`))
                  .join('/')}`
              : ''
          }` +
          `${degraded.length ? `; degraded: ${degraded.join('; ')}` : ''}; ${summary.seconds.toFixed(1)} s`;
        await store.saveRefresh({
          ...record,
          finishedAt: Date.now(),
          status,
          summary,
          degraded: degraded.length ? degraded : null,
          cost,
        });
      };
      // the final record first, so that what is published carries this refresh's status (the site shows it)
      await finish();

      // 5. publish what is judged (also after a budget stop or a degraded mark: everything judged so far is kept)
      if (!interrupted && c.publish) {
        const publisher = () => o.publish ?? failNoPublisher();
        if (c.publish.sqlite) {
          await publisher().sqliteCopy(c.publish.sqlite);
          summary.published.push(c.publish.sqlite);
          log(`published ${c.publish.sqlite}`);
        }
        if (c.publish.d1) {
          const d = c.publish.d1;
          await publisher().d1({
            database: d.database,
            remote: d.remote,
            persistTo: d.persistTo ? resolvePath(configFile, d.persistTo) : undefined,
          });
          summary.published.push(`d1:${d.database}${d.remote ? ' (remote)' : ' (local)'}`);
        }
        if (c.publish.command) {
          const [cmd, ...args] = c.publish.command;
          execFileSync(cmd!, args, {
            cwd: dirname(resolve(configFile)),
            stdio: ['ignore', 'inherit', 'inherit'],
            env: { ...process.env, ARENA_DB: c.db, ARENA_REFRESH_ID: id },
          });
          summary.published.push(c.publish.command.join(' '));
        }
        await finish();
      }
      return summary;
    } catch (e) {
      // a planning or storage error after the record was opened: the refresh failed, say so in the history
      await store
        .saveRefresh({
          ...record,
          finishedAt: Date.now(),
          status: 'failed',
          degraded: [`error: ${(e as Error)?.message ?? e}`],
        })
        .catch(() => {});
      throw e;
    }
  } finally {
    for (const jp of judges) await jp.judge.close?.();
  }
}

function failNoPublisher(): never {
  throw new ArenaError(
    '[ops:refresh] the config publishes a database copy or to D1, but this refresh was given no publisher (publish.sqlite / publish.d1 need the database file)',
  );
}

function uniq<T extends { id: string }>(games: T[]): T[] {
  const seen = new Set<string>();
  return games.filter((g) => !seen.has(g.id) && seen.add(g.id));
}

function planLine(
  judge: string,
  mode: string,
  planned: number,
  stored: number,
  todo: { spec: GameSpec }[],
  tokens: TokenModel,
  price: ReturnType<typeof priceFor>,
): PlanLine {
  const { judge: id, ...e } = planEstimate(judge, planned, stored, todo, tokens, price);
  return { judge: id, mode, ...e };
}

function canaryPlan(store: StoreReader, judge: JudgeProvider, c: RefreshConfig, nonce: string) {
  const k = c.canary!;
  return planRun({
    store,
    judge,
    mode: 'pairwise-all',
    models: k.models,
    questionIds: k.questionIds,
    turns: k.turns,
    ...(c.promptSet ? { promptSet: c.promptSet } : {}),
    referenceSource: c.referenceSource,
    settings: { ...c.settings, canary: nonce },
  });
}

async function canaryGames(store: Store, judge: string) {
  return (await store.listGames({ judge, kind: 'pairwise', source: CANARY_SOURCE }))
    .filter((g) => typeof g.judgeSettings.canary === 'string')
    .map((g) => ({
      questionId: g.match.questionId,
      turn: g.match.turn,
      model1: g.match.model1,
      model2: g.match.model2 ?? null,
      order: g.order,
      verdict: g.verdict,
      promptName: g.promptName,
      nonce: g.judgeSettings.canary as string,
      createdAt: g.createdAt,
    }));
}
