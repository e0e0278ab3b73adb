import v8 from 'node:v8';
import { defineCommand, renderUsage, runCommand, type showUsage } from 'citty';
import { ArenaError } from '../core/types.ts';
import { nearMisses } from '../core/suggest.ts';
import { userMessage, verboseSwitch, verbosity } from './errors.ts';
import { UsageError } from './format.ts';
import { exitStatus } from './shared.ts';
import { checkNumericOptions } from './validate.ts';

// Commands load lazily: `arena standings` never loads the OpenAI SDK or the web server.
export const main = defineCommand({
  meta: {
    name: 'arena',
    version: '0.1.0',
    description: 'MT-Bench-style pairwise tournaments and leaderboards',
  },
  subCommands: {
    import: () => import('./commands/import.ts').then((m) => m.default),
    run: () => import('./commands/run.ts').then((m) => m.default),
    reparse: () => import('./commands/reparse.ts').then((m) => m.reparseCommand),
    standings: () => import('./commands/results.ts').then((m) => m.standingsCommand),
    agreement: () => import('./commands/results.ts').then((m) => m.agreementCommand),
    ratings: () => import('./commands/results.ts').then((m) => m.ratingsCommand),
    judges: () => import('./commands/judges.ts').then((m) => m.judgesCommand),
    runs: () => import('./commands/runs.ts').then((m) => m.runsCommand),
    prune: () => import('./commands/prune.ts').then((m) => m.pruneCommand),
    migrate: () => import('./commands/migrate.ts').then((m) => m.migrateCommand),
    export: () => import('./commands/export.ts').then((m) => m.exportCommand),
    serve: () => import('./commands/serve.ts').then((m) => m.serveCommand),
    start: () => import('./commands/serve.ts').then((m) => m.startCommand),
    bias: () => import('./commands/bias.ts').then((m) => m.biasCommand),
    kappa: () => import('./commands/kappa.ts').then((m) => m.kappaCommand),
    intervals: () => import('./commands/intervals.ts').then((m) => m.intervalsCommand),
    length: () => import('./commands/length.ts').then((m) => m.lengthCommand),
    power: () => import('./commands/power.ts').then((m) => m.powerCommand),
    health: () => import('./commands/health.ts').then((m) => m.healthCommand),
    calibrate: () => import('./commands/calibrate.ts').then((m) => m.calibrateCommand),
    review: () => import('./commands/review.ts').then((m) => m.reviewCommand),
    publish: () => import('./commands/publish.ts').then((m) => m.publishCommand),
    refresh: () => import('./commands/ops.ts').then((m) => m.refreshCommand),
    refreshes: () => import('./commands/ops.ts').then((m) => m.refreshesCommand),
    cost: () => import('./commands/ops.ts').then((m) => m.costCommand),
    checkpoints: () => import('./commands/checkpoints.ts').then((m) => m.checkpointsCommand),
    accuracy: () => import('./commands/pairs.ts').then((m) => m.accuracyCommand),
    annotators: () => import('./commands/annotators.ts').then((m) => m.annotatorsCommand),
    reports: () => import('./commands/reports.ts').then((m) => m.reportsCommand),
  },
});

/** Options renamed to one spelling across commands (--turn, --judge); the old spelling still works where the new one exists. */
const OLD_SPELLINGS: Record<string, string> = { turns: 'turn', judges: 'judge' };

/** Where one run of the command reads and writes: the process's own unless given. */
interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** `arena ...args` as the process that runs it: the only place the command sets the process's exit status. */
export async function runAsProcess(args: string[] = process.argv.slice(2)): Promise<void> {
  // `arena … | head`: once the reader has gone, end quietly with the status so far (as SIGPIPE would)
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      process.exit(exitStatus.code);
    });
  }
  // a small old-generation growth step keeps the heap near its live data (docs/performance.md); V8 reads the flag
  // at every collection, so no node option is needed
  v8.setFlagsFromString('--heap-growing-percent=15');
  process.exitCode = await runCli(args);
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * `arena ...args`, resolving with its exit status; it never exits the process. Given `io`, the run sees it as its
 * process's streams, environment and directory (put back when it ends), so a run in a test is the command as a
 * user runs it; such runs take turns.
 */
export function runCli(args: string[], io?: Partial<CliIO>): Promise<number> {
  if (!io) return runArgs(args);
  const turn = queue.then(() => borrowProcess(io, () => runArgs(args)));
  queue = turn.catch(() => undefined);
  return turn;
}

async function borrowProcess(io: Partial<CliIO>, fn: () => Promise<number>): Promise<number> {
  const own = {
    stdout: Object.getOwnPropertyDescriptor(process, 'stdout')!,
    stderr: Object.getOwnPropertyDescriptor(process, 'stderr')!,
    env: process.env,
    cwd: process.cwd(),
  };
  const signals = ['SIGINT', 'SIGTERM'] as const;
  const listeners = signals.map((s) => process.listeners(s));
  for (const name of ['stdout', 'stderr'] as const) {
    const stream = io[name];
    if (stream)
      Object.defineProperty(process, name, { configurable: true, enumerable: true, get: () => stream });
  }
  if (io.env) process.env = io.env;
  if (io.cwd) process.chdir(io.cwd);
  try {
    return await fn();
  } finally {
    Object.defineProperty(process, 'stdout', own.stdout);
    Object.defineProperty(process, 'stderr', own.stderr);
    process.env = own.env;
    process.chdir(own.cwd);
    // a handler a command left on the process would outlive its run
    signals.forEach((s, i) => {
      for (const l of process.listeners(s)) if (!listeners[i]!.includes(l)) process.off(s, l);
    });
  }
}

async function runArgs(given: string[]): Promise<number> {
  const { verbose, args: rawArgs } = verboseSwitch(given, process.env);
  exitStatus.code = 0;
  verbosity.on = verbose;
  try {
    if (!rawArgs.length || rawArgs.includes('--help') || rawArgs.includes('-h')) {
      // not citty's showUsage: its consola is silent under NODE_ENV=test and in CI
      const [cmd, parent] = await resolveForUsage(rawArgs);
      // citty pads every line to the widest one; a terminal needs no trailing blanks
      const usage = (await renderUsage(cmd, parent)).replace(/`([^`\n]*)`/g, '$1').replace(/[ \t]+$/gm, '');
      process.stdout.write(`${usage}\n`);
    } else if (rawArgs[0] === '--version') {
      process.stdout.write('0.1.0\n');
    } else {
      const args = await checkOptions(rawArgs);
      const [cmd, rest] = await withOwnRun(args);
      await runCommand(cmd, { rawArgs: rest });
    }
  } catch (e) {
    const err = e as Error;
    const usage = err instanceof UsageError || err.name === 'CLIError';
    const known = usage || err instanceof ArenaError;
    process.stderr.write(
      `arena: ${known && !verbose ? userMessage(err.message, false) : (!known && diskFull(err)) || (err.stack ?? String(err))}\n`,
    );
    if (usage)
      process.stderr.write(
        `run \`${['arena', ...(await resolveForUsage(rawArgs))[2]].join(' ')} --help\` for usage\n`,
      );
    exitStatus.code = exitStatus.code || 1;
  }
  return exitStatus.code;
}

type Cmd = Parameters<typeof showUsage>[0];

/** A command's value that citty lets be given lazily (a function, a promise). */
async function resolved<T>(v: unknown): Promise<T> {
  return (await (typeof v === 'function' ? (v as () => unknown)() : v)) as T;
}

const argDefs = async (cmd: Cmd) =>
  (await resolved<Record<string, { type?: string; alias?: string | string[] }>>(cmd.args)) ?? {};

/** Find the sub-command that --help is about, and the words that name it (only known commands). */
async function resolveForUsage(args: string[]): Promise<[Cmd, Parameters<typeof showUsage>[1], string[]]> {
  let cmd: Cmd = main;
  let parent: Parameters<typeof showUsage>[1];
  const path: string[] = [];
  for (const a of args) {
    if (a.startsWith('-')) break;
    const next = (await resolved<Record<string, unknown> | undefined>(cmd.subCommands))?.[a];
    if (!next) break;
    // citty prints "<parent name> <name>": name the parent by its whole path ("arena import")
    parent = { ...cmd, meta: { name: ['arena', ...path].join(' ') } };
    path.push(a);
    cmd = await resolved<Cmd>(next);
  }
  return [cmd, parent, path];
}

/** The command the words name, run without its sub-commands (citty would also run a parent's own `run`). */
async function withOwnRun(args: string[]): Promise<[Parameters<typeof runCommand>[0], string[]]> {
  const [cmd, , path] = await resolveForUsage(args);
  if (path.length && cmd.run) return [{ ...cmd, subCommands: undefined }, args.slice(path.length)];
  return [main, args];
}

/** A word where a group expects a sub-command that names none (unless the group takes positional arguments). */
async function checkCommand(cmd: Cmd, path: string[], word: string | undefined) {
  if (!cmd.subCommands || word === undefined || word.startsWith('-')) return;
  if (cmd.run && Object.values(await argDefs(cmd)).some((d) => d.type === 'positional')) return;
  const subs = Object.keys((await resolved<object | undefined>(cmd.subCommands)) ?? {});
  const near = nearMisses(word, subs);
  throw new UsageError(
    `unknown command "${word}" for \`${['arena', ...path].join(' ')}\`${near.length ? ` (did you mean ${near.map((n) => `\`${['arena', ...path, n].join(' ')}\``).join(' or ')}?)` : ''}`,
  );
}

/** citty ignores options it does not know; a typo such as `--dry-rn` must not run a paid tournament. */
async function checkOptions(args: string[]): Promise<string[]> {
  const [cmd, , path] = await resolveForUsage(args);
  await checkCommand(cmd, path, args[path.length]);
  if (cmd.subCommands && !cmd.run) return args; // citty itself reports a missing sub-command
  const defs = await argDefs(cmd);
  const known = new Set<string>();
  const camel = (n: string) => n.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === 'positional') continue;
    for (const n of [name, ...[def.alias ?? []].flat()]) {
      for (const v of [n, camel(n)]) known.add(v);
      if (def.type === 'boolean') for (const v of [`no-${n}`, camel(`no-${n}`)]) known.add(v);
    }
  }
  const out = args.slice(0, path.length);
  const numbers: Record<string, string> = {};
  const rest = args.slice(path.length);
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--') {
      out.push(...rest.slice(i));
      break;
    }
    // a short flag (not a negative number): only the aliases a command declares
    if (/^-[^-\d.]/.test(a)) {
      if (!known.has(a.slice(1).split('=')[0]!))
        throw new UsageError(`unknown option ${a} for \`${['arena', ...path].join(' ')}\``);
      out.push(a);
      continue;
    }
    if (!a.startsWith('--')) {
      out.push(a);
      continue;
    }
    const [given, ...eq] = a.slice(2).split('=');
    // an old spelling (--turns) where the command has the new one (--turn)
    const now = OLD_SPELLINGS[given!];
    const name = now && defs[now] && !defs[given!] ? now : given!;
    if (!known.has(name)) {
      const near = nearMisses(
        name,
        [...known].filter((k) => !/[A-Z]/.test(k)),
      );
      throw new UsageError(
        `unknown option --${name} for \`${['arena', ...path].join(' ')}\`${near.length ? ` (did you mean ${near.map((n) => `--${n}`).join(' or ')}?)` : ''}`,
      );
    }
    const def = defs[name];
    // a value that looks like an option (`--retries -3`) is still this option's value
    const next = rest[i + 1];
    const value = eq.length
      ? eq.join('=')
      : def?.type === 'string' && next !== undefined && !next.startsWith('--')
        ? next
        : undefined;
    if (!eq.length && value !== undefined && def?.type === 'string') i++;
    if (value !== undefined) numbers[name] = value;
    out.push(value !== undefined ? `--${name}=${value}` : `--${name}`);
  }
  checkNumericOptions(numbers);
  return out;
}

/** The line for a write the disk had no room for (SQLite's SQLITE_FULL, or the system's ENOSPC). */
function diskFull(e: Error): string | undefined {
  const code = (e as { code?: unknown }).code;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC')
    return `the disk is full (${e.message}): the write under way was not stored (its transaction rolled back); free some space and run the command again`;
}
