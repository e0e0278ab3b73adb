import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolvePromptSet } from '../core/plan.ts';
import { PROMPT_SETS, type PromptSet } from '../core/prompts.ts';
import { CODE_SCHEMES, SCHEME_PROMPT_NAMES } from '../core/schemes/index.ts';
import { ArenaError, type Mode, type PromptScheme } from '../core/types.ts';
import type { Store } from '../storage/store.ts';
import { AUTOJ_HOW_TO, AUTOJ_SCHEME_NAMES } from './autoj.ts';
import { parsePrompts } from './formats.ts';

/** The project's own data, shipped in questions/ (see questions/README.md). */
export const BUILTIN = {
  questions: fileURLToPath(new URL('../../questions/arena.jsonl', import.meta.url)),
  prompts: fileURLToPath(new URL('../../questions/judge_prompts.jsonl', import.meta.url)),
  /** the fine-tuned judges' and Arena-Hard's prompt schemes (src/core/schemes) */
  schemes: fileURLToPath(new URL('../../questions/judge_schemes.jsonl', import.meta.url)),
  answersDir: fileURLToPath(new URL('../../questions/answers', import.meta.url)),
};

/**
 * The shipped prompts a database lacks: the schemes defined in code, the `arena` prompt set when any of it is
 * missing, and questions/judge_schemes.jsonl when `wanted` names one of its schemes. Reads only.
 */
async function missingBuiltinPrompts(
  store: { catalog: Pick<Store['catalog'], 'prompts'> },
  wanted: string[] = [],
): Promise<PromptScheme[]> {
  const have = new Set((await store.catalog.prompts()).map((p) => p.name));
  const code = CODE_SCHEMES.filter((p) => !have.has(p.name));
  const needed = Object.values(PROMPT_SETS.arena!).flatMap((s) => Object.values(s));
  const files = [
    ...(needed.some((n) => !have.has(n)) && existsSync(BUILTIN.prompts) ? [BUILTIN.prompts] : []),
    ...(wanted.some((n) => SCHEME_PROMPT_NAMES.has(n) && !have.has(n)) && existsSync(BUILTIN.schemes)
      ? [BUILTIN.schemes]
      : []),
  ];
  return [...code, ...files.flatMap((f) => parsePrompts(f, readFileSync(f)))];
}

/** Import what missingBuiltinPrompts finds missing; whether anything was imported. */
export async function ensureBuiltinPrompts(store: Store, wanted: string[] = []): Promise<boolean> {
  const prompts = await missingBuiltinPrompts(store, wanted);
  if (prompts.length) await store.importBundle({ prompts });
  return prompts.length > 0;
}

/**
 * The shipped prompts a run in `mode` with `promptSet` needs and the database lacks; planning reads only, so
 * whoever prepares a store imports these first (runPrompts).
 */
export async function missingRunPrompts(
  store: { catalog: Pick<Store['catalog'], 'prompts'> },
  mode: Mode,
  promptSet?: string | PromptSet,
): Promise<PromptScheme[]> {
  const have = new Set((await store.catalog.prompts()).map((p) => p.name));
  const names = Object.values(resolvePromptSet(promptSet, mode, have));
  const notShipped = names.find((n) => (AUTOJ_SCHEME_NAMES as readonly string[]).includes(n) && !have.has(n));
  if (notShipped)
    throw new ArenaError(
      `prompt "${notShipped}" is not in the database: Auto-J's template is not shipped (its project has no licence); ${AUTOJ_HOW_TO}`,
    );
  return names.every((n) => have.has(n)) ? [] : missingBuiltinPrompts(store, names);
}

/** Import the shipped prompts a run in each of `modes` needs (missingRunPrompts), before it is planned. */
export async function ensureRunPrompts(
  store: Store,
  modes: Mode[],
  promptSet?: string | PromptSet,
): Promise<void> {
  for (const mode of new Set(modes)) {
    const prompts = await missingRunPrompts(store, mode, promptSet);
    if (prompts.length) await store.importBundle({ prompts });
  }
}
