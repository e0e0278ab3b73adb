// Wiring of the ops jobs (src/ops: refresh, checkpoints) for the CLI: config file -> parsed config, the
// database -> a Store (read as it is for a dry run, which writes nothing), the refresh lock, the judges, the publishers.
// The jobs themselves only get `{ store, judges, config }`.
import { existsSync } from 'node:fs';
import { ArenaError } from '../core/types.ts';
import { publishToD1 } from '../entry/publish.ts';
import { openaiBatchClient } from '../judges/openai-batch.ts';
import { apiKeyOf, openJudge } from '../judges/registry.ts';
import { loadCheckpointsConfig, type CheckpointsConfig } from '../ops/checkpoints.ts';
import { loadRefreshConfig, type Loaded, type RefreshConfig } from '../ops/config.ts';
import type { OpenBatchClient, OpenJudge, Publisher } from '../ops/deps.ts';
import { answerFiles } from '../ops/refresh.ts';
import type { Liveness } from '../engine/play/index.ts';
import { processLiveness } from './liveness.ts';
import { takeLock } from '../storage/lock.ts';
import { copyDatabase, openMemoryStore, openSqliteStore, type SqliteStore } from '../storage/sqlite.ts';

type Env = Record<string, string | undefined>;

/** Opens a judge of an ops config through judges/registry.ts openJudge (key check, retries, auth stop), logging retries. */
export function judgeOpener(env: Env, log?: (m: string) => void): OpenJudge {
  return (j, o = {}) => openJudge(j, env, { ...(log ? { log } : {}), ...o });
}

/** The publishers of a refresh on an SQLite file: an atomic copy, and D1 through wrangler. */
export function sqlitePublisher(store: SqliteStore, log: (m: string) => void = () => {}): Publisher {
  return {
    sqliteCopy: async (file) => copyDatabase(store, file),
    d1: async (t) => {
      await publishToD1(store.sqlite, t, log);
    },
  };
}

export interface RefreshContext {
  store: SqliteStore;
  judges: OpenJudge;
  /** the Batch API of a `batch: true` judge's server */
  batches: OpenBatchClient;
  config: Loaded<RefreshConfig>;
  publish: Publisher;
  liveness: Liveness;
}

/**
 * Everything `refresh` needs, from its config file: the database, the refresh lock (one refresh per
 * database; a dry run, which only reads, takes none), the judges.
 */
export async function withRefreshContext<T>(
  configFile: string,
  o: { dryRun?: boolean; env?: Env; log?: (m: string) => void },
  fn: (ctx: RefreshContext) => Promise<T>,
): Promise<T> {
  const config = loadRefreshConfig(configFile);
  // a missing answer file or API key is reported before the database is touched (a dry run calls no judge)
  if (!o.dryRun) for (const j of config.config.judges) apiKeyOf(j, o.env ?? process.env);
  answerFiles(config.config.answers);
  const db = config.config.db;
  const unlock = o.dryRun ? () => {} : takeLock(db, 'refresh');
  try {
    const store = openForDryRun(db, o.dryRun);
    try {
      const judges = judgeOpener(o.env ?? process.env, o.log);
      const batches: OpenBatchClient = (j, apiKey) => openaiBatchClient({ baseURL: j.baseURL, apiKey });
      const publish = sqlitePublisher(store, o.log);
      return await fn({ store, judges, batches, config, publish, liveness: processLiveness() });
    } finally {
      await store.close();
    }
  } finally {
    unlock();
  }
}

export interface CheckpointsContext {
  store: SqliteStore;
  judges: OpenJudge;
  config: Loaded<CheckpointsConfig>;
  liveness: Liveness;
}

/**
 * Everything the checkpoints jobs need, from their config file. `dryRun`: only read (a missing database is
 * an empty one, not created); `report`: the database must exist (a report of nothing is a mistake).
 */
export async function withCheckpointsContext<T>(
  configFile: string,
  o: { dryRun?: boolean; report?: boolean; play?: boolean; env?: Env; log?: (m: string) => void },
  fn: (ctx: CheckpointsContext) => Promise<T>,
): Promise<T> {
  const config = loadCheckpointsConfig(configFile);
  const db = config.config.db;
  // `play`: a missing API key is reported before the database is touched
  if (o.play) for (const j of config.config.judges) apiKeyOf(j, o.env ?? process.env);
  if (o.report && !existsSync(db))
    throw new ArenaError(
      `${db}: no such database (run \`arena checkpoints run --config ${configFile}\` first)`,
    );
  const store = openForDryRun(db, o.dryRun);
  try {
    const judges = judgeOpener(o.env ?? process.env, o.log);
    return await fn({ store, judges, config, liveness: processLiveness() });
  } finally {
    await store.close();
  }
}

/** The database; for a dry run that finds no file, an empty one in memory (a dry run creates nothing). */
function openForDryRun(db: string, dryRun: boolean | undefined): SqliteStore {
  return dryRun && !existsSync(db) ? openMemoryStore() : openSqliteStore(db);
}
