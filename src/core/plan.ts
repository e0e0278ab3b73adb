import { sha256Hex } from './sha256.ts';
import { NEED_REF_CATS, PROMPT_SETS, renderPrompt, schemeNameFor, type PromptSet } from './prompts.ts';
import {
  ArenaError,
  type GameSpec,
  type MatchSpec,
  type Mode,
  type PromptScheme,
  type Question,
} from './types.ts';

export interface PlanInput {
  mode: Mode;
  /** models in list order; pairwise-all pairs models[i] with models[j] for i < j */
  models: string[];
  /** pairwise-baseline: every other model is model_1, the baseline model_2 */
  baseline?: string;
  questions: Question[];
  /** turns to judge (default 1 and 2); turn 2 needs questions with exactly two turns */
  turns?: number[];
  /** answers[model][questionId] = turns */
  answers: Map<string, Map<number, string[]>>;
  /** reference answer turns per question (for math, reasoning and coding) */
  references: Map<number, string[]>;
  prompts: Map<string, PromptScheme>;
  promptSet: PromptSet;
  /** where the references were taken from (`--reference`), named when one is missing */
  referenceSource?: string;
}

/** The first eight questions' ids, and how many more ("1, 2, 3 and 4 more"). */
const firstIds = (qs: Question[]): string =>
  `${qs
    .slice(0, 8)
    .map((q) => q.id)
    .join(', ')}${qs.length > 8 ? ` and ${qs.length - 8} more` : ''}`;

/**
 * The references a plan misses, and what to add: a line per question in the references file of `source` (FastChat's
 * reference_answer/<source>.jsonl, the answers' shape), or a `reference` field on the question's own line.
 */
function missingReferences(noRef: Question[], source: string): string {
  const file = `reference_answer/${source}.jsonl`;
  const q = noRef[0]!;
  const turns = q.turns.map((_, k) => `"<reference answer to turn ${k + 1}>"`).join(', ');
  return (
    `no reference answer for ${noRef.length} ${[...new Set(noRef.map((x) => x.category))].join('/')} question(s): ` +
    `${firstIds(noRef)}. ` +
    `Add a line per question to ${file}, e.g. {"question_id": ${q.id}, "choices": [{"turns": [${turns}]}]}, ` +
    `and import it with \`arena import references ${file}\` (the file's name is the --reference source), or give ` +
    `the question's line in the questions file a "reference": [${turns}] (docs/importing.md)`
  );
}

/**
 * The games a tournament needs, in FastChat's match order (non-reference turn 1, reference turn 1,
 * non-reference turn 2, reference turn 2), each pairwise match as two games: AB then BA.
 * Throws one ArenaError listing what is missing (answers, references, prompts) before anything is played.
 */
export function planGames(input: PlanInput): GameSpec[] {
  const { mode, models, questions, answers, references, prompts, promptSet } = input;
  const turns = input.turns ?? [1, 2];
  const problems: string[] = [];
  if (mode === 'pairwise-baseline' && !input.baseline)
    throw new ArenaError('pairwise-baseline needs a baseline model (--baseline)');
  const contestants = mode === 'pairwise-baseline' ? models.filter((m) => m !== input.baseline) : models;
  const allModels = mode === 'pairwise-baseline' ? [...contestants, input.baseline!] : models;
  if (mode !== 'single' && allModels.length < 2) throw new ArenaError(`${mode} needs at least two models`);
  if (new Set(allModels).size !== allModels.length)
    throw new ArenaError(`models are listed twice: ${allModels.join(', ')}`);

  const matches: MatchSpec[] = [];
  for (const turn of [...turns].sort((a, b) => a - b)) {
    for (const refPass of [false, true]) {
      for (const q of questions) {
        if (NEED_REF_CATS.has(q.category) !== refPass) continue;
        if (turn > 1 && q.turns.length !== 2) continue; // as FastChat: multi-turn needs exactly two turns
        if (turn > q.turns.length) continue;
        const base = { questionId: q.id, category: q.category, turn };
        if (mode === 'single') for (const m of models) matches.push({ ...base, model1: m });
        else if (mode === 'pairwise-baseline')
          for (const m of contestants) matches.push({ ...base, model1: m, model2: input.baseline! });
        else
          for (let i = 0; i < models.length; i++)
            for (let j = i + 1; j < models.length; j++)
              matches.push({ ...base, model1: models[i]!, model2: models[j]! });
      }
    }
  }

  const qById = new Map(questions.map((q) => [q.id, q]));
  for (const m of allModels) {
    const a = answers.get(m);
    if (!a) {
      problems.push(`model "${m}" has no answers`);
      continue;
    }
    const missing = questions.filter(
      (q) => !a.has(q.id) || a.get(q.id)!.length < Math.min(q.turns.length, Math.max(...turns)),
    );
    if (missing.length)
      problems.push(`model "${m}" has no answer (or too few turns) for question ${firstIds(missing)}`);
  }
  const noRef = questions.filter((q) => NEED_REF_CATS.has(q.category) && !references.has(q.id));
  if (noRef.length) problems.push(missingReferences(noRef, input.referenceSource ?? 'gpt-4'));
  const type = mode === 'single' ? 'single' : 'pairwise';
  for (const name of new Set(matches.map((m) => schemeNameFor(promptSet, m.category, m.turn)))) {
    const s = prompts.get(name);
    if (!s)
      problems.push(
        `judge prompt "${name}" is not in the database (import it with \`arena import prompts\`)`,
      );
    else if (s.type !== type)
      problems.push(`judge prompt "${name}" is ${s.type}, but ${mode} needs a ${type} prompt`);
  }
  if (problems.length) throw new ArenaError(`cannot plan ${mode}:\n  - ${problems.join('\n  - ')}`);

  const games: GameSpec[] = [];
  for (const match of matches) {
    const q = qById.get(match.questionId)!;
    const scheme = prompts.get(schemeNameFor(promptSet, match.category, match.turn))!;
    const ref = NEED_REF_CATS.has(match.category) ? references.get(match.questionId) : undefined;
    const a1 = answers.get(match.model1)!.get(match.questionId)!;
    const a2 = match.model2 === undefined ? undefined : answers.get(match.model2)!.get(match.questionId)!;
    // a single-answer match is one game (AB); a pair is judged in both orders
    const orders =
      a2 === undefined
        ? ([['AB', a1]] as const)
        : ([
            ['AB', a1, a2],
            ['BA', a2, a1],
          ] as const);
    for (const [order, answerA, answerB] of orders) {
      const p = renderPrompt({
        scheme,
        questionTurns: q.turns,
        turn: match.turn,
        answerA,
        answerB,
        reference: ref,
      });
      games.push({ match, order, promptName: scheme.name, systemPrompt: p.system, userPrompt: p.user });
    }
  }
  return games;
}

/**
 * The content that identifies a game: judge, its settings, the match's models in their shown
 * order, question, turn and the exact messages. Hash it to get the game id; equal content means the
 * game is already played.
 */
export function gameIdentity(judge: string, settings: object, g: GameSpec): string {
  return JSON.stringify([
    judge,
    stableJson(settings),
    g.match.questionId,
    g.match.turn,
    g.match.model1,
    g.match.model2 ?? null,
    g.order,
    g.promptName,
    g.systemPrompt,
    g.userPrompt,
  ]);
}

/**
 * A game's id: the first 128 bits of the SHA-256 of its content (gameIdentity), in hex. Core imports no
 * platform module (core/sha256.ts), so importers, the engine and a Worker compute the same ids;
 * tests/core/game-ids.test.ts pins them.
 */
export function gameId(judge: string, settings: object, spec: GameSpec): string {
  return sha256Hex(gameIdentity(judge, settings, spec)).slice(0, 32);
}

/** Choose the prompt set: MT-Bench's prompts when they are imported (`promptNames`), otherwise our own. */
export function resolvePromptSet(
  set: string | PromptSet | undefined,
  mode: Mode,
  promptNames: Set<string>,
): PromptSet {
  const type = mode === 'single' ? 'single' : 'pairwise';
  if (set && typeof set === 'object') return set;
  if (set) {
    const s = Object.hasOwn(PROMPT_SETS, set) ? PROMPT_SETS[set] : undefined;
    if (!s)
      throw new ArenaError(`unknown prompt set "${set}" (known: ${Object.keys(PROMPT_SETS).join(', ')})`);
    const t = s[type];
    if (!t)
      throw new ArenaError(
        `prompt set "${set}" has only pairwise schemes: use --mode pairwise-all or pairwise-baseline`,
      );
    return t;
  }
  const mt = PROMPT_SETS['mt-bench']![type]!;
  return Object.values(mt).every((n) => promptNames.has(n)) ? mt : PROMPT_SETS.arena![type]!;
}

function stableJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
    .join(',')}}`;
}
