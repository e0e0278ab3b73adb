import { CANARY_SOURCE } from '../core/constants.ts';
import { gameVerdictOf } from '../core/verdict/stored.ts';
import {
  and,
  asc,
  desc,
  eq,
  inArray,
  isNotNull,
  isNull,
  ne,
  notInArray,
  or,
  sql,
  type SQL,
} from 'drizzle-orm';
import type { BaseSQLiteDatabase, SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as t from '../../db/schema.ts';
import type { Answer, Game, PromptScheme, Question, ReferenceAnswer, Vote } from '../core/types.ts';
import {
  type BatchRecord,
  type CheckpointRecord,
  type GameCost,
  type GameFilter,
  type GameVerdictRow,
  type ImportBundle,
  type ImportCounts,
  type JudgeCost,
  type JudgeSummary,
  type PairSetSummary,
  type RefreshRecord,
  type RefreshStatus,
  type RunCost,
  type RunRecord,
  type Store,
  type TokenTotals,
} from './store.ts';
import { WINNER_FROM_FILE, WINNER_TO_FILE } from '../core/sides.ts'; // the votes table keeps FastChat's spelling

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyDb = BaseSQLiteDatabase<'sync' | 'async', any, typeof t>;
/** A query built but not yet run; the adapter runs a list of them atomically. */
export type Query = { run(): unknown } & object;

export interface DrizzleStoreOptions {
  db: AnyDb;
  /** run the queries all-or-nothing (a better-sqlite3 transaction, a D1 batch) */
  atomic(queries: Query[]): Promise<void>;
  /** the most bound parameters one statement may carry (D1: 100) */
  maxParams: number;
  /**
   * The driver's own insert of played games, returning which rows were new (better-sqlite3: one statement
   * prepared once and run per row in a transaction). Without it, multi-row INSERTs: drizzle builds and SQLite
   * compiles a new statement for every group commit, 3-6x the CPU of the cached statement (bench/run.ts).
   */
  insertGameRows?(rows: GameRow[]): Promise<boolean[]>;
  close?(): Promise<void>;
}

/** A games row as drizzle inserts it. */
export type GameRow = typeof t.games.$inferInsert;

/**
 * `column IN (the ids)` with the ids bound as one JSON parameter (json_each), so that any number of ids
 * is one statement under D1's parameter limit.
 */
/** A run's played games, tokens and cost as its stored games say (failed: its counter, or more failed games on record). */
const LEDGER_FROM_GAMES = {
  played: sql<number>`(SELECT count(*) FROM games g WHERE g.run_id = runs.id)`,
  tokensIn: sql<number>`(SELECT coalesce(sum(g.tokens_in), 0) FROM games g WHERE g.run_id = runs.id)`,
  tokensOut: sql<number>`(SELECT coalesce(sum(g.tokens_out), 0) FROM games g WHERE g.run_id = runs.id)`,
  cost: sql<
    number | null
  >`(CASE WHEN runs.cost IS NULL AND NOT EXISTS (SELECT 1 FROM games g WHERE g.run_id = runs.id AND g.cost IS NOT NULL) THEN NULL ELSE (SELECT coalesce(sum(g.cost), 0) FROM games g WHERE g.run_id = runs.id) END)`,
  failed: sql<number>`max(runs.failed, (SELECT count(DISTINCT a.game_id) FROM attempts a WHERE a.run_id = runs.id AND NOT EXISTS (SELECT 1 FROM games g WHERE g.id = a.game_id AND g.run_id = runs.id)))`,
};

const inJson = (column: typeof t.games.runId, ids: string[]): SQL =>
  sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;

/** Split rows into statements that stay under the bound-parameter limit (one parameter per column of a row). */
function chunk<T extends object>(rows: T[], maxParams: number): T[][] {
  return rows.length ? slices(rows, Math.floor(maxParams / Object.keys(rows[0]!).length)) : [];
}

type Columns = Record<string, { name: string }>;

/** An upsert's SET: each listed column takes the value the conflicting row brought (`excluded.<column>`). */
function fromExcluded<C extends Record<K, { name: string }>, K extends keyof C & string>(
  table: C,
  keys: K[],
): Record<K, SQL> {
  return Object.fromEntries(keys.map((k) => [k, sql.raw(`excluded.${table[k].name}`)])) as Record<K, SQL>;
}

function slices<T>(items: T[], size: number): T[][] {
  const n = Math.max(1, size);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += n) out.push(items.slice(i, i + n));
  return out;
}

function toGame(r: typeof t.games.$inferSelect): Game {
  return {
    id: r.id,
    runId: r.runId,
    judge: r.judge,
    judgeSettings: r.judgeSettings,
    promptName: r.promptName,
    match: {
      questionId: r.questionId,
      category: r.category,
      turn: r.turn,
      model1: r.model1,
      ...(r.model2 !== null ? { model2: r.model2 } : {}),
    },
    order: r.order,
    systemPrompt: r.systemPrompt,
    userPrompt: r.userPrompt,
    reply: r.reply,
    verdict: gameVerdictOf(r.verdict, r.model2 !== null, `game ${r.id}`),
    parser: r.parser,
    tokensIn: r.tokensIn,
    tokensOut: r.tokensOut,
    latencyMs: r.latencyMs,
    createdAt: r.createdAt,
    source: r.source,
    ...(r.cost !== null ? { cost: r.cost } : {}),
    ...(r.verdictProbs !== null ? { verdictProbs: r.verdictProbs } : {}),
    ...(r.entropy !== null ? { entropy: r.entropy } : {}),
  };
}

function gameRow(g: Game): GameRow {
  return {
    id: g.id,
    runId: g.runId ?? null,
    judge: g.judge,
    judgeSettings: g.judgeSettings,
    promptName: g.promptName,
    questionId: g.match.questionId,
    category: g.match.category,
    turn: g.match.turn,
    model1: g.match.model1,
    model2: g.match.model2 ?? null,
    order: g.order,
    systemPrompt: g.systemPrompt,
    userPrompt: g.userPrompt,
    reply: g.reply,
    verdict: g.verdict,
    parser: g.parser,
    tokensIn: g.tokensIn ?? null,
    tokensOut: g.tokensOut ?? null,
    latencyMs: g.latencyMs ?? null,
    createdAt: g.createdAt,
    source: g.source,
    cost: g.cost ?? null,
    verdictProbs: g.verdictProbs ?? null,
    entropy: g.entropy ?? null,
  };
}

/** The Store over a drizzle SQLite database; sqlite.ts and d1.ts only supply the connection and atomicity. */
export class DrizzleStore implements Store {
  readonly db: AnyDb;
  constructor(private readonly o: DrizzleStoreOptions) {
    this.db = o.db;
  }

  async importBundle(b: ImportBundle): Promise<ImportCounts> {
    const db = this.db;
    const q: Query[] = [];
    const counts: ImportCounts = { questions: 0, references: 0, answers: 0, prompts: 0, games: 0, votes: 0 };
    const mp = this.o.maxParams;
    // one statement per chunk of rows that stays under the parameter limit; says how many rows
    const write = <R extends object>(rows: R[], statement: (c: R[]) => Query): number => {
      for (const c of chunk(rows, mp)) q.push(statement(c));
      return rows.length;
    };
    // an import replaces what it brings: a row that exists takes the listed columns from the file
    const upsert =
      <T extends SQLiteTable>(
        table: T,
        target: SQLiteColumn | SQLiteColumn[],
        keys: (keyof T['$inferInsert'] & string)[],
      ) =>
      (c: T['$inferInsert'][]): Query =>
        db
          .insert(table)
          .values(c as never) // drizzle cannot infer a generic table's insert type
          .onConflictDoUpdate({
            target,
            set: fromExcluded(table as unknown as Columns, keys as string[]) as never,
          });
    if (b.questions) {
      const rows = b.questions.items.map((x) => ({
        id: x.id,
        category: x.category,
        turns: x.turns,
        reference: x.reference ?? null,
        source: b.questions!.source,
        set: x.set ?? null,
      }));
      counts.questions = write(
        rows,
        upsert(t.questions, t.questions.id, ['category', 'turns', 'reference', 'source', 'set']),
      );
    }
    if (b.references?.length) {
      const rows = b.references.map((r) => ({ source: r.source, questionId: r.questionId, turns: r.turns }));
      counts.references = write(
        rows,
        upsert(t.referenceAnswers, [t.referenceAnswers.source, t.referenceAnswers.questionId], ['turns']),
      );
    }
    for (const file of b.answers ?? []) {
      const rows = file.items.map((a) => ({
        model: a.model,
        questionId: a.questionId,
        turns: a.turns,
        answerId: a.answerId ?? null,
        source: file.source,
      }));
      counts.answers += write(
        rows,
        upsert(t.answers, [t.answers.model, t.answers.questionId], ['turns', 'answerId', 'source']),
      );
    }
    if (b.prompts?.length) {
      const rows = b.prompts.map((p) => ({
        name: p.name,
        type: p.type,
        systemPrompt: p.systemPrompt,
        promptTemplate: p.promptTemplate,
        outputFormat: p.outputFormat,
        category: p.category ?? null,
        description: p.description ?? null,
      }));
      counts.prompts = write(
        rows,
        upsert(t.prompts, t.prompts.name, [
          'type',
          'systemPrompt',
          'promptTemplate',
          'outputFormat',
          'category',
          'description',
        ]),
      );
    }
    if (b.games?.length) {
      counts.games = write(b.games.map(gameRow), (c) => db.insert(t.games).values(c).onConflictDoNothing());
    }
    for (const file of b.votes ?? []) {
      q.push(db.delete(t.votes).where(eq(t.votes.source, file.source)));
      const rows = file.items.map((v) => ({
        judge: v.judge,
        voter: v.voter,
        questionId: v.questionId,
        turn: v.turn,
        modelA: v.model1,
        modelB: v.model2,
        winner: WINNER_TO_FILE[v.winner],
        source: file.source,
        line: v.line,
      }));
      counts.votes += write(rows, (c) => db.insert(t.votes).values(c));
    }
    if (q.length) await this.o.atomic(q);
    return counts;
  }

  async listQuestions(f: { set?: string } = {}): Promise<Question[]> {
    const rows = await this.db
      .select()
      .from(t.questions)
      .where(f.set !== undefined ? eq(t.questions.set, f.set) : isNull(t.questions.set))
      .orderBy(asc(t.questions.id));
    return rows.map((r) => ({
      id: r.id,
      category: r.category,
      turns: r.turns,
      ...(r.reference !== null ? { reference: r.reference } : {}),
      ...(r.set !== null ? { set: r.set } : {}),
    }));
  }

  /** `questionId` restricted to tournament questions, or to one labelled set's items */
  private inSet(
    column: typeof t.games.questionId | typeof t.answers.questionId | typeof t.votes.questionId,
    set: string | undefined,
  ): SQL {
    if (set !== undefined)
      return inArray(
        column,
        this.db.select({ id: t.questions.id }).from(t.questions).where(eq(t.questions.set, set)),
      );
    return notInArray(
      column,
      this.db.select({ id: t.questions.id }).from(t.questions).where(isNotNull(t.questions.set)),
    );
  }

  async listAnswers(models?: string[], f: { set?: string } = {}): Promise<Answer[]> {
    const rows = await this.db
      .select()
      .from(t.answers)
      .where(
        and(models ? inArray(t.answers.model, models) : undefined, this.inSet(t.answers.questionId, f.set)),
      )
      .orderBy(asc(t.answers.model), asc(t.answers.questionId));
    return rows.map((r) => ({
      model: r.model,
      questionId: r.questionId,
      turns: r.turns,
      ...(r.answerId ? { answerId: r.answerId } : {}),
    }));
  }

  async listModels(): Promise<string[]> {
    const rows = await this.db
      .selectDistinct({ model: t.answers.model })
      .from(t.answers)
      .where(this.inSet(t.answers.questionId, undefined))
      .orderBy(asc(t.answers.model));
    return rows.map((r) => r.model);
  }

  async listReferences(): Promise<ReferenceAnswer[]> {
    const rows = await this.db.select().from(t.referenceAnswers);
    return rows.map((r) => ({ source: r.source, questionId: r.questionId, turns: r.turns }));
  }

  async listPrompts(): Promise<PromptScheme[]> {
    const rows = await this.db.select().from(t.prompts).orderBy(asc(t.prompts.name));
    return rows.map((r) => ({
      name: r.name,
      type: r.type,
      systemPrompt: r.systemPrompt,
      promptTemplate: r.promptTemplate,
      outputFormat: r.outputFormat,
      ...(r.category ? { category: r.category } : {}),
      ...(r.description ? { description: r.description } : {}),
    }));
  }

  async existingGameIds(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const c of slices(ids, this.o.maxParams)) {
      const rows = await this.db.select({ id: t.games.id }).from(t.games).where(inArray(t.games.id, c));
      for (const r of rows) found.add(r.id);
    }
    return found;
  }

  /**
   * One prepared insert per set of columns: building and preparing it per game cost more than running it.
   * A placeholder goes through its column's encoder even when the value is null (a JSON column would
   * store the text 'null'), so null columns are left out of the statement instead (they default to NULL).
   */
  private insertGameQueries = new Map<string, (row: Record<string, unknown>) => unknown>();

  async insertGame(g: Game): Promise<boolean> {
    const row = Object.fromEntries(Object.entries(gameRow(g)).filter(([, v]) => v !== null));
    const keys = Object.keys(row).join(',');
    let run = this.insertGameQueries.get(keys);
    if (!run) {
      const values = Object.fromEntries(
        Object.keys(row).map((k) => [k, sql.placeholder(k)]),
      ) as unknown as typeof t.games.$inferInsert;
      const prepared = this.db.insert(t.games).values(values).onConflictDoNothing().prepare();
      this.insertGameQueries.set(keys, (run = (r) => prepared.run(r)));
    }
    const r = (await run(row)) as { changes?: number; meta?: { changes?: number } };
    return (r.changes ?? r.meta?.changes ?? 0) > 0;
  }

  async insertGames(games: Game[]): Promise<boolean[]> {
    if (this.o.insertGameRows) return this.o.insertGameRows(games.map(gameRow));
    // one INSERT per chunk (a statement is atomic); RETURNING names the rows that were new
    const fresh = new Set<string>();
    for (const c of chunk(games.map(gameRow), this.o.maxParams))
      for (const r of await this.db
        .insert(t.games)
        .values(c)
        .onConflictDoNothing()
        .returning({ id: t.games.id }))
        fresh.add(r.id);
    // an id given twice is new once, at its first place (as the prepared path of sqlite.ts says)
    return games.map((g) => fresh.delete(g.id));
  }

  async listGames(f: GameFilter = {}): Promise<Game[]> {
    const where: SQL[] = [];
    if (f.judge !== undefined) where.push(eq(t.games.judge, f.judge));
    if (f.kind === 'pairwise') where.push(isNotNull(t.games.model2));
    if (f.kind === 'single') where.push(isNull(t.games.model2));
    if (f.questionId !== undefined) where.push(eq(t.games.questionId, f.questionId));
    where.push(f.source !== undefined ? eq(t.games.source, f.source) : ne(t.games.source, CANARY_SOURCE));
    if (f.set !== undefined || !f.withSets) where.push(this.inSet(t.games.questionId, f.set));
    if (f.models) {
      const [a, b] = f.models;
      where.push(
        or(
          and(eq(t.games.model1, a), eq(t.games.model2, b)),
          and(eq(t.games.model1, b), eq(t.games.model2, a)),
        )!,
      );
    }
    const rows = await this.db
      .select()
      .from(t.games)
      .where(where.length ? and(...where) : undefined)
      .orderBy(asc(t.games.createdAt), asc(t.games.id));
    return rows.map(toGame);
  }

  async listJudges(): Promise<JudgeSummary[]> {
    const g = await this.db
      .select({ judge: t.games.judge, n: sql<number>`count(*)` })
      .from(t.games)
      .where(this.inSet(t.games.questionId, undefined))
      .groupBy(t.games.judge);
    const v = await this.db
      .select({ judge: t.votes.judge, n: sql<number>`count(*)` })
      .from(t.votes)
      .where(this.inSet(t.votes.questionId, undefined))
      .groupBy(t.votes.judge);
    const out = new Map<string, JudgeSummary>();
    for (const r of g) out.set(r.judge, { judge: r.judge, games: Number(r.n), votes: 0 });
    for (const r of v) {
      const e = out.get(r.judge) ?? { judge: r.judge, games: 0, votes: 0 };
      e.votes = Number(r.n);
      out.set(r.judge, e);
    }
    return [...out.values()].sort((a, b) => (a.judge < b.judge ? -1 : 1));
  }

  async updateVerdicts(updates: { id: string; verdict: string; parser: string }[]): Promise<void> {
    if (!updates.length) return;
    await this.o.atomic(
      updates.map((u) =>
        this.db.update(t.games).set({ verdict: u.verdict, parser: u.parser }).where(eq(t.games.id, u.id)),
      ),
    );
  }

  async listPairSets(): Promise<PairSetSummary[]> {
    const items = await this.db
      .select({ set: t.questions.set, n: sql<number>`count(*)` })
      .from(t.questions)
      .where(isNotNull(t.questions.set))
      .groupBy(t.questions.set)
      .orderBy(asc(t.questions.set));
    const games = await this.db
      .select({ set: t.questions.set, judge: t.games.judge, n: sql<number>`count(*)` })
      .from(t.games)
      .innerJoin(t.questions, eq(t.games.questionId, t.questions.id))
      .where(and(isNotNull(t.questions.set), ne(t.games.source, CANARY_SOURCE)))
      .groupBy(t.questions.set, t.games.judge)
      .orderBy(asc(t.games.judge));
    return items.map((r) => ({
      set: r.set!,
      items: Number(r.n),
      judges: games.filter((g) => g.set === r.set).map((g) => ({ judge: g.judge, games: Number(g.n) })),
    }));
  }

  async listVotes(judge?: string, f: { set?: string } = {}): Promise<Vote[]> {
    const rows = await this.db
      .select()
      .from(t.votes)
      .where(
        and(
          judge !== undefined ? eq(t.votes.judge, judge) : undefined,
          this.inSet(t.votes.questionId, f.set),
        ),
      )
      .orderBy(asc(t.votes.id));
    return rows.map((r) => ({
      judge: r.judge,
      voter: r.voter,
      questionId: r.questionId,
      turn: r.turn,
      model1: r.modelA,
      model2: r.modelB,
      winner: WINNER_FROM_FILE[r.winner],
    }));
  }

  async saveRun(r: RunRecord): Promise<void> {
    const row = {
      ...r,
      finishedAt: r.finishedAt ?? null,
      owner: r.owner ?? null,
      heartbeatAt: r.heartbeatAt ?? null,
    };
    await this.db.insert(t.runs).values(row).onConflictDoUpdate({ target: t.runs.id, set: row });
  }

  async listRuns(): Promise<RunRecord[]> {
    const rows = await this.db
      .select({ run: t.runs, ...LEDGER_FROM_GAMES })
      .from(t.runs)
      .orderBy(asc(t.runs.startedAt));
    // owner and heartbeat are left out where null (the heartbeat of a finished run, rows from before them);
    // a running run's counters are what its stored games say (its progress writes lag, and stop when killed)
    return rows.map(({ run: { owner, heartbeatAt, ...r }, ...stored }) => ({
      ...r,
      ...(r.status === 'running' ? stored : {}),
      status: r.status as RunRecord['status'],
      ...(owner !== null ? { owner } : {}),
      ...(heartbeatAt !== null ? { heartbeatAt } : {}),
    }));
  }

  async claimGames(owner: string, ids: string[], expiresAt: number, now: number): Promise<string[]> {
    const out: string[] = [];
    // the ids travel as one JSON parameter (json_each), so a claim of any size is one statement under D1's parameter limit
    for (const c of slices(ids, 500)) {
      const rows = await this.db.all<{ game_id: string }>(sql`
        INSERT INTO leases (game_id, owner, expires_at)
        SELECT j.value, ${owner}, ${expiresAt} FROM json_each(${JSON.stringify(c)}) AS j
        WHERE NOT EXISTS (SELECT 1 FROM games WHERE games.id = j.value)
        ON CONFLICT (game_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
        WHERE leases.owner = excluded.owner OR leases.expires_at <= ${now}
        RETURNING game_id`);
      for (const r of rows) out.push(r.game_id);
    }
    return out;
  }

  async renewClaims(owner: string, expiresAt: number): Promise<void> {
    await this.db.update(t.leases).set({ expiresAt }).where(eq(t.leases.owner, owner));
  }

  async releaseClaims(owner: string, ids?: string[]): Promise<void> {
    if (!ids) {
      await this.db.delete(t.leases).where(eq(t.leases.owner, owner));
      return;
    }
    for (const c of slices(ids, this.o.maxParams - 1))
      await this.db.delete(t.leases).where(and(eq(t.leases.owner, owner), inArray(t.leases.gameId, c)));
  }

  async markRunsInterrupted(ids: string[], at: number): Promise<number> {
    if (!ids.length) return 0;
    const before = await this.db
      .select({ id: t.runs.id })
      .from(t.runs)
      .where(and(inArray(t.runs.id, ids), eq(t.runs.status, 'running')));
    if (!before.length) return 0;
    const dead = before.map((r) => r.id);
    await this.o.atomic([
      this.db
        .update(t.runs)
        // its counters as its stored games say (a killed run's last progress write lags behind them)
        .set({ status: 'interrupted', finishedAt: at, heartbeatAt: null, ...LEDGER_FROM_GAMES })
        .where(and(inArray(t.runs.id, dead), eq(t.runs.status, 'running'))),
      this.db.delete(t.leases).where(inArray(t.leases.owner, dead)),
    ]);
    return dead.length;
  }

  async recordAttempt(a: {
    runId: string;
    gameId: string;
    judge: string;
    error: string;
    at: number;
  }): Promise<void> {
    await this.db.insert(t.attempts).values(a);
  }

  async saveRefresh(r: RefreshRecord): Promise<void> {
    await this.db.insert(t.refreshes).values(r).onConflictDoUpdate({ target: t.refreshes.id, set: r });
  }

  async listRefreshes(limit = 50): Promise<RefreshRecord[]> {
    const rows = await this.db.select().from(t.refreshes).orderBy(desc(t.refreshes.startedAt)).limit(limit);
    return rows.map((r) => ({ ...r, status: r.status as RefreshStatus }));
  }

  async markRefreshesInterrupted(): Promise<number> {
    const marked = await this.db
      .update(t.refreshes)
      .set({ status: 'interrupted' })
      .where(eq(t.refreshes.status, 'running'))
      .returning({ id: t.refreshes.id });
    return marked.length;
  }

  async saveCheckpoint(c: CheckpointRecord): Promise<void> {
    await this.db
      .insert(t.checkpoints)
      .values(c)
      .onConflictDoUpdate({ target: [t.checkpoints.series, t.checkpoints.name], set: c });
  }

  async listCheckpoints(series?: string): Promise<CheckpointRecord[]> {
    return this.db
      .select()
      .from(t.checkpoints)
      .where(series === undefined ? undefined : eq(t.checkpoints.series, series))
      .orderBy(asc(t.checkpoints.series), asc(t.checkpoints.step), asc(t.checkpoints.name));
  }

  async saveBatch(b: BatchRecord): Promise<void> {
    await this.db.insert(t.batches).values(b).onConflictDoUpdate({ target: t.batches.id, set: b });
  }

  async listBatches(f: { judge?: string; status?: string } = {}): Promise<BatchRecord[]> {
    return this.db
      .select()
      .from(t.batches)
      .where(
        and(
          f.judge !== undefined ? eq(t.batches.judge, f.judge) : undefined,
          f.status !== undefined ? eq(t.batches.status, f.status) : undefined,
        ),
      )
      .orderBy(asc(t.batches.createdAt), asc(t.batches.id));
  }

  async updateBatch(id: string, patch: Partial<BatchRecord>): Promise<void> {
    if (!Object.keys(patch).length) return;
    await this.db.update(t.batches).set(patch).where(eq(t.batches.id, id));
  }

  async deleteBatch(id: string): Promise<void> {
    await this.db.delete(t.batches).where(eq(t.batches.id, id));
  }

  async costByJudge(runIds?: string[]): Promise<JudgeCost[]> {
    if (runIds && !runIds.length) return [];
    const rows = await this.db
      .select({
        judge: t.games.judge,
        games: sql<number>`count(*)`,
        tokensIn: sql<number>`coalesce(sum(${t.games.tokensIn}), 0)`,
        tokensOut: sql<number>`coalesce(sum(${t.games.tokensOut}), 0)`,
        cost: sql<number | null>`sum(${t.games.cost})`,
      })
      .from(t.games)
      .where(runIds ? inJson(t.games.runId, runIds) : undefined)
      .groupBy(t.games.judge)
      .orderBy(asc(t.games.judge));
    return rows.map((r) => ({
      judge: r.judge,
      games: Number(r.games),
      tokensIn: Number(r.tokensIn),
      tokensOut: Number(r.tokensOut),
      cost: r.cost === null ? null : Number(r.cost),
    }));
  }

  async costByRun(limit = 50): Promise<RunCost[]> {
    return this.db
      .select({
        id: t.runs.id,
        startedAt: t.runs.startedAt,
        judge: t.runs.judge,
        mode: t.runs.mode,
        played: t.runs.played,
        failed: t.runs.failed,
        tokensIn: t.runs.tokensIn,
        tokensOut: t.runs.tokensOut,
        cost: t.runs.cost,
        status: t.runs.status,
      })
      .from(t.runs)
      .orderBy(desc(t.runs.startedAt), asc(t.runs.id))
      .limit(limit);
  }

  async costByGame(limit = 50): Promise<GameCost[]> {
    return this.db
      .select({
        id: t.games.id,
        runId: t.games.runId,
        judge: t.games.judge,
        questionId: t.games.questionId,
        turn: t.games.turn,
        model1: t.games.model1,
        model2: t.games.model2,
        order: t.games.order,
        tokensIn: t.games.tokensIn,
        tokensOut: t.games.tokensOut,
        cost: t.games.cost,
        source: t.games.source,
      })
      .from(t.games)
      .orderBy(desc(t.games.createdAt), asc(t.games.id))
      .limit(limit);
  }

  async gamesOfRuns(judge: string, runIds: string[]): Promise<GameVerdictRow[]> {
    if (!runIds.length) return [];
    const rows = await this.db
      .select({
        id: t.games.id,
        questionId: t.games.questionId,
        turn: t.games.turn,
        model1: t.games.model1,
        model2: t.games.model2,
        order: t.games.order,
        verdict: t.games.verdict,
        source: t.games.source,
      })
      .from(t.games)
      .where(and(eq(t.games.judge, judge), inJson(t.games.runId, runIds)))
      .orderBy(asc(t.games.createdAt), asc(t.games.id));
    return rows.map((r) => ({ ...r, verdict: gameVerdictOf(r.verdict, r.model2 !== null, `game ${r.id}`) }));
  }

  async tokenTotals(judge: string): Promise<TokenTotals> {
    const [r] = await this.db
      .select({
        games: sql<number>`count(*)`,
        chars: sql<number>`coalesce(sum(length(${t.games.systemPrompt}) + length(${t.games.userPrompt})), 0)`,
        tokensIn: sql<number>`coalesce(sum(${t.games.tokensIn}), 0)`,
        tokensOut: sql<number>`coalesce(sum(${t.games.tokensOut}), 0)`,
      })
      .from(t.games)
      .where(and(eq(t.games.judge, judge), isNotNull(t.games.tokensIn), isNotNull(t.games.tokensOut)));
    return {
      games: Number(r?.games ?? 0),
      chars: Number(r?.chars ?? 0),
      tokensIn: Number(r?.tokensIn ?? 0),
      tokensOut: Number(r?.tokensOut ?? 0),
    };
  }

  async close(): Promise<void> {
    await this.o.close?.();
  }
}
