// Judged games: the prepared-insert fast path (SQLite) and multi-row inserts (D1), the filters of a listing,
// verdict updates, and the judges that have games or votes.
import {
  and,
  asc,
  eq,
  getTableColumns,
  gt,
  inArray,
  isNotNull,
  isNull,
  ne,
  or,
  sql,
  type SQL,
} from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import { CANARY_SOURCE } from '../../core/constants.ts';
import { gameVerdictOf } from '../../core/verdict/stored.ts';
import type { Game } from '../../core/types.ts';
import type {
  GameFacts,
  GameFilter,
  GameStore,
  GameVerdictRow,
  JudgeSummary,
  PruneCounts,
  PruneTarget,
} from '../store.ts';
import { gameRow, toFacts, toGame, type FactsRow } from './game-rows.ts';
import { chunk, inJson, inSet, slices, type AnyDb, type DrizzleStoreOptions } from './shared.ts';

/** Every column of a game but its text (prompts and reply): what games.facts reads. */
const { systemPrompt: _s, userPrompt: _u, reply: _r, ...FACTS } = getTableColumns(t.games);
const FACT_COLUMNS = Object.entries(FACTS);
const JSON_COLUMNS = new Set<unknown>([t.games.judgeSettings, t.games.verdictProbs]);
/** D1 answers a read in one response: a page holds this many games' facts (a few hundred bytes each). */
const FACTS_PAGE = 1000;

/**
 * A row the driver streamed (values in FACTS' order) as drizzle would map it: `seen` keeps one copy of each
 * repeated text and JSON value, parsed once, shared by the read's games.
 */
function factsRow(values: unknown[], seen: Map<unknown, unknown>): FactsRow {
  const r: Record<string, unknown> = {};
  FACT_COLUMNS.forEach(([k, col], i) => {
    const v = values[i];
    if (typeof v !== 'string' || col === t.games.id) r[k] = v;
    else {
      // a JSON text is keyed apart from the same text in a text column
      const key = JSON_COLUMNS.has(col) ? `\u0000${v}` : v;
      if (seen.has(key)) r[k] = seen.get(key);
      else seen.set(key, (r[k] = col.mapFromDriverValue(v)));
    }
  });
  return r as FactsRow;
}

export class DrizzleGames implements GameStore {
  private readonly db: AnyDb;
  constructor(private readonly o: DrizzleStoreOptions) {
    this.db = o.db;
  }

  async existingIds(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const c of slices(ids, this.o.maxParams)) {
      const rows = await this.db.select({ id: t.games.id }).from(t.games).where(inArray(t.games.id, c));
      for (const r of rows) found.add(r.id);
    }
    return found;
  }

  async insert(g: Game): Promise<boolean> {
    return (await this.insertMany([g]))[0]!;
  }

  async insertMany(games: Game[]): Promise<boolean[]> {
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

  async list(f: GameFilter = {}): Promise<Game[]> {
    const rows = await this.db
      .select()
      .from(t.games)
      .where(this.filter(f))
      .orderBy(asc(t.games.createdAt), asc(t.games.id));
    return rows.map(toGame);
  }

  /** list without the text columns, streamed (better-sqlite3) or in pages (D1): never a second copy */
  async facts(f: GameFilter = {}): Promise<GameFacts[]> {
    const where = this.filter(f);
    const order = [asc(t.games.createdAt), asc(t.games.id)];
    const out: GameFacts[] = [];
    if (this.o.eachRow) {
      const q = this.db
        .select(FACTS)
        .from(t.games)
        .where(where)
        .orderBy(...order)
        .toSQL();
      const seen = new Map<unknown, unknown>();
      for (const values of this.o.eachRow(q.sql, q.params)) out.push(toFacts(factsRow(values, seen)));
      return out;
    }
    for (let last: GameFacts | undefined; ;) {
      const after = last
        ? or(
            gt(t.games.createdAt, last.createdAt),
            and(eq(t.games.createdAt, last.createdAt), gt(t.games.id, last.id)),
          )
        : undefined;
      const page = await this.db
        .select(FACTS)
        .from(t.games)
        .where(and(where, after))
        .orderBy(...order)
        .limit(FACTS_PAGE);
      for (const r of page) out.push(toFacts(r));
      if (page.length < FACTS_PAGE) return out;
      last = out.at(-1);
    }
  }

  /** The games a filter names (see GameFilter). */
  private filter(f: GameFilter): SQL | undefined {
    const where: SQL[] = [];
    if (f.judge !== undefined) where.push(eq(t.games.judge, f.judge));
    if (f.kind === 'pairwise') where.push(isNotNull(t.games.model2));
    if (f.kind === 'single') where.push(isNull(t.games.model2));
    if (f.questionId !== undefined) where.push(eq(t.games.questionId, f.questionId));
    where.push(f.source !== undefined ? eq(t.games.source, f.source) : ne(t.games.source, CANARY_SOURCE));
    if (f.set !== undefined || !f.withSets) where.push(inSet(this.db, t.games.questionId, f.set));
    if (f.models) {
      const [a, b] = f.models;
      where.push(
        or(
          and(eq(t.games.model1, a), eq(t.games.model2, b)),
          and(eq(t.games.model1, b), eq(t.games.model2, a)),
        )!,
      );
    }
    return and(...where);
  }

  async judges(): Promise<JudgeSummary[]> {
    const g = await this.db
      .select({ judge: t.games.judge, n: sql<number>`count(*)` })
      .from(t.games)
      .where(inSet(this.db, t.games.questionId, undefined))
      .groupBy(t.games.judge);
    const v = await this.db
      .select({ judge: t.votes.judge, n: sql<number>`count(*)` })
      .from(t.votes)
      .where(inSet(this.db, t.votes.questionId, undefined))
      .groupBy(t.votes.judge);
    const out = new Map<string, JudgeSummary>();
    for (const r of g) out.set(r.judge, { judge: r.judge, games: Number(r.n), votes: 0 });
    for (const r of v)
      out.set(r.judge, { judge: r.judge, games: out.get(r.judge)?.games ?? 0, votes: Number(r.n) });
    return [...out.values()].sort((a, b) => (a.judge < b.judge ? -1 : 1));
  }

  async updateVerdicts(
    updates: { id: string; verdict: string; parser: string; recordedVerdict?: string }[],
  ): Promise<void> {
    if (!updates.length) return;
    await this.o.atomic(
      updates.map((u) =>
        this.db
          .update(t.games)
          .set({
            verdict: u.verdict,
            parser: u.parser,
            ...(u.recordedVerdict !== undefined ? { recordedVerdict: u.recordedVerdict } : {}),
          })
          .where(eq(t.games.id, u.id)),
      ),
    );
  }

  async prune(target: PruneTarget, o: { dryRun?: boolean } = {}): Promise<PruneCounts> {
    const where = pruneWhere(target);
    const tables = { games: t.games, votes: t.votes, answers: t.answers, runs: t.runs, attempts: t.attempts };
    const counts = { games: 0, votes: 0, answers: 0, runs: 0, attempts: 0 } satisfies PruneCounts;
    const deletes = [];
    for (const k of Object.keys(tables) as (keyof PruneCounts)[]) {
      const w = where[k];
      if (!w) continue;
      const [row] = await this.db
        .select({ n: sql<number>`count(*)` })
        .from(tables[k])
        .where(w);
      counts[k] = Number(row?.n ?? 0);
      if (counts[k]) deletes.push(this.db.delete(tables[k]).where(w));
    }
    if (!o.dryRun && deletes.length) await this.o.atomic(deletes);
    return counts;
  }

  async ofRuns(judge: string, runIds: string[]): Promise<GameVerdictRow[]> {
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
}

/** The rows of each table a prune target names (a table it leaves alone has none). */
function pruneWhere(x: PruneTarget): Partial<Record<keyof PruneCounts, SQL>> {
  if ('judge' in x)
    return {
      games: eq(t.games.judge, x.judge),
      votes: eq(t.votes.judge, x.judge),
      runs: eq(t.runs.judge, x.judge),
      attempts: eq(t.attempts.judge, x.judge),
    };
  if ('model' in x)
    return {
      games: or(eq(t.games.model1, x.model), eq(t.games.model2, x.model))!,
      votes: or(eq(t.votes.modelA, x.model), eq(t.votes.modelB, x.model))!,
      answers: eq(t.answers.model, x.model),
    };
  return {
    games: eq(t.games.runId, x.run),
    runs: eq(t.runs.id, x.run),
    attempts: eq(t.attempts.runId, x.run),
  };
}
