import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ArenaError, type Answer, type Game, type PromptScheme } from '../core/types.ts';
import { gameId } from '../core/plan.ts';
import type { ImportBundle, ImportCounts, Store } from '../storage/store.ts';
import { RECORDED_PARSER } from '../core/verdict/parse.ts';
import {
  answerChecker,
  modelFromFile,
  parseVotes,
  promptsFrom,
  questionsFrom,
  recordedGamesOfLine,
  referencesFrom,
} from './formats.ts';
import { readJsonl, readJsonlFile } from './lines.ts';

export interface ImportSources {
  questions?: string[];
  references?: string[];
  answers?: string[];
  prompts?: string[];
  /** FastChat model_judgment/*_pair.jsonl and *_single.jsonl, plain or gzip (streamed) */
  judgments?: string[];
  /** the judge the judgments are stored under (default: each line's `judge[0]`) */
  judgmentsJudge?: string;
  /** HF mt_bench_human_judgments splits (CSV, JSON array or JSONL) */
  votes?: { path: string; turn?: number }[];
  /**
   * A vote or judgment about a question the database does not hold, or a vote about a model with no
   * answers (nor games): `strict` (a whole release) makes it an error naming file and line; otherwise it
   * is skipped with a warning that locates it (returned in `warnings`), and no model or question is invented.
   */
  strict?: boolean;
}

/**
 * One answers file is handed to the store in parts of at most this many characters of answer text, so no single
 * INSERT binds (and SQLite copies) a whole large file at once; the parts still commit in the one import transaction.
 */
export const ANSWER_PART_CHARS = 8 << 20;

/** The judge settings FastChat used for every recorded judgment (temperature 0, max_tokens 2048). */
export const FASTCHAT_SETTINGS = { temperature: 0, maxTokens: 2048 } as const;

/** A file's bytes, or an ArenaError naming the file and why it cannot be read. */
export function readImportFile(path: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new ArenaError(
      `${path}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      { file: path },
      { cause: e },
    );
  }
}

/**
 * Read, parse and check every file, then write everything in one atomic store operation. Any
 * problem throws before the first write, so a failed import leaves the database exactly as it was.
 */
export async function importFiles(
  store: Store,
  src: ImportSources,
  opts: { note?: (line: string) => void } = {},
): Promise<ImportCounts & { warnings: string[] }> {
  const { bundle, warnings } = await readImport(store, src, opts);
  return { ...(await store.importBundle(bundle)), warnings };
}

/**
 * What importFiles would write, read, parsed and checked against the store (same errors and warnings),
 * without writing it: a dry run plans on the store with this bundle applied (src/storage/pending.ts).
 */
export async function readImport(
  store: Pick<
    Store,
    'listQuestions' | 'listPrompts' | 'existingGameIds' | 'listModels' | 'listJudges' | 'listGames'
  >,
  src: ImportSources,
  opts: { note?: (line: string) => void } = {},
): Promise<{ bundle: ImportBundle; warnings: string[] }> {
  const bundle: ImportBundle = {};
  const warnings: string[] = [];
  /** a reference to something the database does not know: an error in a strict import, else a located warning (and the row is skipped) */
  const unknown = (path: string, line: number, field: string, what: string) => {
    const msg = `${path}:${line}: field "${field}": ${what}`;
    if (src.strict) throw new ArenaError(msg, { file: path, line, field });
    if (warnings.at(-1) !== `${msg}; skipped`) warnings.push(`${msg}; skipped`); // a pair line holds both orders
  };
  const turnsByQuestion = new Map<number, number>();
  const categoryByQuestion = new Map<number, string>();
  for (const q of await store.listQuestions()) {
    turnsByQuestion.set(q.id, q.turns.length);
    categoryByQuestion.set(q.id, q.category);
  }
  for (const path of src.questions ?? []) {
    const items = questionsFrom(path, await readJsonlFile(path));
    for (const q of items) {
      turnsByQuestion.set(q.id, q.turns.length);
      categoryByQuestion.set(q.id, q.category);
    }
    bundle.questions = { source: basename(path), items: [...(bundle.questions?.items ?? []), ...items] };
  }
  for (const path of src.references ?? [])
    (bundle.references ??= []).push(...referencesFrom(path, await readJsonlFile(path), turnsByQuestion));
  const modelFiles = new Map<string, string>();
  for (const path of src.answers ?? []) {
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
  for (const path of src.prompts ?? [])
    (bundle.prompts ??= []).push(...promptsFrom(path, await readJsonlFile(path)));
  if (src.judgments?.length) {
    const systems = new Map<string, PromptScheme>((await store.listPrompts()).map((p) => [p.name, p]));
    for (const p of bundle.prompts ?? []) systems.set(p.name, p);
    // a judgment's models should have answers: an error in a whole release; in a single file a located note (the
    // games are kept: a FastChat judgment carries the answers it judged, so standings and exports need no more)
    const answered = new Set(await store.listModels());
    for (const f of bundle.answers ?? []) for (const a of f.items) answered.add(a.model);
    for (const path of src.judgments) {
      const recordedIds: string[] = [];
      let games = 0;
      const judges = new Set<string>();
      const unanswered = new Map<string, { line: number; field: string; lines: Set<number> }>();
      for await (const { line, value } of readJsonl(path)) {
        for (const r of recordedGamesOfLine(
          path,
          line,
          value,
          src.judgmentsJudge !== undefined ? { judge: src.judgmentsJudge } : {},
        )) {
          const category = categoryByQuestion.get(r.questionId);
          if (category === undefined) {
            unknown(
              path,
              r.line,
              'question_id',
              `judgment of unknown question ${r.questionId} (import its questions first)`,
            );
            continue;
          }
          for (const [field, m] of (r.model2 === undefined
            ? [['model', r.model1]]
            : [
                ['model_1', r.model1],
                ['model_2', r.model2],
              ]) as [string, string][]) {
            if (answered.has(m)) continue;
            if (src.strict)
              throw new ArenaError(
                `${path}:${r.line}: field "${field}": judgment of model "${m}", which has no answers (import its answers first)`,
                { file: path, line: r.line, field },
              );
            const u = unanswered.get(m) ?? { line: r.line, field, lines: new Set<number>() };
            u.lines.add(r.line);
            unanswered.set(m, u);
          }
          const spec = {
            match: {
              questionId: r.questionId,
              category,
              turn: r.turn,
              model1: r.model1,
              ...(r.model2 !== undefined ? { model2: r.model2 } : {}),
            },
            order: r.order,
            promptName: r.promptName,
            // FastChat does not store the system prompt (the study's orig_prompt1/2 do); else it is the named prompt's
            systemPrompt: r.systemPrompt ?? systems.get(r.promptName)?.systemPrompt ?? '',
            userPrompt: r.userPrompt,
          };
          const game: Game = {
            ...spec,
            id: gameId(r.judge, FASTCHAT_SETTINGS, spec),
            judge: r.judge,
            judgeSettings: { ...FASTCHAT_SETTINGS },
            reply: r.reply,
            verdict: r.verdict,
            parser: r.parser,
            recordedVerdict: r.verdict,
            createdAt: r.createdAt,
            runId: null,
            source: `fastchat:${basename(path)}`,
          };
          if (r.parser === RECORDED_PARSER) recordedIds.push(game.id);
          games++;
          judges.add(r.judge);
          (bundle.games ??= []).push(game);
        }
      }
      for (const [m, u] of unanswered)
        opts.note?.(
          `warning: ${path}:${u.line}: field "${u.field}": judgment of model "${m}", which has no answers in the database${u.lines.size > 1 ? ` (and ${u.lines.size - 1} more line(s))` : ''}; kept, as the judgment carries the answers it judged: import its answers to play new games with it`,
        );
      // only those this import stores: a second import of the file keeps nothing, so it says nothing about them
      const recorded = recordedIds.length
        ? recordedIds.length - (await store.existingGameIds(recordedIds)).size
        : 0;
      if (recorded) {
        const j = [...judges].join(',');
        opts.note?.(
          `${path}: ${recorded} of ${games} recorded verdict(s) differ from FastChat's reading of the judgment text; kept as recorded (parser "recorded"); re-read them with \`arena reparse --judge ${j} --parser fastchat|last|lenient --dry-run\``,
        );
      }
    }
  }
  if (src.votes?.length) {
    // a vote's models must have answers, or games (a FastChat judgment carries the answers it judged)
    const parsed = src.votes.map((v) => ({
      path: v.path,
      items: parseVotes(v.path, readImportFile(v.path), v.turn !== undefined ? { turn: v.turn } : {}),
    }));
    const models = new Set(await store.listModels());
    for (const f of bundle.answers ?? []) for (const a of f.items) models.add(a.model);
    for (const g of bundle.games ?? [])
      [g.match.model1, g.match.model2].forEach((m) => m !== undefined && models.add(m));
    if (parsed.some((p) => p.items.some((x) => !models.has(x.model1) || !models.has(x.model2))))
      for (const j of await store.listJudges())
        if (j.games)
          for (const g of await store.listGames({ judge: j.judge }))
            [g.match.model1, g.match.model2].forEach((m) => m !== undefined && models.add(m));
    for (const p of parsed) {
      const items = p.items.filter((x) => {
        if (!categoryByQuestion.has(x.questionId))
          return (
            unknown(
              p.path,
              x.line,
              'question_id',
              `vote on unknown question ${x.questionId} (import its questions first)`,
            ),
            false
          );
        for (const [field, m] of [
          ['model_a', x.model1],
          ['model_b', x.model2],
        ] as const)
          if (!models.has(m))
            return (
              unknown(
                p.path,
                x.line,
                field,
                `vote on unknown model "${m}" (no answers or games of it; import its answers first)`,
              ),
              false
            );
        return true;
      });
      (bundle.votes ??= []).push({ source: basename(p.path), items });
    }
  }
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
  return { bundle, warnings };
}

/** The games not stored yet (each id once), and how many of the given ones are already stored or repeated. */
export async function newGames(
  store: Pick<Store, 'existingGameIds'>,
  games: Game[],
): Promise<{ fresh: Game[]; known: number }> {
  const stored = await store.existingGameIds([...new Set(games.map((g) => g.id))]);
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
