// Recorded judgments (FastChat's model_judgment files, plain or gzip, streamed) into stored games.
import { basename } from 'node:path';
import { gameId } from '../../core/plan.ts';
import { ArenaError, type Game, type PromptScheme } from '../../core/types.ts';
import { RECORDED_PARSER } from '../../core/verdict/parse.ts';
import type { RecordedGame } from '../formats/judgments.ts';
import { recordedGamesOfLine } from '../formats.ts';
import { readJsonl } from '../lines.ts';
import type { ImportContext } from './context.ts';

/** The judge settings FastChat used for every recorded judgment (temperature 0, max_tokens 2048). */
const FASTCHAT_SETTINGS = { temperature: 0, maxTokens: 2048 } as const;

/** Every judgment file's games into the bundle, each checked against the known questions and models. */
export async function readJudgments(c: ImportContext, paths: readonly string[]): Promise<void> {
  const { store, bundle } = c;
  const systems = new Map<string, PromptScheme>((await store.catalog.prompts()).map((p) => [p.name, p]));
  for (const p of bundle.prompts ?? []) systems.set(p.name, p);
  // a judgment's models should have answers: an error in a whole release; in a single file a located note (the
  // games are kept: a FastChat judgment carries the answers it judged, so standings and exports need no more)
  const answered = new Set(await store.catalog.models());
  for (const f of bundle.answers ?? []) for (const a of f.items) answered.add(a.model);
  for (const path of paths) await readJudgmentFile(c, path, systems, answered);
}

/** A model a judgment names that has no answers: where it was first seen and on which lines. */
type Unanswered = Map<string, { line: number; field: string; lines: Set<number> }>;

async function readJudgmentFile(
  c: ImportContext,
  path: string,
  systems: ReadonlyMap<string, PromptScheme>,
  answered: ReadonlySet<string>,
): Promise<void> {
  const { src, bundle } = c;
  const recordedIds: string[] = [];
  let games = 0;
  const judges = new Set<string>();
  const unanswered: Unanswered = new Map();
  for await (const { line, value } of readJsonl(path)) {
    for (const r of recordedGamesOfLine(
      path,
      line,
      value,
      src.judgmentsJudge !== undefined ? { judge: src.judgmentsJudge } : {},
    )) {
      const category = c.categoryByQuestion.get(r.questionId);
      if (category === undefined) {
        c.unknown(
          path,
          r.line,
          'question_id',
          `judgment of unknown question ${r.questionId} (import its questions first)`,
        );
        continue;
      }
      checkAnswered(c, path, r, answered, unanswered);
      const game = recordedGame(path, r, category, systems);
      if (r.parser === RECORDED_PARSER) recordedIds.push(game.id);
      games++;
      judges.add(r.judge);
      (bundle.games ??= []).push(game);
    }
  }
  for (const [m, u] of unanswered)
    c.note?.(
      `warning: ${path}:${u.line}: field "${u.field}": judgment of model "${m}", which has no answers in the database${u.lines.size > 1 ? ` (and ${u.lines.size - 1} more line(s))` : ''}; kept, as the judgment carries the answers it judged: import its answers to play new games with it`,
    );
  // only those this import stores: a second import of the file keeps nothing, so it says nothing about them
  const recorded = recordedIds.length
    ? recordedIds.length - (await c.store.games.existingIds(recordedIds)).size
    : 0;
  if (recorded) {
    const j = [...judges].join(',');
    c.note?.(
      `${path}: ${recorded} of ${games} recorded verdict(s) differ from FastChat's reading of the judgment text; kept as recorded (parser "recorded"); re-read them with \`arena reparse --judge ${j} --parser fastchat|last|lenient --dry-run\``,
    );
  }
}

/** A judged model without answers: an error in a strict import, else remembered for one note per model. */
function checkAnswered(
  c: ImportContext,
  path: string,
  r: RecordedGame,
  answered: ReadonlySet<string>,
  unanswered: Unanswered,
): void {
  for (const [field, m] of (r.model2 === undefined
    ? [['model', r.model1]]
    : [
        ['model_1', r.model1],
        ['model_2', r.model2],
      ]) as [string, string][]) {
    if (answered.has(m)) continue;
    if (c.src.strict)
      throw new ArenaError(
        `${path}:${r.line}: field "${field}": judgment of model "${m}", which has no answers (import its answers first)`,
        { file: path, line: r.line, field },
      );
    const u = unanswered.get(m) ?? { line: r.line, field, lines: new Set<number>() };
    u.lines.add(r.line);
    unanswered.set(m, u);
  }
}

/** The stored game of a recorded judgment: its id is its content, under FastChat's judge settings. */
function recordedGame(
  path: string,
  r: RecordedGame,
  category: string,
  systems: ReadonlyMap<string, PromptScheme>,
): Game {
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
  return {
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
}
