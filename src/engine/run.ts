import { randomUUID } from 'node:crypto';
import { gameId, planGames, resolvePromptSet } from '../core/plan.ts';
import type { PromptSet } from '../core/prompts.ts';
import { ArenaError, type Game, type GameSpec, type JudgeSettings, type Mode, type Question } from '../core/types.ts';
import { PARSER_VERSIONS, parseRating, type ParserMode } from '../core/verdict.ts';
import { outputFormatOf, readPairGame } from '../core/schemes/index.ts';
import type { JudgeProvider } from '../judges/judge.ts';
import type { RunRecord, Store } from '../storage/store.ts';
import { entropyBits } from '../core/stats/confidence.ts';
import { processAlive, thisProcess } from './liveness.ts';
import { DEFAULT_REFERENCE_SOURCE } from '../core/constants.ts';

export interface RunOptions {
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
  settings?: Partial<JudgeSettings>;
  concurrency?: number;
  signal?: AbortSignal;
  /** called once the plan is known, before the first call */
  onPlan?(p: { planned: number; stored: number; toPlay: number }): void;
  /** called after every finished or failed game */
  onProgress?(p: RunProgress): void;
  /** the stored games' `source` (default 'run'; the drift canary of src/ops uses 'canary') */
  source?: string;
  /** one call's USD cost from its token counts (src/ops/prices.ts); without it costs are unknown (null) */
  costOf?(tokensIn: number | null, tokensOut: number | null): number | null;
  /** a budget cap (src/ops/budget.ts): asked before each call, a game it refuses is not played; told each call's cost */
  budget?: { reserve(id: string, spec: GameSpec): boolean; settle(id: string, cost: number | null): void };
  /** play only the planned games this accepts (escalation sends a second judge only some matches) */
  only?(spec: GameSpec): boolean;
  /**
   * How long a game's lease lasts without renewal (default 60 s). Every game is leased in the database
   * before its call, so several processes on one database share the plan and pay for each game once;
   * a live run renews its leases, a dead run's leases expire and other runs take them over.
   */
  leaseMs?: number;
  /** this process, e.g. "host:pid" (stored on the run record while it runs) */
  owner?: string;
  /** whether the process named by another running run's `owner` is alive (undefined: cannot tell; its heartbeat decides) */
  isAlive?(owner: string): boolean | undefined;
  /** how often progress is written to the run record while games land (default 1 s) */
  flushMs?: number;
}

export interface RunProgress {
  done: number;
  failed: number;
  total: number;
  tokensIn: number;
  tokensOut: number;
  last?: { game: Game } | { error: string };
}

export interface RunSummary extends RunRecord {
  errors: string[];
  /** games the budget refused to start */
  skipped: number;
  /** planned games another run (another process on the same database) stored while this one ran */
  elsewhere: number;
  /** stored games whose reply came without valid token counts (left unknown, not counted in the tokens) */
  usageUnknown: number;
}

export const DEFAULT_LEASE_MS = 60_000;

/**
 * Mark running runs whose process is gone `interrupted` (and free their leases): the process named by
 * `owner` is known dead, or the run has written no heartbeat for `leaseMs`. Returns how many it marked.
 */
export async function reapDeadRuns(store: Store, o: { leaseMs?: number; isAlive?(owner: string): boolean | undefined; except?: string; now?: number } = {}): Promise<number> {
  const now = o.now ?? Date.now();
  const lease = o.leaseMs ?? DEFAULT_LEASE_MS;
  const dead = (await store.listRuns()).filter(
    // only runs that keep a heartbeat (played by this loop); other kinds of run record their own ends
    (r) => r.status === 'running' && r.id !== o.except && r.heartbeatAt != null && ((r.owner && o.isAlive?.(r.owner) === false) || r.heartbeatAt < now - lease),
  );
  return dead.length ? store.markRunsInterrupted(dead.map((r) => r.id), now) : 0;
}

/** A run record about to start: counters at zero, status running. */
export function newRun(r: Pick<RunRecord, 'judge' | 'mode' | 'config' | 'planned' | 'toPlay'>): RunRecord & { errors: string[] } {
  return { id: randomUUID(), startedAt: Date.now(), finishedAt: null, played: 0, failed: 0, tokensIn: 0, tokensOut: 0, status: 'running', errors: [], ...r };
}

export const DEFAULT_SETTINGS: JudgeSettings = { temperature: 0, maxTokens: 2048 };

/** What planning reads: a Store, or a view of one with an import not yet written (src/storage/pending.ts). */
export type PlanSource = Pick<Store, 'listQuestions' | 'listPairSets' | 'listAnswers' | 'listReferences' | 'listPrompts'>;

/** Load what a plan needs from the store and plan the games (with their ids). Reads only: it writes nothing. */
export async function planRun(o: Pick<RunOptions, 'judge' | 'mode' | 'models' | 'baseline' | 'questionIds' | 'set' | 'turns' | 'promptSet' | 'referenceSource' | 'settings'> & { store: PlanSource }) {
  const { store } = o;
  const inSet = o.set !== undefined ? { set: o.set } : undefined;
  let questions: Question[] = await store.listQuestions(inSet);
  if (o.questionIds) {
    const want = new Set(o.questionIds);
    const unknown = o.questionIds.filter((id) => !questions.some((q) => q.id === id));
    if (unknown.length) throw new ArenaError(`unknown question id(s): ${unknown.join(', ')}`);
    questions = questions.filter((q) => want.has(q.id));
  }
  if (!questions.length && o.set !== undefined) {
    // name the sets there are, as `arena accuracy --set` does (a misspelled "natural" must not read as "import it")
    const sets = (await store.listPairSets()).map((s) => s.set);
    throw new ArenaError(`no labelled set named "${o.set}" (sets: ${sets.join(', ') || 'none; import some with `arena import pairs DIR`'})`);
  }
  if (!questions.length) throw new ArenaError('no questions to judge (import some with `arena import questions FILE`)');
  const allModels = o.mode === 'pairwise-baseline' && o.baseline && !o.models.includes(o.baseline) ? [...o.models, o.baseline] : o.models;
  const answers = new Map<string, Map<number, string[]>>();
  for (const a of await store.listAnswers(allModels, inSet)) {
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
  for (const r of await store.listReferences()) if (r.source === refSource) references.set(r.questionId, r.turns);
  // read-only: the shipped prompts are ensured by whoever prepares the store for a run (src/importers/builtin.ts)
  const prompts = new Map((await store.listPrompts()).map((p) => [p.name, p]));
  const promptSet = resolvePromptSet(o.promptSet, o.mode, new Set(prompts.keys()));
  const specs = planGames({ mode: o.mode, models: o.models, ...(o.baseline ? { baseline: o.baseline } : {}), questions, ...(o.turns ? { turns: o.turns } : {}), answers, references, prompts, promptSet });
  const settings: JudgeSettings = { ...DEFAULT_SETTINGS, ...o.settings };
  const games = specs.map((spec) => ({ spec, id: gameId(o.judge.id, settings, spec) }));
  return { games, settings, promptSet, prompts };
}

/**
 * Plan, skip what is stored, play the rest. Every finished game is committed as it completes, so an
 * interrupted run loses at most the games in flight and a rerun plays only what is missing. A call
 * that fails after its retries is recorded as a failed attempt, never as a verdict.
 */
export async function runTournament(o: RunOptions): Promise<RunSummary> {
  const { store, judge } = o;
  const parser = o.parser ?? 'last';
  const { games, settings, promptSet, prompts } = await planRun(o);
  const stored = await store.existingGameIds(games.map((g) => g.id));
  const seen = new Set<string>();
  const todo = games.filter((g) => !stored.has(g.id) && !seen.has(g.id) && seen.add(g.id) && (!o.only || o.only(g.spec)));
  o.onPlan?.({ planned: games.length, stored: games.length - todo.length, toPlay: todo.length });

  const run: RunSummary = {
    ...newRun({
      judge: judge.id,
      mode: o.mode,
      config: { models: o.models, baseline: o.baseline, questionIds: o.questionIds, set: o.set, turns: o.turns, promptSet, parser, settings, concurrency: o.concurrency },
      planned: games.length,
      toPlay: todo.length,
    }),
    cost: o.costOf ? 0 : null,
    skipped: 0,
    elsewhere: 0,
    usageUnknown: 0,
    owner: o.owner ?? thisProcess(),
    heartbeatAt: Date.now(),
  };
  const leaseMs = o.leaseMs ?? DEFAULT_LEASE_MS;
  const isAlive = o.isAlive ?? processAlive;
  const record = (): RunRecord => {
    const { errors: _e, skipped: _s, elsewhere: _o, usageUnknown: _u, ...r } = run;
    return r;
  };
  // a run killed earlier (SIGKILL, power cut) is still `running`: mark it, and free the games it held
  await reapDeadRuns(store, { leaseMs, isAlive });
  // a run with nothing to play leaves no record (a no-op rerun is not a run)
  if (todo.length) await store.saveRun(record());
  const concurrency = Math.max(1, o.concurrency ?? 8);
  const progress = (last?: RunProgress['last']) =>
    o.onProgress?.({ done: run.played, failed: run.failed, total: todo.length, tokensIn: run.tokensIn, tokensOut: run.tokensOut, ...(last ? { last } : {}) });

  // progress reaches the run record in batches (at most once per flushMs), together with the heartbeat that keeps the leases
  let dirty = false;
  let lastBeat = Date.now();
  let flushing: Promise<void> | undefined;
  const flush = (force = false): Promise<void> => {
    if (flushing) return flushing;
    if (!force && !dirty && Date.now() - lastBeat < leaseMs / 4) return Promise.resolve();
    dirty = false;
    lastBeat = run.heartbeatAt = Date.now();
    flushing = (async () => {
      try {
        await store.saveRun(record());
        await store.renewClaims(run.id, lastBeat + leaseMs);
      } finally {
        flushing = undefined;
      }
    })();
    return flushing;
  };
  const timer = setInterval(() => void flush().catch((e) => run.errors.length < 20 && run.errors.push(`progress not saved: ${(e as Error).message}`)), Math.min(o.flushMs ?? 1000, leaseMs / 4));

  const playOne = async ({ spec, id }: { spec: GameSpec; id: string }) => {
    if (o.signal?.aborted) return;
    if (o.budget && !o.budget.reserve(id, spec)) {
      run.skipped++;
      return;
    }
    let cost: number | null = null;
    const t0 = performance.now();
    // every failed call is an attempt on record (never a verdict): the retried ones here, the last one below
    const retried: Promise<void>[] = [];
    const onRetry = ({ error }: { error: Error }) => void retried.push(store.recordAttempt({ runId: run.id, gameId: id, judge: judge.id, error: error.message, at: Date.now() }));
    try {
      // a scheme with its own output format (JudgeLM, Arena-Hard, ...) is free text to a judge that constrains `[[X]]`
      const scheme = prompts.get(spec.promptName);
      const kind = spec.match.model2 === undefined ? 'rating' : outputFormatOf(scheme?.outputFormat) ? 'free' : 'pair';
      const reply = await judge.complete({ system: spec.systemPrompt, user: spec.userPrompt, temperature: settings.temperature, maxTokens: settings.maxTokens, onRetry, verdict: kind, ...(o.signal ? { signal: o.signal } : {}) });
      const latencyMs = performance.now() - t0;
      cost = o.costOf ? o.costOf(reply.tokensIn ?? null, reply.tokensOut ?? null) : null;
      const read = spec.match.model2 === undefined ? { verdict: (parseRating(reply.text, parser) ?? 'error').toString(), parser: PARSER_VERSIONS[parser] } : readPairGame(scheme, reply.text, spec.order, parser);
      const verdict = read.verdict;
      const game: Game = {
        ...spec,
        id,
        judge: judge.id,
        judgeSettings: settings,
        reply: reply.text,
        verdict,
        parser: read.parser,
        tokensIn: reply.tokensIn ?? null,
        tokensOut: reply.tokensOut ?? null,
        latencyMs: Math.round(latencyMs * 10) / 10,
        createdAt: Date.now(),
        runId: run.id,
        source: o.source ?? 'run',
        cost,
        ...(reply.verdictProbs ? { verdictProbs: reply.verdictProbs, entropy: entropyBits(reply.verdictProbs) } : {}),
      };
      // only a game this run stored counts as played (with its tokens and cost)
      if (await store.insertGame(game)) {
        run.played++;
        run.tokensIn += reply.tokensIn ?? 0;
        run.tokensOut += reply.tokensOut ?? 0;
        if (cost !== null) run.cost = (run.cost ?? 0) + cost;
        if (reply.tokensIn === undefined || reply.tokensOut === undefined) run.usageUnknown++;
      } else run.elsewhere++;
      dirty = true;
      progress({ game });
    } catch (e) {
      if (o.signal?.aborted) return;
      const msg = (e as Error)?.message ?? String(e);
      run.failed++;
      dirty = true;
      if (run.errors.length < 20) run.errors.push(msg);
      await store.recordAttempt({ runId: run.id, gameId: id, judge: judge.id, error: msg, at: Date.now() });
      progress({ error: msg });
    } finally {
      o.budget?.settle(id, cost);
      await Promise.all(retried);
      await store.releaseClaims(run.id, [id]);
    }
  };

  // Games are leased a few at a time just before they are played. Those another live run holds are
  // put aside and polled after the rest: stored by the other run -> done; its lease expired or its
  // process died -> leased here and played.
  type Item = (typeof todo)[number];
  const ready: Item[] = [];
  let waiting: Item[] = [];
  let cursor = 0;
  let polling: Promise<void> | undefined;
  const claim = async (items: Item[]): Promise<Item[]> => {
    const now = Date.now();
    const got = new Set(await store.claimGames(run.id, items.map((g) => g.id), now + leaseMs, now));
    return items.filter((g) => got.has(g.id));
  };
  const settleOthers = async (items: Item[]) => {
    const stored = await store.existingGameIds(items.map((g) => g.id));
    run.elsewhere += stored.size;
    if (stored.size) dirty = true;
    return items.filter((g) => !stored.has(g.id));
  };
  const poll = async () => {
    await new Promise((r) => setTimeout(r, Math.min(1000, leaseMs / 4)));
    if (o.signal?.aborted) return;
    await reapDeadRuns(store, { leaseMs, except: run.id, isAlive });
    const open = await settleOthers(waiting);
    const mine = new Set((await claim(open)).map((g) => g.id));
    waiting = open.filter((g) => !mine.has(g.id));
    ready.push(...open.filter((g) => mine.has(g.id)));
  };
  const next = async (): Promise<Item | undefined> => {
    for (;;) {
      if (o.signal?.aborted) return undefined;
      if (ready.length) return ready.shift();
      if (cursor < todo.length) {
        const batch = todo.slice(cursor, (cursor += concurrency));
        const mine = await claim(batch);
        const ids = new Set(mine.map((g) => g.id));
        ready.push(...mine);
        waiting.push(...(await settleOthers(batch.filter((g) => !ids.has(g.id)))));
        continue;
      }
      if (!waiting.length) return undefined;
      await (polling ??= poll().finally(() => (polling = undefined)));
    }
  };
  const worker = async () => {
    for (let g = await next(); g; g = await next()) await playOne(g);
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, todo.length)) }, worker));
  } finally {
    clearInterval(timer);
    await flushing;
    await store.releaseClaims(run.id);
  }
  run.finishedAt = Date.now();
  run.status = o.signal?.aborted ? 'interrupted' : run.skipped ? 'budget' : run.failed ? 'failed' : 'done';
  run.heartbeatAt = null; // the owner stays: which process played it
  if (todo.length) await store.saveRun(record());
  return run;
}
