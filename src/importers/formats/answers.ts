// Answers in FastChat's model_answer/<model>.jsonl shape, and reference answers in the same shape.
import { z } from 'zod';
import type { Answer, ReferenceAnswer } from '../../core/types.ts';
import {
  check,
  describe,
  fail,
  int,
  modelNameProblem,
  parseJsonl,
  questionIdOf,
  str,
  turnsArray,
  type Located,
} from './located.ts';

const AnswerLine = z.object({
  question_id: questionIdOf,
  answer_id: str.optional(),
  model_id: str.optional(),
  choices: z
    .array(z.object({ index: int.optional(), turns: turnsArray }), {
      error: (i) => (i.input === undefined ? 'is missing' : `expected an array, got ${describe(i.input)}`),
    })
    .min(1, { error: 'needs at least one choice' }),
});

/** The model id is the file name without .jsonl, as FastChat's load_model_answers does. */
export function modelFromFile(file: string): string {
  return file.replace(/^.*[\\/]/, '').replace(/\.jsonl$/, '');
}

/**
 * Answers in FastChat's model_answer/<model>.jsonl shape. `questions` maps the known question ids
 * to their number of turns: an answer to an unknown question, or with another number of turns, is an error.
 */
export function parseAnswers(
  file: string,
  bytes: Uint8Array,
  questions: Map<number, number>,
  model = modelFromFile(file),
): Answer[] {
  return answersFrom(file, parseJsonl(file, bytes), questions, model);
}

/** parseAnswers over JSON values already read line by line (src/importers/lines.ts reads a file so, without holding its text). */
export function answersFrom(
  file: string,
  rows: Iterable<Located<unknown>>,
  questions: Map<number, number>,
  model = modelFromFile(file),
): Answer[] {
  const one = answerChecker(file, questions, model);
  return Array.from(rows, ({ line, value }) => one(line, value));
}

/** One answers line checked (schema, duplicate, known question, its number of turns): for a file read line by line. */
export function answerChecker(
  file: string,
  questions: Map<number, number>,
  model = modelFromFile(file),
): (line: number, value: unknown) => Answer {
  const bad = modelNameProblem(model);
  if (bad)
    fail(
      file,
      undefined,
      'model',
      `${bad}: the model is named after the file (<model>.jsonl); rename the file`,
    );
  const seen = new Map<number, number>();
  return (line, value) => {
    const a = check(AnswerLine, value, file, line);
    const prev = seen.get(a.question_id);
    if (prev !== undefined)
      fail(
        file,
        line,
        'question_id',
        `duplicate answer to question ${a.question_id} (first on line ${prev})`,
      );
    seen.set(a.question_id, line);
    const n = questions.get(a.question_id);
    if (n === undefined)
      fail(
        file,
        line,
        'question_id',
        `answer to unknown question ${a.question_id} (import its questions first)`,
      );
    const turns = a.choices[0]!.turns;
    if (turns.length !== n)
      fail(
        file,
        line,
        'choices[0].turns',
        `question ${a.question_id} has ${n} turn(s), the answer has ${turns.length}`,
      );
    return { model, questionId: a.question_id, turns, ...(a.answer_id ? { answerId: a.answer_id } : {}) };
  };
}

/** Reference answers (in the answers shape) over JSON values already read line by line. */
export function referencesFrom(
  file: string,
  rows: Iterable<Located<unknown>>,
  questions: Map<number, number>,
  source = modelFromFile(file),
): ReferenceAnswer[] {
  return answersFrom(file, rows, questions, source).map((a) => ({
    source,
    questionId: a.questionId,
    turns: a.turns,
  }));
}
