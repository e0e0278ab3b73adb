import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ArenaError, type Game } from '../core/types.ts';
import type { ImportBundle, ImportCounts, Store } from '../storage/store.ts';
import { promptsFrom, questionsFrom, referencesFrom } from './formats.ts';
import { readJsonlFile } from './lines.ts';
import { readAnswers } from './read/answers.ts';
import { importContext, type ImportStore } from './read/context.ts';
import { readJudgments } from './read/judgments.ts';
import { readVotes } from './read/votes.ts';

export interface ImportSources {
  questions?: string[];
  references?: string[];
  answers?: string[];
  /** the model an answers file (by its path) is stored under, where the caller names it (checkpoints' `model`) */
  answerModels?: Record<string, string>;
  prompts?: string[];
  /** FastChat model_judgment/*_pair.jsonl and *_single.jsonl, plain or gzip (streamed) */
  judgments?: string[];
  /** the judge the judgments are stored under (default: each line's `judge[0]`) */
  judgmentsJudge?: string;
  /** HF mt_bench_human_judgments splits (CSV, JSON array or JSONL) */
  votes?: { path: string; turn?: number }[];
  /**
   * A vote or judgment about a question the database does not hold, or a model with no answers: `strict` makes
   * it a located error; otherwise it is skipped with a located warning. No model or question is invented.
   */
  strict?: boolean;
}

export { ANSWER_PART_CHARS } from './read/answers.ts';

/** Read, parse and check every file, then write everything in one atomic store operation (all or nothing). */
export async function importFiles(
  store: Store,
  src: ImportSources,
  opts: { note?: (line: string) => void } = {},
): Promise<ImportCounts & { warnings: string[] }> {
  const { bundle, warnings } = await readImport(store, src, opts);
  return { ...(await store.importBundle(bundle)), warnings };
}

/** What importFiles would write, checked against the store, without writing it (a dry run's view). */
export async function readImport(
  store: ImportStore,
  src: ImportSources,
  opts: { note?: (line: string) => void } = {},
): Promise<{ bundle: ImportBundle; warnings: string[] }> {
  const c = await importContext(store, src, opts.note);
  const { bundle } = c;
  for (const path of src.questions ?? []) {
    const items = questionsFrom(path, await readJsonlFile(path));
    for (const q of items) {
      c.turnsByQuestion.set(q.id, q.turns.length);
      c.categoryByQuestion.set(q.id, q.category);
    }
    bundle.questions = { source: basename(path), items: [...(bundle.questions?.items ?? []), ...items] };
  }
  for (const path of src.references ?? [])
    (bundle.references ??= []).push(...referencesFrom(path, await readJsonlFile(path), c.turnsByQuestion));
  await readAnswers(c, src.answers ?? []);
  for (const path of src.prompts ?? [])
    (bundle.prompts ??= []).push(...promptsFrom(path, await readJsonlFile(path)));
  if (src.judgments?.length) await readJudgments(c, src.judgments);
  if (src.votes?.length) await readVotes(c, src.votes);
  if (bundle.games?.length) {
    // a game is its content: one already stored (a second import of the same file) is left as it is and not counted
    const total = bundle.games.length;
    const { fresh, known } = await newGames(store, bundle.games);
    bundle.games = fresh;
    if (known)
      opts.note?.(
        `${known} of ${total} game(s) were already stored or repeated (same judge, prompt, answers and order): left as they are, not counted`,
      );
  }
  return { bundle, warnings: c.warnings };
}

/** The games not stored yet (each id once), and how many of the given ones are already stored or repeated. */
export async function newGames(
  store: { games: Pick<Store['games'], 'existingIds'> },
  games: Game[],
): Promise<{ fresh: Game[]; known: number }> {
  const stored = await store.games.existingIds([...new Set(games.map((g) => g.id))]);
  const seen = new Set<string>();
  const fresh = games.filter((g) => !stored.has(g.id) && !seen.has(g.id) && seen.add(g.id));
  return { fresh, known: games.length - fresh.length };
}

/** The files of an MT-Bench release laid out as FastChat's data/mt_bench (plus judge_prompts.jsonl and human_judgments/). */
export function mtbenchSources(dir: string): ImportSources {
  const file = (...p: string[]) => join(dir, ...p);
  const jsonl = (sub: string) =>
    existsSync(file(sub)) && statSync(file(sub)).isDirectory()
      ? readdirSync(file(sub))
          .filter((f) => f.endsWith('.jsonl'))
          .sort()
          .map((f) => file(sub, f))
      : [];
  if (!existsSync(file('question.jsonl')))
    throw new ArenaError(`${dir}: not an MT-Bench release (no question.jsonl)`, { file: dir });
  const votes: { path: string }[] = [];
  for (const name of ['mt_bench_human.csv', 'mt_bench_gpt4_pair.csv'])
    if (existsSync(file('human_judgments', name))) votes.push({ path: file('human_judgments', name) });
  return {
    strict: true,
    questions: [file('question.jsonl')],
    references: jsonl('reference_answer'),
    answers: jsonl('model_answer'),
    prompts: existsSync(file('judge_prompts.jsonl')) ? [file('judge_prompts.jsonl')] : [],
    judgments: jsonl('model_judgment'),
    votes,
  };
}
