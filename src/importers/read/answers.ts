// Answers files, streamed: a large answers file is never held whole (bytes, text, lines or parsed lines)
// beside its answers, and it goes to the store in parts.
import { basename } from 'node:path';
import { ArenaError, type Answer } from '../../core/types.ts';
import { answerChecker, modelOfAnswers } from '../formats.ts';
import { readJsonl } from '../lines.ts';
import type { ImportContext } from './context.ts';

/** One answers file reaches the store in parts of at most this much answer text (no INSERT binds a whole file). */
export const ANSWER_PART_CHARS = 8 << 20;

/** Every answers file into the bundle, checked, one per model (modelOfAnswers names it). */
export async function readAnswers(c: ImportContext, paths: readonly string[]): Promise<void> {
  const { bundle, turnsByQuestion } = c;
  const modelFiles = new Map<string, string>();
  for (const path of paths) {
    const named = new Map<string, number>();
    let unnamed = 0;
    const one = answerChecker(path, turnsByQuestion, null, (id, line) => {
      if (id === undefined) unnamed++;
      else if (!named.has(id)) named.set(id, line);
    });
    // streamed: a large answers file is never held whole (bytes, text, lines or parsed lines) beside its answers,
    // and it goes to the store in parts (ANSWER_PART_CHARS)
    const parts: Answer[][] = [];
    let part: Answer[] = [];
    let chars = 0;
    const flush = () => {
      if (part.length) parts.push(part);
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
    const given = c.src.answerModels?.[path];
    const { model, warning } =
      given !== undefined ? { model: given, warning: undefined } : modelOfAnswers(path, named, unnamed);
    if (warning) c.warnings.push(warning);
    const other = modelFiles.get(model);
    if (other)
      throw new ArenaError(`${path}: model "${model}" is also imported from ${other}`, { file: path });
    modelFiles.set(model, path);
    for (const items of parts) {
      for (const a of items) a.model = model;
      (bundle.answers ??= []).push({ source: basename(path), items });
    }
  }
}
