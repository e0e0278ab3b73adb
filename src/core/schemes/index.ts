// Prompt schemes of the fine-tuned judges and Arena-Hard, each with its own output parser.
// The templates are data (questions/judge_schemes.jsonl); a scheme's `outputFormat` names its parser here.
import type { PromptSet } from '../prompts.ts';
import type { PromptScheme } from '../types.ts';
import { LLMBAR_VANILLA, parseLlmbar } from '../llmbar.ts';
import { parseArenaHard } from './arena-hard.ts';
import { parseAutoJ } from './autoj.ts';
import { parseJudgeLM } from './judgelm.ts';
import { parsePandaLM } from './pandalm.ts';
import { parsePrometheusRelative } from './prometheus.ts';
import type { SchemeReading } from './types.ts';

export type { SchemeReading } from './types.ts';

/** A pairwise output format with its own parser (the `output_format` of a judge prompt scheme). */
export interface OutputFormat {
  /** the `output_format` value in judge_prompts.jsonl */
  name: string;
  /** stored with every verdict it parses; `arena reparse` re-reads such games with the current version */
  version: string;
  /** where the format and the judge's own parser are documented */
  source: string;
  parse(reply: string): SchemeReading;
}

export const OUTPUT_FORMATS: Record<string, OutputFormat> = {
  judgelm: {
    name: 'judgelm',
    version: 'judgelm@1',
    source: 'github.com/baaivision/JudgeLM judgelm/llm_judge/common.py (parse_score)',
    parse: parseJudgeLM,
  },
  pandalm: {
    name: 'pandalm',
    version: 'pandalm@1',
    source: 'github.com/WeOpenML/PandaLM pandalm/utils/pandalm_inference.py (parse_pandalm_response)',
    parse: parsePandaLM,
  },
  autoj: {
    name: 'autoj',
    version: 'autoj@1',
    source: 'github.com/GAIR-NLP/auto-j codes/usage/example.py (extract_pariwise_result)',
    parse: parseAutoJ,
  },
  'prometheus-relative': {
    name: 'prometheus-relative',
    version: 'prometheus-relative@1',
    source: 'github.com/prometheus-eval/prometheus-eval libs/prometheus-eval/prometheus_eval/parser.py',
    parse: parsePrometheusRelative,
  },
  llmbar: {
    name: 'llmbar',
    version: 'llmbar@1',
    source:
      'github.com/princeton-nlp/LLMBar LLMEvaluator/evaluators (Output (a)/(b)), made strict: naming both is an error',
    parse: parseLlmbar,
  },
  'arena-hard': {
    name: 'arena-hard',
    version: 'arena-hard@1',
    source: 'github.com/lmarena/arena-hard-auto gen_judgment.py (get_score), show_result.py',
    parse: parseArenaHard,
  },
};

/**
 * A prompt set as the built-in ones are named: a plain scheme and a reference-based one (the plain one where a
 * judge has none), each with its multi-turn twin (`<name>-multi-turn`).
 */
export function promptSet(
  plain: string,
  ref = plain,
  multiTurn = (name: string) => `${name}-multi-turn`,
): PromptSet {
  return { default: plain, ref, defaultMultiTurn: multiTurn(plain), refMultiTurn: multiTurn(ref) };
}

/**
 * The prompt sets of these schemes, selectable as `arena run --prompts <name>` (pairwise modes only).
 * A judge without a reference-based or multi-turn template uses its plain one for those games.
 */
export const SCHEME_PROMPT_SETS: Record<string, { pairwise: PromptSet }> = {
  judgelm: { pairwise: promptSet('judgelm-pair-v1', 'judgelm-pair-ref-v1') },
  pandalm: { pairwise: promptSet('pandalm-pair-v1') },
  autoj: { pairwise: promptSet('autoj-pair-v1') },
  prometheus: { pairwise: promptSet('prometheus-rel-v1', 'prometheus-rel-ref-v1') },
  'arena-hard': { pairwise: promptSet('arena-hard-v1', 'arena-hard-ref-v1') },
};

/** Prompt schemes defined in code rather than in a prompts file (imported into a database when missing). */
export const CODE_SCHEMES: PromptScheme[] = [LLMBAR_VANILLA];

/** Their prompt sets: LLMBar's plain prompt is single-turn and pairwise only. */
export const CODE_PROMPT_SETS: Record<string, { pairwise: PromptSet }> = {
  llmbar: { pairwise: promptSet(LLMBAR_VANILLA.name, LLMBAR_VANILLA.name, (name) => name) },
};

/** Every prompt name of the sets above (they ship in questions/judge_schemes.jsonl). */
export const SCHEME_PROMPT_NAMES: ReadonlySet<string> = new Set(
  Object.values(SCHEME_PROMPT_SETS).flatMap((s) => Object.values(s.pairwise)),
);

/** The scheme-specific parser of a prompt's output format, or undefined for `[[A]]` / `[[rating]]`. */
export function outputFormatOf(format: string | undefined): OutputFormat | undefined {
  return format === undefined
    ? undefined
    : Object.hasOwn(OUTPUT_FORMATS, format)
      ? OUTPUT_FORMATS[format]
      : undefined;
}

/** The format whose parser wrote a stored parser version ("judgelm@1" -> judgelm), or undefined. */
export function outputFormatOfVersion(version: string): OutputFormat | undefined {
  return outputFormatOf(version.split('@')[0]);
}
