// Wiring of the ops jobs (refresh, checkpoints) for the CLI: the config, the Store, the lock, judges and publishers.
import { existsSync } from 'node:fs';
import { ArenaError } from '../core/types.ts';
import { publishToD1 } from '../entry/publish.ts';
import { pullSiteVotes } from '../entry/site-votes.ts';
import { updateReports, workerPages } from './reports.ts';
import { wranglerVars } from '../entry/wrangler.ts';
import { openaiBatchClient } from '../judges/openai-batch.ts';
import { openJudge } from '../judges/registry.ts';
import { loadCheckpointsConfig, type LoadedCheckpoints } from '../ops/checkpoints-config.ts';
import type { CheckpointsOptions } from '../ops/checkpoints.ts';
import { loadRefreshConfig } from '../ops/config.ts';
import type { Env, OpenBatchClient, OpenJudge, Publisher } from '../ops/deps.ts';
import type { RefreshOptions } from '../ops/refresh/types.ts';
import { runHook } from './hook-command.ts';
import { checkApiKeys } from '../judges/registry.ts';
import { answerFiles, refuseMissingFolder } from '../ops/refresh/index.ts';
import { processLiveness } from './liveness.ts';
import { takeLock } from './lock.ts';
import { copyDatabase, openMemoryStore, openSqliteStore, type SqliteStore } from '../storage/sqlite.ts';
import { log, noSpill, recovered } from './shared.ts';

/** Opens a judge of an ops config, logging retries. */
function judgeOpener(env: Env, log?: (m: string) => void): OpenJudge {
  return (j, o = {}) => openJudge(j, env, { ...(log ? { log } : {}), ...o });
}

/** The publishers of a refresh on an SQLite file: an atomic copy, and D1 through wrangler. */
function sqlitePublisher(store: SqliteStore, log: (m: string) => void = () => {}): Publisher {
  return {
    sqliteCopy: async (file) => {
      await updateReports(store, { log });
      await copyDatabase(store, file);
    },
    d1: async (t) => {
      // the votes cast on the site first: counted in the reports, and kept in D1
      await pullSiteVotes(store, t, log);
      await updateReports(store, { log, worker: workerPages(wranglerVars(process.cwd())) });
      await publishToD1(store.sqlite, t, log);
    },
  };
}

/** What the CLI gives a refresh (src/ops/refresh/types.ts RefreshOptions), on an SQLite file. */
type RefreshContext = Required<
  Pick<RefreshOptions, 'judges' | 'batches' | 'config' | 'publish' | 'runHook' | 'env' | 'liveness' | 'spill'>
> & { store: SqliteStore };

/** Everything `refresh` needs, from its config file; a dry run, which only reads, takes no lock. */
export async function withRefreshContext<T>(
  configFile: string,
  o: { dryRun?: boolean; log?: (m: string) => void },
  fn: (ctx: RefreshContext) => Promise<T>,
): Promise<T> {
  const env = process.env;
  const config = loadRefreshConfig(configFile, env);
  // a missing answer file or API key is reported before the database is touched (a dry run calls no judge)
  if (!o.dryRun) checkApiKeys(config.config.judges, env);
  answerFiles(config.config.answers);
  refuseMissingFolder(config.file, config.config);
  const db = config.config.db;
  const unlock = o.dryRun ? () => {} : takeLock(db, 'refresh');
  try {
    const store = openForDryRun(db, o.dryRun);
    try {
      const judges = judgeOpener(env, o.log);
      const batches: OpenBatchClient = (j, apiKey) => openaiBatchClient({ baseURL: j.baseURL, apiKey });
      const out = await fn({
        store,
        judges,
        batches,
        config,
        publish: sqlitePublisher(store, o.log),
        runHook,
        env,
        liveness: processLiveness(),
        spill: await recovered(store, db, o),
      });
      if (!o.dryRun) await updateReports(store, o.log ? { log: o.log } : {});
      return out;
    } finally {
      await store.close();
    }
  } finally {
    unlock();
  }
}

/** What the CLI gives the checkpoints jobs (src/ops/checkpoints.ts CheckpointsOptions), on an SQLite file. */
type CheckpointsContext = Required<Pick<CheckpointsOptions, 'judges' | 'env' | 'liveness' | 'spill'>> & {
  store: SqliteStore;
  config: LoadedCheckpoints;
};

/** Everything the checkpoints jobs need, from their config file; `report`: the database must exist. */
export async function withCheckpointsContext<T>(
  configFile: string,
  o: { dryRun?: boolean; report?: boolean; play?: boolean; log?: (m: string) => void },
  fn: (ctx: CheckpointsContext) => Promise<T>,
): Promise<T> {
  const env = process.env;
  const config = loadCheckpointsConfig(configFile, env);
  for (const m of config.refused) (o.log ?? log)(m);
  const db = config.config.db;
  // `play`: a missing API key is reported before the database is touched
  if (o.play) checkApiKeys(config.config.judges, env);
  if (o.report && !existsSync(db))
    throw new ArenaError(
      `${db}: no such database (run \`arena checkpoints run --config ${configFile}\` first)`,
    );
  const store = openForDryRun(db, o.dryRun);
  try {
    const spill = o.dryRun || o.report ? noSpill : await recovered(store, db, o);
    return await fn({
      store,
      judges: judgeOpener(env, o.log),
      config,
      env,
      liveness: processLiveness(),
      spill,
    });
  } finally {
    await store.close();
  }
}

/** The database; for a dry run that finds no file, an empty one in memory (a dry run creates nothing). */
function openForDryRun(db: string, dryRun: boolean | undefined): SqliteStore {
  return dryRun && !existsSync(db) ? openMemoryStore() : openSqliteStore(db);
}
