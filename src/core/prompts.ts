import { CODE_PROMPT_SETS, promptSet, SCHEME_PROMPT_SETS } from './schemes/index.ts';
import { ArenaError, type PromptScheme, type PromptType } from './types.ts';

/** Categories whose questions are judged against a reference answer (FastChat's NEED_REF_CATS). */
export const NEED_REF_CATS = new Set(['math', 'reasoning', 'coding', 'arena-hard-200']);

/** Which scheme judges which kind of game: (reference-based or not) × (turn 1 or multi-turn). */
export interface PromptSet {
  default: string;
  ref: string;
  defaultMultiTurn: string;
  refMultiTurn: string;
}

/**
 * Built-in prompt sets. `mt-bench` are FastChat's names (import judge_prompts.jsonl to use them). The
 * fine-tuned judges' and Arena-Hard's sets (pairwise only) come from src/core/schemes.
 */
const CORE_SETS = {
  'mt-bench': {
    pairwise: promptSet('pair-v2', 'pair-math-v1'),
    single: promptSet('single-v1', 'single-math-v1'),
  },
  arena: {
    pairwise: promptSet('arena-pair-v1', 'arena-pair-ref-v1'),
    single: promptSet('arena-single-v1', 'arena-single-ref-v1'),
  },
} satisfies Record<string, Record<PromptType, PromptSet>>;
export const PROMPT_SETS: { [K in keyof typeof CORE_SETS]: Record<PromptType, PromptSet> } & Record<
  string,
  { pairwise: PromptSet; single?: PromptSet }
> = { ...CORE_SETS, ...SCHEME_PROMPT_SETS, ...CODE_PROMPT_SETS };

export function schemeNameFor(set: PromptSet, category: string, turn: number): string {
  const ref = NEED_REF_CATS.has(category);
  if (turn === 1) return ref ? set.ref : set.default;
  return ref ? set.refMultiTurn : set.defaultMultiTurn;
}

/**
 * Python `str.format` with keyword fields only, as FastChat fills its templates: `{name}` is
 * replaced, `{{` and `}}` are literal braces, an unknown field is an error.
 */
export function formatTemplate(template: string, fields: Record<string, string>, where = 'template'): string {
  return template.replace(/\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (m, name: string | undefined) => {
    if (m === '{{') return '{';
    if (m === '}}') return '}';
    const v = fields[name!];
    if (v === undefined)
      throw new ArenaError(
        `${where}: the template asks for field {${name}}, which this game does not provide`,
      );
    return v;
  });
}

export interface RenderInput {
  scheme: PromptScheme;
  /** the question's user turns */
  questionTurns: string[];
  /** 1-based turn being judged */
  turn: number;
  /** answer shown as A (or the only answer in single grading) */
  answerA: string[];
  /** answer shown as B (pairwise only) */
  answerB?: string[];
  /** reference answer turns, for reference-based schemes */
  reference?: string[];
}

/** Render the system and user messages of one game exactly as FastChat's run_judge_pair / run_judge_single do. */
export function renderPrompt(input: RenderInput): { system: string; user: string } {
  const { scheme, questionTurns: q, turn, answerA: a, answerB: b, reference: ref } = input;
  if (scheme.type === 'pairwise' && !b)
    throw new ArenaError(`prompt ${scheme.name}: a pairwise scheme needs two answers`);
  // FastChat's fields: question, answer_a/answer_b (or answer), with _1/_2 suffixes when judging turn 2
  const texts: Record<string, string[]> =
    scheme.type === 'pairwise' ? { question: q, answer_a: a, answer_b: b! } : { question: q, answer: a };
  const f: Record<string, string> = {};
  for (const [field, turns] of Object.entries(texts))
    if (turn > 1) [f[`${field}_1`], f[`${field}_2`]] = [turns[0]!, turns[1]!];
    else f[field] = turns[0]!;
  if (ref) {
    f.ref_answer_1 = ref[0]!;
    if (ref[1] !== undefined) f.ref_answer_2 = ref[1];
  }
  return {
    system: scheme.systemPrompt,
    user: formatTemplate(scheme.promptTemplate, f, `prompt ${scheme.name}`),
  };
}
