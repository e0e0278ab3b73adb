// Questions in FastChat's question.jsonl shape.
import { z } from 'zod';
import type { Question } from '../../core/types.ts';
import { check, fail, parseJsonl, positiveQuestionId, str, turnsArray, type Located } from './located.ts';

const QuestionLine = z.object({
  question_id: positiveQuestionId,
  category: str.min(1, { error: 'must not be empty' }),
  turns: turnsArray.min(1, { error: 'needs at least one turn' }),
  reference: turnsArray.optional(),
});

export function parseQuestions(file: string, bytes: Uint8Array): Question[] {
  return questionsFrom(file, parseJsonl(file, bytes));
}

/** parseQuestions over JSON values already read line by line (src/importers/lines.ts streams a file so). */
export function questionsFrom(file: string, rows: Iterable<Located<unknown>>): Question[] {
  const seen = new Map<number, number>();
  return Array.from(rows, ({ line, value }) => {
    const q = check(QuestionLine, value, file, line);
    const prev = seen.get(q.question_id);
    if (prev !== undefined)
      fail(file, line, 'question_id', `duplicate id ${q.question_id} (first on line ${prev})`);
    seen.set(q.question_id, line);
    return {
      id: q.question_id,
      category: q.category,
      turns: q.turns,
      ...(q.reference ? { reference: q.reference } : {}),
    };
  });
}
