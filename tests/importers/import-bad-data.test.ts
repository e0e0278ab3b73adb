// Data that would be stored wrong (self-matches, nameless or unusable model names, bad turns or ids) is refused in
// one line naming file, line and field; the database file stays byte-identical.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { arenaOk, tmpDir } from '../support/cli.ts';
import {
  answerLine as ans,
  expectRefused,
  jsonl,
  pairLine,
  questionLine as q,
} from '../support/import-fixtures.ts';

const dir = tmpDir('arena-bad-data-');
const db = join(dir, 'arena.db');
const csv = (row: string) =>
  `question_id,model_a,model_b,winner,judge,turn\n1,m1,m2,tie,expert_1,1\n${row}\n`;

interface Case {
  name: string;
  kind: 'questions' | 'answers' | 'votes' | 'judgments';
  file: string;
  content: string;
  /** where the message points: `file:line:` (or `file:` for a file whose name is the problem) */
  line?: number;
  field: string;
  says: RegExp;
}

const CASES: Case[] = [
  {
    name: 'a judgment of a model against itself',
    kind: 'judgments',
    file: 'self_pair.jsonl',
    content: jsonl(pairLine(), pairLine({ model_2: 'm1' })),
    line: 2,
    field: 'model_2',
    says: /same model on both sides \(m1\)/,
  },
  {
    name: 'a judgment with model_1 ""',
    kind: 'judgments',
    file: 'empty_pair.jsonl',
    content: jsonl(pairLine({ model_1: '' })),
    line: 1,
    field: 'model_1',
    says: /must not be empty/,
  },
  {
    name: 'an answer file named .jsonl (model "")',
    kind: 'answers',
    file: 'noname/.jsonl',
    content: jsonl(ans(1)),
    field: 'model',
    says: /must not be empty.*rename the file/,
  },
  {
    name: 'an answer file named " .jsonl" (model " ")',
    kind: 'answers',
    file: 'space/ .jsonl',
    content: jsonl(ans(1)),
    field: 'model',
    says: /leading or trailing spaces/,
  },
  {
    name: 'an answer file named a,b.jsonl (model "a,b")',
    kind: 'answers',
    file: 'a,b.jsonl',
    content: jsonl(ans(1)),
    field: 'model',
    says: /contains a comma/,
  },
  {
    name: 'a vote on turn 3',
    kind: 'votes',
    file: 'turn3.csv',
    content: csv('2,m1,m2,tie,expert_1,3'),
    line: 3,
    field: 'turn',
    says: /expected turn 1 or 2/,
  },
  ...['0x51', '81.0', ' 81 '].map((id) => ({
    name: `a vote on question_id "${id}"`,
    kind: 'votes' as const,
    file: 'odd-id.csv',
    content: csv(`${id},m1,m2,tie,expert_1,1`),
    line: 3,
    field: 'question_id',
    says: /expected an integer/,
  })),
  {
    name: 'a question id of 10^15',
    kind: 'questions',
    file: 'big-questions.jsonl',
    content: jsonl({ question_id: 1e15, category: 'writing', turns: ['x'] }),
    line: 1,
    field: 'question_id',
    says: /more than 9 digits/,
  },
  {
    name: 'a vote on question id 1000000000',
    kind: 'votes',
    file: 'big-votes.jsonl',
    content: jsonl({
      question_id: 1e9,
      model_a: 'm1',
      model_b: 'm2',
      winner: 'tie',
      judge: 'expert_1',
      turn: 1,
    }),
    line: 1,
    field: 'question_id',
    says: /more than 9 digits/,
  },
];

describe('arena import refuses data it would store wrong', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    writeFileSync(join(dir, 'questions.jsonl'), jsonl(q(1), q(2)));
    writeFileSync(join(dir, 'm1.jsonl'), jsonl(ans(1), ans(2)));
    writeFileSync(join(dir, 'm2.jsonl'), jsonl(ans(1), ans(2)));
    await arenaOk(['import', 'questions', join(dir, 'questions.jsonl'), '--db', db]);
    await arenaOk(['import', 'answers', join(dir, 'm1.jsonl'), join(dir, 'm2.jsonl'), '--db', db]);
  }, 120_000);

  it.each(CASES)('$name', async (c) => {
    const file = join(dir, c.file);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, c.content);
    await expectRefused(db, { ...c, file });
  });
});
