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

/** Answers in FastChat's model_answer/<model>.jsonl shape, each to a known question with its number of turns. */
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

/** A model named after its file must be a model name (modelNameProblem). */
function refuseFileModel(file: string, model: string): void {
  const bad = modelNameProblem(model);
  if (bad)
    fail(
      file,
      undefined,
      'model',
      `${bad}: the model is named after the file (<model>.jsonl); rename the file`,
    );
}

/**
 * The model a whole answers file is stored under: the lines' `model_id` when all agree, else the file name (as
 * FastChat's load_model_answers), with a warning when the two differ: never a model nobody asked for.
 */
export function modelOfAnswers(
  file: string,
  named: ReadonlyMap<string, number>,
  unnamed: number,
): { model: string; warning?: string } {
  const byFile = modelFromFile(file);
  const [id, line] = named.size === 1 && !unnamed ? [...named][0]! : [];
  if (id !== undefined) {
    const bad = modelNameProblem(id);
    if (bad)
      fail(file, line, 'model_id', `${bad}: every line names this model, so its answers are stored under it`);
    if (id === byFile) return { model: id };
    return {
      model: id,
      warning: `${file}: every line names the model "${id}" (model_id): imported as "${id}", not as "${byFile}" after the file name`,
    };
  }
  refuseFileModel(file, byFile);
  if (![...named.keys()].some((k) => k !== byFile)) return { model: byFile };
  const names = [...named].slice(0, 3).map(([k, l]) => `"${k}" on line ${l}`);
  return {
    model: byFile,
    warning: `${file}: the lines name ${named.size} model(s) in model_id (${names.join(', ')}${named.size > 3 ? ', ...' : ''})${unnamed ? ` and ${unnamed} line(s) none` : ''}: imported as "${byFile}" after the file name`,
  };
}

/** One answers line checked; `model` null: named once the whole file is read (`modelId` gets each line's). */
export function answerChecker(
  file: string,
  questions: Map<number, number>,
  model: string | null = modelFromFile(file),
  modelId?: (id: string | undefined, line: number) => void,
): (line: number, value: unknown) => Answer {
  if (model !== null) refuseFileModel(file, model);
  const seen = new Map<number, number>();
  return (line, value) => {
    const a = check(AnswerLine, value, file, line);
    modelId?.(a.model_id, line);
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
    return {
      model: model ?? '',
      questionId: a.question_id,
      turns,
      ...(a.answer_id ? { answerId: a.answer_id } : {}),
    };
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
