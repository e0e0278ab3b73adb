// Step 5 of a refresh: publish what is judged (a database copy, D1, the config's command). The targets that
// need the database file, and the running of the command, are the caller's (RefreshOptions.publish, runHook).
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ArenaError } from '../../core/types.ts';
import { resolvePath, type RefreshConfig } from '../config.ts';
import type { Env, HookEnd, Publisher, RunHook } from '../deps.ts';

export type Target = 'sqlite' | 'd1' | 'command';

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
  /** stops the command (its process group) */
  signal?: AbortSignal | undefined;
  /** only these targets (default: all the config names) */
  only?: Target[];
}

/** Publishes to each target of `c.publish`, in order, adding each to `done` once it is published. */
export async function publishRefresh(p: PublishInput, done: { targets: Target[]; published: string[] }) {
  const { c, configFile } = p;
  if (!c.publish) return;
  const wanted = (t: Target) => !p.only || p.only.includes(t);
  const did = (t: Target, what: string) => (done.targets.push(t), done.published.push(what));
  const publisher = () => p.publish ?? failNoPublisher();
  if (c.publish.sqlite && wanted('sqlite')) {
    await publisher().sqliteCopy(c.publish.sqlite);
    did('sqlite', c.publish.sqlite);
    p.log(`published ${c.publish.sqlite}`);
  }
  if (c.publish.d1 && wanted('d1')) {
    const d = c.publish.d1;
    await publisher().d1({
      database: d.database,
      remote: d.remote,
      persistTo: d.persistTo ? resolvePath(configFile, d.persistTo) : undefined,
    });
    did('d1', `d1:${d.database}${d.remote ? ' (remote)' : ' (local)'}`);
  }
  if (c.publish.command && wanted('command')) {
    const [cmd, ...args] = c.publish.command;
    const run = p.runHook ?? failNoHookRunner();
    // in the config file's directory
    const end = await run(cmd!, args, {
      cwd: dirname(configFile),
      env: { ...p.env, ARENA_DB: c.db, ARENA_REFRESH_ID: p.id },
      timeoutMs: c.publish.commandTimeoutS * 1000,
      signal: p.signal,
    });
    if (!('exit' in end) || end.exit !== 0) throw commandFailed(configFile, c, end);
    did('command', c.publish.command.join(' '));
  }
}

/** One line naming the config file, the field and how the command ended. */
function commandFailed(configFile: string, c: RefreshConfig, end: HookEnd): ArenaError {
  const pub = c.publish!;
  const how =
    'exit' in end
      ? `failed (exit code ${end.exit})`
      : 'signal' in end
        ? `was ended by ${end.signal}`
        : 'cannotStart' in end
          ? `cannot start (${end.cannotStart})`
          : end.stopped === 'timeout'
            ? `did not finish in ${pub.commandTimeoutS} s (publish.commandTimeoutS): stopped it`
            : 'stopped: the refresh was interrupted';
  return new ArenaError(`${configFile}: publish.command "${pub.command!.join(' ')}" ${how}`, {
    file: configFile,
    field: 'publish.command',
  });
}

/** A copy into a folder that does not exist would fail only after every game was played: said before. */
export function refuseMissingFolder(configFile: string, c: RefreshConfig): void {
  const file = c.publish?.sqlite;
  if (!file) return;
  let isDir = false;
  try {
    isDir = statSync(dirname(file)).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir)
    throw new ArenaError(
      `${configFile}: field "publish.sqlite": ${dirname(file)} is not a folder (create it, or name another), so ${file} cannot be written`,
      { file: configFile, field: 'publish.sqlite' },
    );
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
