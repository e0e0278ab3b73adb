import { CODE_PROMPT_SETS, SCHEME_PROMPT_SETS } from './schemes/index.ts';
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
    pairwise: {
      default: 'pair-v2',
      ref: 'pair-math-v1',
      defaultMultiTurn: 'pair-v2-multi-turn',
      refMultiTurn: 'pair-math-v1-multi-turn',
    },
    single: {
      default: 'single-v1',
      ref: 'single-math-v1',
      defaultMultiTurn: 'single-v1-multi-turn',
      refMultiTurn: 'single-math-v1-multi-turn',
    },
  },
  arena: {
    pairwise: {
      default: 'arena-pair-v1',
      ref: 'arena-pair-ref-v1',
      defaultMultiTurn: 'arena-pair-v1-multi-turn',
      refMultiTurn: 'arena-pair-ref-v1-multi-turn',
    },
    single: {
      default: 'arena-single-v1',
      ref: 'arena-single-ref-v1',
      defaultMultiTurn: 'arena-single-v1-multi-turn',
      refMultiTurn: 'arena-single-ref-v1-multi-turn',
    },
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
  const f: Record<string, string> = {};
  const multi = turn > 1;
  if (scheme.type === 'pairwise') {
    if (!b) throw new ArenaError(`prompt ${scheme.name}: a pairwise scheme needs two answers`);
    if (multi) {
      f.question_1 = q[0]!;
      f.question_2 = q[1]!;
      f.answer_a_1 = a[0]!;
      f.answer_b_1 = b[0]!;
      f.answer_a_2 = a[1]!;
      f.answer_b_2 = b[1]!;
    } else {
      f.question = q[0]!;
      f.answer_a = a[0]!;
      f.answer_b = b[0]!;
    }
  } else if (multi) {
    f.question_1 = q[0]!;
    f.question_2 = q[1]!;
    f.answer_1 = a[0]!;
    f.answer_2 = a[1]!;
  } else {
    f.question = q[0]!;
    f.answer = a[0]!;
  }
  if (ref) {
    f.ref_answer_1 = ref[0]!;
    if (ref[1] !== undefined) f.ref_answer_2 = ref[1];
  }
  return {
    system: scheme.systemPrompt,
    user: formatTemplate(scheme.promptTemplate, f, `prompt ${scheme.name}`),
  };
}
