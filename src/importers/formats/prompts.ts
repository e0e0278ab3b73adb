// Judge prompt schemes in FastChat's judge_prompts.jsonl shape, their templates checked field by field.
import { z } from 'zod';
import { OUTPUT_FORMATS } from '../../core/schemes/index.ts';
import type { PromptScheme } from '../../core/types.ts';
import { check, describe, fail, parseJsonl, str, type Located } from './located.ts';

const PAIR_FIELDS = new Set([
  'question',
  'answer_a',
  'answer_b',
  'ref_answer_1',
  'question_1',
  'question_2',
  'answer_a_1',
  'answer_b_1',
  'answer_a_2',
  'answer_b_2',
  'ref_answer_2',
]);
const SINGLE_FIELDS = new Set([
  'question',
  'answer',
  'ref_answer_1',
  'question_1',
  'question_2',
  'answer_1',
  'answer_2',
  'ref_answer_2',
]);

const PromptLine = z.object({
  name: str.min(1, { error: 'must not be empty' }),
  type: z.enum(['pairwise', 'single'], {
    error: (i) => `expected "pairwise" or "single", got ${describe(i.input)}`,
  }),
  system_prompt: str,
  prompt_template: str,
  output_format: z.enum(['[[A]]', '[[rating]]', ...Object.keys(OUTPUT_FORMATS)], {
    error: (i) =>
      `expected "[[A]]", "[[rating]]" or a pairwise scheme format (${Object.keys(OUTPUT_FORMATS).join(', ')}), got ${describe(i.input)}`,
  }),
  category: str.optional(),
  description: str.optional(),
});

export function parsePrompts(file: string, bytes: Uint8Array): PromptScheme[] {
  return promptsFrom(file, parseJsonl(file, bytes));
}

/** parsePrompts over JSON values already read line by line. */
export function promptsFrom(file: string, rows: Iterable<Located<unknown>>): PromptScheme[] {
  const seen = new Map<string, number>();
  return Array.from(rows, ({ line, value }) => {
    const p = check(PromptLine, value, file, line);
    const prev = seen.get(p.name);
    if (prev !== undefined) fail(file, line, 'name', `duplicate prompt "${p.name}" (first on line ${prev})`);
    seen.set(p.name, line);
    if ((p.type === 'pairwise') !== (p.output_format !== '[[rating]]'))
      fail(
        file,
        line,
        'output_format',
        `a ${p.type} prompt must use ${p.type === 'pairwise' ? '"[[A]]" or a pairwise scheme format' : '"[[rating]]"'}`,
      );
    const allowed = p.type === 'pairwise' ? PAIR_FIELDS : SINGLE_FIELDS;
    const used = new Set<string>();
    // as Python's str.format: {{ and }} are literal braces, {name} a field; any other brace is an error
    for (const m of p.prompt_template.matchAll(/\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}|\{[^{}]*\}|[{}]/g)) {
      if (m[0] === '{{' || m[0] === '}}') continue;
      if (!m[1])
        fail(
          file,
          line,
          'prompt_template',
          m[0].length > 1
            ? `unsupported field ${m[0]}: only named fields like {question} are filled`
            : `a single "${m[0]}" at character ${m.index! + 1}: write "${m[0]}${m[0]}" for a literal brace`,
        );
      if (!allowed.has(m[1]))
        fail(
          file,
          line,
          'prompt_template',
          `unknown field {${m[1]}} (a ${p.type} template may use ${[...allowed].join(', ')})`,
        );
      used.add(m[1]);
    }
    const shows = (prefix: string) => [...used].some((f) => f.startsWith(prefix));
    if (p.type === 'pairwise' ? !shows('answer_a') || !shows('answer_b') : !shows('answer')) {
      fail(
        file,
        line,
        'prompt_template',
        p.type === 'pairwise'
          ? 'a pairwise template must show both answers ({answer_a} and {answer_b}, or {answer_a_1} … {answer_b_2})'
          : 'a single template must show the answer ({answer}, or {answer_1} and {answer_2})',
      );
    }
    return {
      name: p.name,
      type: p.type,
      systemPrompt: p.system_prompt,
      promptTemplate: p.prompt_template,
      outputFormat: p.output_format,
      ...(p.category ? { category: p.category } : {}),
      ...(p.description ? { description: p.description } : {}),
    };
  });
}
