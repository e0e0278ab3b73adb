// Small synthetic tournaments for the local-judge tests: short questions and answers of distinct lengths
// (so an answer-length judge has a known ranking), as a Store bundle or as FastChat-format files.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Answer, Question } from '../../../src/core/types.ts';
import { SCHEME_PROMPT_NAMES } from '../../../src/core/schemes/index.ts';
import { ensureBuiltinPrompts } from '../../../src/importers/builtin.ts';
import type { Store } from '../../../src/storage/store.ts';

export const CATEGORIES = ['writing', 'roleplay', 'stem', 'humanities', 'extraction'];

export function questions(n: number): Question[] {
  return Array.from({ length: n }, (_, i) => ({
    id: 100 + i,
    category: CATEGORIES[i % CATEGORIES.length]!,
    turns: [`Question ${i}: name ${i + 2} colours of the sky.`, `Now explain why, briefly (${i}).`],
  }));
}

/** Model k answers with k+1 sentences, so longer answers come from later models. */
export function answers(models: string[], qs: Question[]): Answer[] {
  return models.flatMap((model, k) =>
    qs.map((q) => ({
      model,
      questionId: q.id,
      turns: [
        Array.from({ length: k + 1 }, (_, s) => `Blue ${s} and grey ${q.id}.`).join(' '),
        `Because of light ${k}.`,
      ],
    })),
  );
}

export async function seed(store: Store, models: string[], nQuestions: number): Promise<Question[]> {
  const qs = questions(nQuestions);
  await store.importBundle({
    questions: { source: 'test', items: qs },
    answers: [{ source: 'test', items: answers(models, qs) }],
  });
  // planning reads only: a store prepared for a run holds the shipped prompts (arena, and the fine-tuned judges' schemes)
  await ensureBuiltinPrompts(store, [...SCHEME_PROMPT_NAMES]);
  return qs;
}

/** question.jsonl and model_answer/<model>.jsonl in FastChat's format, for the CLI. */
export function writeFiles(
  dir: string,
  models: string[],
  nQuestions: number,
): { questions: string; answers: string } {
  const qs = questions(nQuestions);
  mkdirSync(join(dir, 'model_answer'), { recursive: true });
  writeFileSync(
    join(dir, 'question.jsonl'),
    qs.map((q) => JSON.stringify({ question_id: q.id, category: q.category, turns: q.turns })).join('\n') +
      '\n',
  );
  const all = answers(models, qs);
  for (const model of models) {
    const rows = all
      .filter((a) => a.model === model)
      .map((a) =>
        JSON.stringify({
          question_id: a.questionId,
          answer_id: `${model}-${a.questionId}`,
          model_id: model,
          choices: [{ index: 0, turns: a.turns }],
          tstamp: 0,
        }),
      );
    writeFileSync(join(dir, 'model_answer', `${model}.jsonl`), rows.join('\n') + '\n');
  }
  return { questions: join(dir, 'question.jsonl'), answers: join(dir, 'model_answer') };
}
