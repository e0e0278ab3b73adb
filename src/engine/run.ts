import { pick } from '../core/pick.ts';
import { gameId, planGames, resolvePromptSet } from '../core/plan.ts';
import type { PromptSet } from '../core/prompts.ts';
import { ArenaError, type GameSpec, type JudgeSettings, type Mode, type Question } from '../core/types.ts';
import type { ParserMode } from '../core/verdict/parse.ts';
import { parserFor, verdictOf } from '../core/verdict/of-reply.ts';
import type { AskedSettings, JudgeProvider } from '../judges/judge.ts';
import type { Store } from '../storage/store.ts';
import { newRun, playGames, type PlayOptions, type PlayRun } from './play/index.ts';
import { ALLOWANCE_TAG, DEFAULT_REFERENCE_SOURCE } from '../core/constants.ts';

/** A run's options; those it hands the play loop as they are mean what they mean there (play/types.ts). */
export interface RunOptions extends Pick<
  PlayOptions,
  'concurrency' | 'signal' | 'onProgress' | 'costOf' | 'budget' | 'spill' | 'leaseMs' | 'isAlive' | 'flushMs'
> {
  store: Store;
  /** the judge, already wrapped with retries and timeouts */
  judge: JudgeProvider;
  mode: Mode;
  models: string[];
  baseline?: string;
  /** restrict to these question ids (default: the questions any of the models has answers for) */
  questionIds?: number[];
  /** judge a labelled pair set's items (arena import pairs) instead of the tournament's questions */
  set?: string;
  turns?: number[];
  /** a built-in prompt set name (`mt-bench`, `arena`), or explicit scheme names */
  promptSet?: string | PromptSet;
  /** reference-answer source to prefer (FastChat: the judge model's name, e.g. gpt-4) */
  referenceSource?: string;
  parser?: ParserMode;
  /** asked of the judge (temperature undefined: the judge's default); the judge's settingsFor says what it sends */
  settings?: {
    temperature?: number | null | undefined;
    maxTokens?: number | undefined;
    [key: string]: unknown;
  };
  /** called once the plan is known, before the first call */
  onPlan?(p: { planned: number; stored: number; toPlay: number }): void;
  /** the stored games' `source` (default 'run'; the drift canary of src/ops uses 'canary') */
  source?: string;
  /** an adaptive run's round (engine/settle.ts): recorded in the run's config, read by reports/adaptive.ts */
  untilSettled?: number;
  /** the `arena refresh` that plays this run (recorded in the run's config: a killed refresh's ledger is derived from it) */
  refreshId?: string;
  /** play only the planned games this accepts (escalation sends a second judge only some matches) */
  only?(spec: GameSpec): boolean;
  /** this process, e.g. "host:pid" (stored on the run record while it runs) */
  owner?: string;
}

export type { RunProgress } from './play/index.ts';

/** A finished run as `runTournament` returns it (the record and the loop's counters). */
export type RunSummary = PlayRun;

/** FastChat's max_tokens; the temperature is the judge's default (0 for chat models: judges/contract.ts) */
const DEFAULT_MAX_TOKENS = 2048;

/** The settings `judge` sends for those asked (its settingsFor; else as asked, temperature 0 by default). */
export function judgeSettings(
  judge: Pick<JudgeProvider, 'settingsFor'>,
  asked: AskedSettings,
): JudgeSettings {
  return judge.settingsFor ? judge.settingsFor(asked) : { ...asked, temperature: asked.temperature ?? 0 };
}

/** What planning reads: a Store, or a view of one with an import not yet written (src/storage/pending.ts). */
export type PlanSource = {
  catalog: Pick<Store['catalog'], 'questions' | 'pairSets' | 'answers' | 'references' | 'prompts'>;
};

/** Load what a plan needs from the store and plan the games (with their ids). Reads only: it writes nothing. */
export async function planRun(
  o: Pick<
    RunOptions,
    | 'judge'
    | 'mode'
    | 'models'
    | 'baseline'
    | 'questionIds'
    | 'set'
    | 'turns'
    | 'promptSet'
    | 'referenceSource'
    | 'settings'
  > & { store: PlanSource },
) {
  const { store } = o;
  const inSet = o.set !== undefined ? { set: o.set } : undefined;
  let questions: Question[] = await store.catalog.questions(inSet);
  if (o.questionIds) {
    const want = new Set(o.questionIds);
    const unknown = o.questionIds.filter((id) => !questions.some((q) => q.id === id));
    if (unknown.length) throw new ArenaError(`unknown question id(s): ${unknown.join(', ')}`);
    questions = questions.filter((q) => want.has(q.id));
  }
  if (!questions.length && o.set !== undefined) {
    // name the sets there are, as `arena accuracy --set` does (a misspelled "natural" must not read as "import it")
    const sets = (await store.catalog.pairSets()).map((s) => s.set);
    throw new ArenaError(
      `no labelled set named "${o.set}" (sets: ${sets.join(', ') || 'none; import some with `arena import pairs DIR`'})`,
    );
  }
  if (!questions.length)
    throw new ArenaError('no questions to judge (import some with `arena import questions FILE`)');
  const allModels =
    o.mode === 'pairwise-baseline' && o.baseline && !o.models.includes(o.baseline)
      ? [...o.models, o.baseline]
      : o.models;
  const answers = new Map<string, Map<number, string[]>>();
  for (const a of await store.catalog.answers(allModels, inSet)) {
    let m = answers.get(a.model);
    if (!m) answers.set(a.model, (m = new Map()));
    m.set(a.questionId, a.turns);
  }
  if (!o.questionIds) {
    // no questions named: the question set these models have answers for, not every question in the
    // database (an MT-Bench release and our own set can share one); a model missing some of them still fails below
    const answered = new Set([...answers.values()].flatMap((m) => [...m.keys()]));
    if (answered.size) questions = questions.filter((q) => answered.has(q.id));
  }
  const refSource = o.referenceSource ?? DEFAULT_REFERENCE_SOURCE;
  const references = new Map<number, string[]>();
  for (const q of questions) if (q.reference) references.set(q.id, q.reference);
  for (const r of await store.catalog.references())
    if (r.source === refSource) references.set(r.questionId, r.turns);
  // read-only: the shipped prompts are ensured by whoever prepares the store for a run (src/importers/builtin.ts)
  const prompts = new Map((await store.catalog.prompts()).map((p) => [p.name, p]));
  const promptSet = resolvePromptSet(o.promptSet, o.mode, new Set(prompts.keys()));
  const specs = planGames({
    mode: o.mode,
    models: o.models,
    ...(o.baseline ? { baseline: o.baseline } : {}),
    questions,
    ...(o.turns ? { turns: o.turns } : {}),
    answers,
    references,
    prompts,
    promptSet,
    referenceSource: refSource,
  });
  // the settings the judge sends for those asked are each game's settings, so its identity
  const asked = Object.fromEntries(Object.entries(o.settings ?? {}).filter(([, v]) => v !== undefined));
  const settings = judgeSettings(o.judge, { maxTokens: DEFAULT_MAX_TOKENS, ...asked });
  const games = specs.map((spec) => ({ spec, id: gameId(o.judge.id, settings, spec) }));
  return { games, settings, promptSet, prompts };
}

/** Plan, skip what is stored, play the rest through the one play loop (engine/play/). */
export async function runTournament(o: RunOptions): Promise<RunSummary> {
  const { store, judge } = o;
  const parser = o.parser ?? 'last';
  const { games, settings, promptSet, prompts } = await planRun(o);
  const stored = await store.games.existingIds(games.map((g) => g.id));
  // a game whose reasoning once used the whole allowance is not sent again as it is (raising the allowance or
  // lowering the effort makes it another game)
  const exhausted = await store.runs.failedWith(
    games.filter((g) => !stored.has(g.id)).map((g) => g.id),
    ALLOWANCE_TAG,
  );
  const seen = new Set<string>();
  const todo = games.filter(
    (g) =>
      !stored.has(g.id) &&
      !exhausted.has(g.id) &&
      !seen.has(g.id) &&
      seen.add(g.id) &&
      (!o.only || o.only(g.spec)),
  );
  o.onPlan?.({ planned: games.length, stored: games.length - todo.length, toPlay: todo.length });
  const run = newRun({
    judge: judge.id,
    mode: o.mode,
    config: {
      models: o.models,
      baseline: o.baseline,
      questionIds: o.questionIds,
      set: o.set,
      turns: o.turns,
      promptSet,
      parser,
      settings,
      concurrency: o.concurrency,
      ...(o.untilSettled !== undefined ? { untilSettled: o.untilSettled } : {}),
      ...(o.refreshId !== undefined ? { refresh: o.refreshId } : {}),
      ...(exhausted.size ? { allowanceBefore: exhausted.size } : {}),
    },
    planned: games.length,
    toPlay: todo.length,
    cost: o.costOf ? 0 : null,
    ...(o.owner ? { owner: o.owner } : {}),
  });
  // a scheme with its own output format (JudgeLM, Arena-Hard, ...) is read by its parser, and is free text to a judge that constrains `[[X]]`
  const parsers = new Map([...prompts.values()].map((p) => [p.name, parserFor(p, parser)]));
  const plain = parserFor(undefined, parser);
  const parserOf = (spec: GameSpec) => parsers.get(spec.promptName) ?? plain;
  return playGames(todo, {
    store,
    run,
    settings,
    call: ({ spec }, c) =>
      judge.complete({
        system: spec.systemPrompt,
        user: spec.userPrompt,
        temperature: c.settings.temperature ?? 0,
        maxTokens: c.settings.maxTokens,
        settings: c.settings,
        onRetry: c.onRetry,
        verdict: spec.match.model2 === undefined ? 'rating' : parserOf(spec).format ? 'free' : 'pair',
        ...(c.signal ? { signal: c.signal } : {}),
      }),
    read: (spec, text) => verdictOf(spec, text, parserOf(spec)),
    ...pick(o, [
      'source',
      'concurrency',
      'signal',
      'onProgress',
      'costOf',
      'budget',
      'leaseMs',
      'isAlive',
      'flushMs',
      'spill',
    ]),
  });
}
