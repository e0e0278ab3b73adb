// Answers files, streamed: a large answers file is never held whole (bytes, text, lines or parsed lines)
// beside its answers, and it goes to the store in parts.
import { basename } from 'node:path';
import { ArenaError, type Answer } from '../../core/types.ts';
import { answerChecker, modelFromFile } from '../formats.ts';
import { readJsonl } from '../lines.ts';
import type { ImportContext } from './context.ts';

/**
 * One answers file is handed to the store in parts of at most this many characters of answer text, so no single
 * INSERT binds (and SQLite copies) a whole large file at once; the parts still commit in the one import transaction.
 */
export const ANSWER_PART_CHARS = 8 << 20;

/** Every answers file into the bundle, each checked against the known questions; one file per model. */
export async function readAnswers(c: ImportContext, paths: readonly string[]): Promise<void> {
  const { bundle, turnsByQuestion } = c;
  const modelFiles = new Map<string, string>();
  for (const path of paths) {
    const model = modelFromFile(path);
    const other = modelFiles.get(model);
    if (other)
      throw new ArenaError(`${path}: model "${model}" is also imported from ${other}`, { file: path });
    modelFiles.set(model, path);
    // streamed: a large answers file is never held whole (bytes, text, lines or parsed lines) beside its answers,
    // and it goes to the store in parts (ANSWER_PART_CHARS)
    const one = answerChecker(path, turnsByQuestion, model);
    let part: Answer[] = [];
    let chars = 0;
    const flush = () => {
      if (part.length) (bundle.answers ??= []).push({ source: basename(path), items: part });
      part = [];
      chars = 0;
    };
    for await (const { line, value } of readJsonl(path)) {
      const a = one(line, value);
      const size = a.turns.reduce((n, t) => n + t.length, 0);
      if (chars && chars + size > ANSWER_PART_CHARS) flush();
      part.push(a);
      chars += size;
    }
    flush();
  }
}
