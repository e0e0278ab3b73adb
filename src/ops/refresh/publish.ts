// Step 5 of a refresh: publish what is judged (a database copy, D1, the config's command). The targets that
// need the database file, and the running of the command, are the caller's (RefreshOptions.publish, runHook).
import { dirname } from 'node:path';
import { ArenaError } from '../../core/types.ts';
import { resolvePath, type RefreshConfig } from '../config.ts';
import type { Env, Publisher, RunHook } from '../deps.ts';

export interface PublishInput {
  publish?: Publisher | undefined;
  runHook?: RunHook | undefined;
  /** the environment the command runs with, plus ARENA_DB and ARENA_REFRESH_ID */
  env: Env;
  c: RefreshConfig;
  configFile: string;
  /** the refresh id */
  id: string;
  log(m: string): void;
}

/** Publishes to each target of `c.publish`; returns what was published, in order. */
export async function publishRefresh(p: PublishInput): Promise<string[]> {
  const { c, configFile } = p;
  const published: string[] = [];
  if (!c.publish) return published;
  const publisher = () => p.publish ?? failNoPublisher();
  if (c.publish.sqlite) {
    await publisher().sqliteCopy(c.publish.sqlite);
    published.push(c.publish.sqlite);
    p.log(`published ${c.publish.sqlite}`);
  }
  if (c.publish.d1) {
    const d = c.publish.d1;
    await publisher().d1({
      database: d.database,
      remote: d.remote,
      persistTo: d.persistTo ? resolvePath(configFile, d.persistTo) : undefined,
    });
    published.push(`d1:${d.database}${d.remote ? ' (remote)' : ' (local)'}`);
  }
  if (c.publish.command) {
    const [cmd, ...args] = c.publish.command;
    const run = p.runHook ?? failNoHookRunner();
    // in the config file's directory
    await run(cmd!, args, {
      cwd: dirname(configFile),
      env: { ...p.env, ARENA_DB: c.db, ARENA_REFRESH_ID: p.id },
    });
    published.push(c.publish.command.join(' '));
  }
  return published;
}

function failNoPublisher(): never {
  throw new ArenaError(
    '[ops:refresh] the config publishes a database copy or to D1, but this refresh was given no publisher (publish.sqlite / publish.d1 need the database file)',
  );
}

function failNoHookRunner(): never {
  throw new ArenaError(
    '[ops:refresh] the config runs publish.command, but this refresh was given no command runner (RefreshOptions.runHook)',
  );
}
