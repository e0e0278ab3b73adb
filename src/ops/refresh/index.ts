// `arena refresh`: the nightly job. Import what changed, play only the games that do not exist yet,
// re-judge the drift canary, check the judges' health against the last refresh, record the cost, publish.
// One file per step (import, plan, play, report, publish); `refresh` composes them and keeps the record.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { RUN_LEASE_MS } from '../../core/run-seen.ts';
import { ArenaError } from '../../core/types.ts';
import { fatalStopError } from '../../judges/fatal-stop.ts';
import type { JudgeCallError } from '../../judges/judge.ts';
import type { RefreshRecord, RefreshStatus } from '../../storage/store.ts';
import type { RefreshConfig } from '../config.ts';
import { checkApiKeys } from '../../judges/registry.ts';
import { refuseUnplayable } from '../judges-config.ts';
import { answerFiles, importAnswers } from './import.ts';
import { planJudges } from './plan.ts';
import { playJudges } from './play.ts';
import { publishRefresh, refuseMissingFolder, type PublishInput, type Target } from './publish.ts';
import { judgeHealthReport, summarize, summaryLine } from './report.ts';
import { EXIT, type JudgePlan, type RefreshOptions, type RefreshSummary } from './types.ts';

export { answerFiles } from './import.ts';
export { refuseMissingFolder } from './publish.ts';
export type { RefreshOptions, RefreshSummary } from './types.ts';

export async function refresh(o: RefreshOptions): Promise<RefreshSummary> {
  const t0 = Date.now();
  const log = o.log ?? (() => {});
  const env = o.env ?? {};
  // the first fatal refusal (401/403, a retired model, a refused parameter) of any judge stops the whole refresh: no retries, no further calls, one message
  let refused: JudgeCallError | undefined;
  const authStop = new AbortController();
  const onFatal = (e: JudgeCallError) => {
    refused = e;
    setImmediate(() => authStop.abort(e));
  };
  o = { ...o, signal: o.signal ? AbortSignal.any([o.signal, authStop.signal]) : authStop.signal };
  setMaxListeners(0, o.signal!);
  const { config: c, text, file: configFile } = o.config;
  const store = o.store;
  if (!o.dryRun) checkApiKeys(c.judges, env); // a missing key is said before anything is imported
  refuseMissingFolder(configFile, c); // said by a dry run too: the run it shows would fail
  const batchJudge = c.judges.find((j) => j.batch);
  if (!o.dryRun && batchJudge && !o.batches)
    throw new ArenaError(
      `judge ${batchJudge.id}: batch mode needs a Batch API client (RefreshOptions.batches: judges/openai-batch.ts)`,
    );
  const files = answerFiles(c.answers);
  const id = randomUUID();
  const judges: JudgePlan[] = [];
  try {
    if (!o.dryRun) {
      const stale = await store.refreshes.markInterrupted();
      if (stale)
        log(`${stale} earlier refresh(es) had been killed; marked interrupted (their stored games are kept)`);
    }
    const dryRun = !!o.dryRun;
    const { reader, counts, changedAnswers, models, newModels } = await importAnswers(
      store,
      o.config,
      files,
      dryRun,
      log,
    );
    const stored = new Set((await reader.games.judges()).map((j) => j.judge));
    refuseUnplayable(configFile, c, stored);
    warnUnknownHomeJudge(configFile, c, stored, log);
    const plan = await planJudges({ store, reader, open: o.judges, c, models, id, dryRun, onFatal }, judges);
    for (const w of new Set(plan.flatMap((l) => (l.retiring ? [l.retiring] : [])))) log(`warning: ${w}`);
    const estCost = plan.reduce((s, p) => s + p.estCost, 0);
    const base = {
      id,
      imported: { answers: counts.answers, newModels, changedAnswers, questions: counts.questions },
      plan,
      estCost,
    };
    if (o.dryRun) return dryRunSummary(base, c, t0);
    const record: RefreshRecord = {
      id,
      startedAt: t0,
      finishedAt: null,
      status: 'running',
      config: { file: configFile, config: JSON.parse(text) },
      summary: base,
      degraded: null,
      cost: 0,
      heartbeatAt: Date.now(),
    };
    await store.refreshes.save(record);
    // alive while it runs (a batch judge's polling writes nothing else); a killed refresh's heartbeat goes stale
    const beat = setInterval(
      () => void store.refreshes.beat(id, Date.now()).catch(() => {}),
      RUN_LEASE_MS / 4,
    );
    beat.unref?.();

    let publishFailure: unknown;
    try {
      const played = await playJudges({ o, c, store, id, env, log, refused: () => !!refused }, judges);
      if (refused) throw fatalStopError(refused, `the judge's apiKeyEnv and baseURL in ${configFile}`);
      const { health, degraded } = await judgeHealthReport(store, c, id, judges, played);
      const interrupted = !!o.signal?.aborted;
      const summary: RefreshSummary = summarize(base, played, health, degraded, interrupted);
      const finish = async () => {
        summary.seconds = (Date.now() - t0) / 1000;
        summary.line = summaryLine(summary);
        await store.refreshes.save({
          ...record,
          finishedAt: Date.now(),
          status: summary.status as RefreshStatus,
          summary,
          degraded: summary.degraded.length ? summary.degraded : null,
          cost: summary.cost,
          heartbeatAt: null,
        });
      };
      // the final record first, so that what is published carries this refresh's status (the site shows it)
      await finish();

      // publish what is judged (also after a budget stop or a degraded mark: everything judged so far is kept)
      if (!interrupted && c.publish) {
        const p = { publish: o.publish, runHook: o.runHook, env, c, configFile, id, log, signal: o.signal };
        publishFailure = await publishAll(p, summary, finish);
      }
      if (publishFailure === undefined) return summary;
    } catch (e) {
      // a planning or storage error after the record was opened: the refresh failed, say so in the history
      await store.refreshes
        .save({
          ...record,
          finishedAt: Date.now(),
          status: 'failed',
          degraded: [`error: ${(e as Error)?.message ?? e}`],
          heartbeatAt: null,
        })
        .catch(() => {});
      throw e;
    } finally {
      clearInterval(beat);
    }
    throw publishFailure; // recorded by publishAll
  } finally {
    for (const jp of judges) await jp.judge.close?.();
  }
}

/**
 * Publishes, then records where. A failure or an interrupt is the refresh's status, and the targets published
 * before it are published again (so the site says what the source says); the failure is returned.
 */
async function publishAll(
  p: PublishInput,
  summary: RefreshSummary,
  finish: () => Promise<void>,
): Promise<unknown> {
  const done = { targets: [] as Target[], published: summary.published };
  try {
    await publishRefresh(p, done);
    await finish();
    return undefined;
  } catch (e) {
    const stopped = !!p.signal?.aborted;
    summary.status = stopped ? 'interrupted' : 'failed';
    summary.exitCode = EXIT[summary.status];
    if (!stopped) summary.degraded.push(`error: ${(e as Error).message}`);
    await finish();
    const again = done.targets.filter((t) => t !== 'command');
    if (again.length) {
      p.log(`publishing ${again.join(' and ')} again, to say the refresh is ${summary.status}`);
      await publishRefresh({ ...p, only: again }, { targets: [], published: [] }).catch((x: unknown) =>
        p.log(`could not publish again: ${(x as Error).message}`),
      );
    }
    return stopped ? undefined : e;
  }
}

/** What a dry run gives back: the plan and its estimated cost; nothing was played or written. */
function dryRunSummary(
  base: Pick<RefreshSummary, 'id' | 'imported' | 'plan' | 'estCost'>,
  c: RefreshConfig,
  t0: number,
): RefreshSummary {
  const toPlay = base.plan.reduce((s, p) => s + p.toPlay, 0);
  const settled = base.plan.filter((p) => p.fullPlan);
  const full = base.plan.reduce((s, p) => s + (p.fullPlan ?? p).toPlay, 0);
  const line = `refresh dry run: ${toPlay} games to play, estimated $${base.estCost.toFixed(4)}${c.budget ? ` (budget $${c.budget.maxUsd})` : ''}${settled.length ? ` (${settled.length} mode(s) with untilSettled: a simulated estimate, see the plan's basis; the full plans: ${full} games)` : ''}; nothing was changed`;
  const nothing = summarize(base, { runs: [], batches: [], drift: {}, successions: [] }, {}, [], false);
  return { ...nothing, status: 'dry-run', exitCode: EXIT.ok, seconds: (Date.now() - t0) / 1000, line };
}

/** A `publish.judge` that is no judge of the config and has no games would pass silently: the default board stays. */
function warnUnknownHomeJudge(file: string, c: RefreshConfig, stored: Set<string>, log: (m: string) => void) {
  const home = c.publish?.judge;
  if (home !== undefined && !stored.has(home) && !c.judges.some((j) => j.id === home))
    log(
      `warning: publish.judge "${home}" in ${file} is no judge of this config and has no games in the database: the home page shows the judge with the most matches`,
    );
}
