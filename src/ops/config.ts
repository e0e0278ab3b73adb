// Config files of `arena refresh` and `arena checkpoints`: JSON checked by zod; every problem names
// the file, the line and the field.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { ArenaError } from '../core/types.ts';
import { fieldPath, formatIssueLine, issueLines } from '../core/zod-issues.ts';
import { DEFAULT_REFERENCE_SOURCE } from '../core/constants.ts';
import { databaseFileOf } from '../storage/same-file.ts';
import { jsonLines } from '../importers/json-spans.ts';
import { JudgeConfig, Juries, Succession } from './judges-config.ts';
import type { JuryDef } from '../core/jury.ts';

export { JudgeConfig, Price } from './judges-config.ts';

/** matches (both orders) per round of an adaptive run */
const Round = z.number().int().min(1);

/**
 * `untilSettled` of a pairwise-all mode: `true`, or its options (`target`: also stop once the rank intervals'
 * widths sum to at most this).
 */
export const SettleAll = z.union([
  z.boolean(),
  z.strictObject({ round: Round.optional(), target: z.number().min(0).optional() }),
]);

/** `untilSettled` of a pairwise-baseline mode: a model stops once its interval excludes 50% or is under `width`. */
export const SettleBaseline = z.union([
  z.boolean(),
  z.strictObject({ round: Round.optional(), width: z.number().gt(0).max(1).optional() }),
]);

/** An `untilSettled` value as the engine's options (undefined: play the whole plan). */
export function settleOptions(
  v: z.infer<typeof SettleAll> | z.infer<typeof SettleBaseline> | undefined,
): { round?: number; target?: number; width?: number } | undefined {
  if (!v) return undefined;
  return v === true ? {} : v;
}

/** What a config sets for every tournament it plays: questions, turns, prompts, references and settings. */
export function tournamentOf(
  c: Pick<RefreshConfig, 'questionIds' | 'turns' | 'promptSet' | 'referenceSource' | 'settings'>,
) {
  return {
    ...(c.questionIds ? { questionIds: c.questionIds } : {}),
    turns: c.turns,
    ...(c.promptSet ? { promptSet: c.promptSet } : {}),
    referenceSource: c.referenceSource,
    settings: c.settings,
  };
}

/** The drift canary's tournament (its matches re-judged on every refresh, `nonce` making them new games). */
export function canaryTournament(c: RefreshConfig, nonce: string) {
  const k = c.canary!;
  return {
    ...tournamentOf(c),
    mode: 'pairwise-all' as const,
    models: k.models,
    questionIds: k.questionIds,
    turns: k.turns,
    settings: { ...c.settings, canary: nonce },
  };
}

const ModeConfig = z.discriminatedUnion('mode', [
  z.strictObject({
    mode: z.literal('pairwise-all'),
    models: z.array(z.string().min(1)).optional(),
    untilSettled: SettleAll.optional(),
  }),
  z.strictObject({
    mode: z.literal('pairwise-baseline'),
    baseline: z.string().min(1),
    models: z.array(z.string().min(1)).optional(),
    untilSettled: SettleBaseline.optional(),
  }),
  z.strictObject({ mode: z.literal('single'), models: z.array(z.string().min(1)).optional() }),
]);

/** The fields every config that plays tournaments has (refresh, checkpoints), spread into each schema. */
export const INPUTS = {
  /** free text for the reader (JSON has no comments) */
  $comment: z.union([z.string(), z.array(z.string())]).optional(),
  /** the SQLite database the job writes */
  db: z.string().min(1),
  questions: z.array(z.string().min(1)).min(1),
  references: z.array(z.string().min(1)).default([]),
  prompts: z.array(z.string().min(1)).default([]),
};
export const JUDGING = {
  settings: z
    .strictObject({
      /** default: 0 for chat models, none sent to reasoning models (judges/contract.ts) */
      temperature: z.number().min(0).max(2).optional(),
      maxTokens: z.number().int().positive().default(2048),
    })
    .default({ maxTokens: 2048 }),
  promptSet: z.string().optional(),
  referenceSource: z.string().default(DEFAULT_REFERENCE_SOURCE),
  parser: z.enum(['last', 'fastchat']).default('last'),
};

export const RefreshConfig = z.strictObject({
  ...INPUTS,
  /** model_answer files or directories of them (each file's model as `arena import answers` names it) */
  answers: z.array(z.string().min(1)).min(1),
  /** the models to judge, in pairing order (default: every model of the answer files, sorted) */
  models: z.array(z.string().min(1)).optional(),
  questionIds: z.array(z.number().int()).optional(),
  turns: z.array(z.number().int().min(1).max(2)).default([1, 2]),
  judges: z.array(JudgeConfig).min(1),
  /** juries of judges (`jury/<name>`), pooled on read from their members' games (src/ops/judges-config.ts) */
  juries: Juries,
  /** a judge with `succeeds`: its bridge (`arena judges succession`) and when the board switches to it */
  succession: Succession,
  modes: z
    .array(ModeConfig)
    .min(1)
    .default([{ mode: 'pairwise-all' }]),
  ...JUDGING,
  /** how the dry run estimates tokens before any game of a judge is stored (then: calibrated from its stored games) */
  estimate: z
    .strictObject({
      charsPerToken: z.number().positive().default(4),
      outputTokens: z.number().int().positive().optional(),
    })
    .default({ charsPerToken: 4 }),
  /** a hard cap on what one refresh may spend, in USD */
  budget: z.strictObject({ maxUsd: z.number().nonnegative() }).optional(),
  /** degraded when a judge's rate rises by more than this vs the last refresh that measured it */
  health: z
    .strictObject({
      maxErrorRateJump: z.number().min(0).max(1).default(0.1),
      maxInconsistencyJump: z.number().min(0).max(1).default(0.15),
      minGames: z.number().int().positive().default(10),
    })
    .default({ maxErrorRateJump: 0.1, maxInconsistencyJump: 0.15, minGames: 10 }),
  /** the drift canary: these matches are re-judged on every refresh and compared with the last time */
  canary: z
    .strictObject({
      models: z.array(z.string().min(1)).min(2),
      questionIds: z.array(z.number().int()).min(1),
      turns: z.array(z.number().int().min(1).max(2)).default([1]),
      /** drift when more than this fraction of the anchor games changed verdict */
      maxChangeRate: z.number().min(0).max(1).default(0.2),
    })
    .optional(),
  publish: z
    .strictObject({
      /** copy the database here atomically (VACUUM INTO + rename) for `arena serve --db` */
      sqlite: z.string().min(1).optional(),
      /** push the database to the site's D1 through `arena publish` (wrangler d1 execute) */
      d1: z
        .strictObject({
          database: z.string().min(1).default('mt-arena'),
          remote: z.boolean().default(false),
          persistTo: z.string().optional(),
        })
        .optional(),
      /** run this command (in the config file's directory) after a refresh that was not interrupted; ARENA_DB names the database, ARENA_REFRESH_ID the refresh */
      command: z.array(z.string()).min(1).optional(),
      /** seconds the command may run; then it is stopped (its process group) and the refresh fails */
      commandTimeoutS: z.number().positive().default(600),
      /** show what the refresh cost on the public /refreshes page and /api/refreshes (default: hidden) */
      showCost: z.boolean().default(false),
      /** the judge whose board the site's home page shows (default: the one with the most matches) */
      judge: z.string().min(1).optional(),
    })
    .optional(),
});
export type RefreshConfig = z.infer<typeof RefreshConfig>;

/** A config with its paths resolved against the config file's directory. */
export interface Loaded<T> {
  file: string;
  text: string;
  config: T;
}

/** Read a JSON config file (or `given` as its text) and check it; errors read `FILE:LINE: field "a.b": message`. */
export function loadJsonConfig<S extends z.ZodType>(
  file: string,
  schema: S,
  given?: string,
): Loaded<z.infer<S>> {
  let text: string;
  try {
    text = given ?? readFileSync(file, 'utf8');
  } catch (e) {
    throw new ArenaError(
      `${file}: cannot read the config (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      { file },
      { cause: e },
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    const pos = /position (\d+)/.exec((e as Error).message);
    let line = pos ? lineAt(text, Number(pos[1])) : undefined;
    if (line === undefined)
      try {
        jsonLines(text);
      } catch (x) {
        if (typeof x === 'number') line = x;
      }
    throw new ArenaError(`${file}${line ? `:${line}` : ''}: not valid JSON: ${(e as Error).message}`, {
      file,
      ...(line ? { line } : {}),
    });
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    const lines = jsonLines(text);
    const msgs = issueLines(r.error, (path) => {
      let line: number | undefined;
      for (let n = path.length; n >= 0 && line === undefined; n--)
        line = lines.get(JSON.stringify(path.slice(0, n)));
      return { at: `${file}${line ? `:${line}` : ''}`, field: fieldPath(path), ...(line ? { line } : {}) };
    });
    throw new ArenaError(msgs.map(formatIssueLine).join('\n'), {
      file,
      ...(msgs[0]!.line ? { line: msgs[0]!.line } : {}),
      field: msgs[0]!.field!,
    });
  }
  return { file, text, config: r.data };
}

/** Load a refresh config; relative paths from the config's directory, after `${NAME:-default}` from `env`. */
export function loadRefreshConfig(file: string, env: Env = {}): Loaded<RefreshConfig> {
  const l = loadJsonConfig(file, RefreshConfig);
  const c = l.config;
  const at = resolveInputs(file, c, env);
  c.answers = c.answers.map(at);
  if (c.publish?.sqlite) c.publish.sqlite = at(c.publish.sqlite);
  refuseDatabaseTarget(l, ['publish', 'sqlite'], c.publish?.sqlite, c.db);
  refuseRepeats(l);
  return l;
}

/** Any config file's `juries` (a refresh config's, or a file of juries alone); its other fields are left alone. */
export function loadJuries(file: string): JuryDef[] {
  const { config } = loadJsonConfig(file, z.looseObject({ juries: Juries }));
  if (!config.juries.length) throw new ArenaError(`${file}: no "juries" defined`, { file });
  return config.juries;
}

type Env = Record<string, string | undefined>;

/** The INPUTS paths resolved (see loadRefreshConfig); returns the resolver, for the config's other paths. */
export function resolveInputs(
  file: string,
  c: { db: string; questions: string[]; references: string[]; prompts: string[] },
  env: Env,
): (p: string) => string {
  const at = (p: string) => resolvePath(file, expandVariable(file, p, env));
  c.db = c.db === ':memory:' ? c.db : at(c.db);
  c.questions = c.questions.map(at);
  c.references = c.references.map(at);
  c.prompts = c.prompts.map(at);
  return at;
}

const LEADING_VARIABLE = /^\$\{([A-Z_][A-Z0-9_]*)(?::-([^}]*))?\}/;

/** A path's leading `${NAME}` (or `${NAME:-default}` when NAME is unset or empty) replaced from `env`. */
export function expandVariable(configFile: string, p: string, env: Env): string {
  const m = LEADING_VARIABLE.exec(p);
  if (!m) return p;
  const value = env[m[1]!] || m[2];
  if (value === undefined || value === '')
    throw new ArenaError(`${configFile}: the path "${p}" names \${${m[1]}}, which is not set`, {
      file: configFile,
    });
  return value + p.slice(m[0].length);
}

/** Refuse an output file that is the database or its -wal/-shm: a copy renamed over a live one corrupts it. */
export function refuseDatabaseTarget(
  l: { file: string; text: string },
  path: string[],
  target: string | undefined,
  db: string,
): void {
  if (target === undefined) return;
  const hit = databaseFileOf(target, db);
  if (!hit) return;
  throw configError(
    l,
    path,
    `${target} is ${hit === db ? 'the database (db)' : `the database's ${hit.slice(db.length + 1)} file`} itself; writing there would destroy it: choose another file`,
  );
}

/** A rejected value of a config file, as a schema's are said: `FILE:LINE: field "a.b[0]": message`. */
export function configError(l: { file: string; text: string }, path: (string | number)[], message: string) {
  let line: number | undefined;
  try {
    line = jsonLines(l.text).get(JSON.stringify(path));
  } catch {
    line = undefined;
  }
  const field = fieldPath(path);
  return new ArenaError(formatIssueLine({ at: `${l.file}${line ? `:${line}` : ''}`, field, message }), {
    file: l.file,
    ...(line ? { line } : {}),
    field,
  });
}

/** A judge or mode listed twice would be planned and priced twice but played once: refused, naming the second. */
function refuseRepeats(l: Loaded<RefreshConfig>): void {
  const c = l.config;
  const lists = [
    ['judges', c.judges.map((j) => `judge "${j.id}"`)],
    ['modes', c.modes.map((m) => `mode ${m.mode}${'baseline' in m ? ` (baseline ${m.baseline})` : ''}`)],
  ] as const;
  for (const [list, keys] of lists)
    keys.forEach((k, i) => {
      const first = keys.indexOf(k);
      if (first < i)
        throw configError(
          l,
          [list, i],
          `${k} is ${list}[${first}] too; list each once (its games would be planned and priced twice)`,
        );
    });
}

export function resolvePath(configFile: string, p: string): string {
  return isAbsolute(p) ? p : resolve(dirname(configFile), p);
}

function lineAt(text: string, pos: number): number {
  let line = 1;
  for (let i = 0; i < pos && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
