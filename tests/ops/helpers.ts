// Shared set-up of the ops tests: MT-Bench data from MTBENCH_DIR, refresh configs, a look into the database.
import Database from 'better-sqlite3';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promptHash } from '../support/openai-server.ts';

export const MTBENCH =
  process.env.MTBENCH_DIR ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'mt_bench');
export const HAVE_MTBENCH = existsSync(join(MTBENCH, 'question.jsonl'));
export const answerFile = (model: string) => join(MTBENCH, 'model_answer', `${model}.jsonl`);

/** A refresh config over MT-Bench's writing questions 81-86, turn 1, one judge on the test server. */
export function writeConfig(
  dir: string,
  o: {
    url: string;
    models: string[];
    name?: string;
    extra?: Record<string, unknown>;
    judge?: Record<string, unknown>;
    answers?: string[];
  },
): string {
  const file = join(dir, o.name ?? 'refresh.json');
  const config = {
    db: 'arena.db',
    questions: [join(MTBENCH, 'question.jsonl')],
    references: [join(MTBENCH, 'reference_answer', 'gpt-4.jsonl')],
    prompts: [join(MTBENCH, 'judge_prompts.jsonl')],
    answers: o.answers ?? o.models.map(answerFile),
    questionIds: [81, 82, 83, 84, 85, 86],
    turns: [1],
    judges: [
      {
        id: 'openai/judge',
        baseURL: o.url,
        price: { input: 10, output: 30 },
        concurrency: 4,
        retries: 2,
        timeoutS: 30,
        ...o.judge,
      },
    ],
    ...o.extra,
  };
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

export interface GameRow {
  id: string;
  judge: string;
  model_1: string;
  model_2: string | null;
  question_id: number;
  turn: number;
  order: string;
  system_prompt: string;
  user_prompt: string;
  verdict: string;
  source: string;
  cost: number | null;
  tokens_in: number | null;
  tokens_out: number | null;
  run_id: string | null;
  judge_settings: string;
}

export function readDb<T>(file: string, fn: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

export const games = (file: string): GameRow[] =>
  readDb(file, (db) => db.prepare('select * from games').all() as GameRow[]);
export const refreshes = (file: string) =>
  readDb(
    file,
    (db) =>
      db.prepare('select * from refreshes order by started_at').all() as {
        id: string;
        status: string;
        degraded: string | null;
        cost: number;
        summary: string;
      }[],
  );

/** The hash the test server logs for a stored game's prompt. */
export const hashOf = (g: GameRow) => promptHash(g.system_prompt, g.user_prompt);

/** Chat requests in a spawned server's log. */
export const chats = (logFile: string) =>
  existsSync(logFile)
    ? readFileSync(logFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { path: string; hash?: string; status: number | string })
        .filter((e) => e.path === '/v1/chat/completions')
    : [];
