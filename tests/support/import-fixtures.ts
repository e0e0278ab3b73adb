// Fixtures of the import tests: JSONL text, FastChat's lines (questions, answers, pair judgments), and the one
// check that a refused import says one located line and leaves the database file byte-identical.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { runArena } from './cli.ts';

/** JSONL text: objects as JSON, strings as they are (a malformed line), one a line. */
export const jsonl = (...rows: unknown[]) =>
  rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';

/** One line of FastChat's question.jsonl. */
export const questionLine = (id: number, category = 'writing', turns = ['first?', 'second?']) => ({
  question_id: id,
  category,
  turns,
});

/** One line of a FastChat model_answer file, without model_id (so the model is the file's name). */
export const answerLine = (id: number, turns: unknown = ['one', 'two']) => ({
  question_id: id,
  answer_id: `a${id}`,
  choices: [{ index: 0, turns }],
});

/** One line of FastChat's model_judgment/gpt-4_pair.jsonl (protocol §1.4). */
export const pairLine = (over: Record<string, unknown> = {}) => ({
  question_id: 1,
  model_1: 'm1',
  model_2: 'm2',
  g1_winner: 'model_1',
  g2_winner: 'model_1',
  judge: ['gpt-4', 'pair-v2'],
  g1_user_prompt: 'p1',
  g1_judgment: 'A is better. [[A]]',
  g2_user_prompt: 'p2',
  g2_judgment: 'B is better. [[B]]',
  turn: 1,
  tstamp: 1700000000.5,
  ...over,
});

export const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * `arena import KIND FILE --db DB` is refused: exit 1, one error line (no stack trace) pointing at `FILE:LINE:`
 * (`FILE:` where the file's name is the problem) and the field, saying `says`; the database file unchanged.
 */
export async function expectRefused(
  db: string,
  c: { kind: string; file: string; line?: number; field?: string; says: RegExp },
): Promise<string> {
  const before = sha256(db);
  const r = await runArena(['import', c.kind, c.file, '--db', db]);
  expect(r.code, r.stderr).toBe(1);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  const msg = lines[0]!;
  const at = `${c.file}${c.line ? `:${c.line}` : ''}:`;
  expect(msg).toContain(c.field ? `${at} field "${c.field}"` : at);
  expect(msg).toMatch(c.says);
  expect(msg).not.toMatch(/at .*\.ts:\d+/); // no stack trace
  expect(sha256(db), 'the database file changed').toBe(before);
  return msg;
}
