// The read path of the site on D1 (the Worker): the reads a page makes, as fixed SQL built once from the schema,
// rows mapped by the schema's own columns (the same values and key order as drizzle's), and every read asked in
// the same turn of the event loop sent to D1 as one batch (one round trip). Drizzle's query builder builds and
// maps a query per call, the first time in a new isolate while the visitor waits; these do neither.
// The Store's drizzle methods stay the definition: tests/storage/d1-reads.test.ts checks these against them.
import type { AnyD1Database } from 'drizzle-orm/d1';
import { getTableColumns, type Table } from 'drizzle-orm';
import * as t from '../../db/schema.ts';
import type { Question } from '../core/types.ts';
import type { ReportKey, StoredReport } from './report-store.ts';
import type { CheckpointRecord, JudgeSummary, RefreshRecord, RunRecord } from './store.ts';
import { RUN_LEDGER_SQL, runRecord, type RunRow } from './drizzle/runs.ts';
import { CATALOG_STAMP_SQL, catalogStamp, questionRecord } from './drizzle/catalog.ts';
import { judgeSummaries } from './drizzle/games.ts';
import { CURRENT_REPORT } from './drizzle/reports.ts';
import { REFRESH_LEDGER_SQL, refreshRecord, type RefreshRow } from './drizzle/refreshes.ts';

type Row = Record<string, unknown>;

/** How many microtask turns a batch waits for more reads (a page's reads asked together land within a few). */
const GATHER_TURNS = 16;

interface Asked {
  sql: string;
  params: unknown[];
  resolve(rows: Row[]): void;
  reject(e: unknown): void;
}

/**
 * Reads asked close together (within GATHER_TURNS microtask turns of the first) go to D1 as one `batch`. Timers
 * are not used: a Worker's global scope (its warm-up) may not set one. A batch that fails is retried one statement
 * at a time, so each read gets its own answer or error.
 */
export class ReadBatcher {
  private asked: Asked[] = [];
  /** D1 round trips made (tests) */
  calls = 0;

  constructor(private readonly binding: AnyD1Database) {}

  all(sql: string, params: unknown[] = []): Promise<Row[]> {
    return new Promise<Row[]>((resolve, reject) => {
      this.asked.push({ sql, params, resolve, reject });
      if (this.asked.length === 1) void this.flushSoon();
    });
  }

  private async flushSoon(): Promise<void> {
    for (let i = 0; i < GATHER_TURNS; i++) await null;
    const asked = this.asked;
    this.asked = [];
    const statements = asked.map((a) => this.binding.prepare(a.sql).bind(...a.params));
    try {
      this.calls++;
      const results =
        statements.length === 1
          ? [await statements[0]!.all<Row>()]
          : await this.binding.batch<Row>(statements);
      asked.forEach((a, i) => a.resolve(results[i]!.results));
    } catch (e) {
      if (asked.length === 1) return asked[0]!.reject(e);
      for (const [i, a] of asked.entries())
        await statements[i]!.all<Row>().then(
          (r: { results: Row[] }) => a.resolve(r.results),
          (err: unknown) => a.reject(err),
        );
    }
  }
}

/** A table's columns as the Store reads them: the SELECT list, and a row mapped as drizzle maps it. */
function columnsOf<T extends Table>(table: T) {
  const cols = Object.entries(getTableColumns(table));
  return {
    select: cols.map(([, c]) => `"${c.name}"`).join(', '),
    map: (row: Row): T['$inferSelect'] => {
      const out: Row = {};
      for (const [key, c] of cols) {
        const v = row[c.name];
        out[key] = v === null || v === undefined ? null : c.mapFromDriverValue(v);
      }
      return out;
    },
  };
}

/** `expr AS "l_key"` for each of a ledger's expressions, and the ledger read back from a row. */
function ledgerOf<K extends string>(ledger: Record<K, string>) {
  const keys = Object.keys(ledger) as K[];
  return {
    select: keys.map((k) => `${ledger[k]} AS "l_${k}"`).join(', '),
    map: (row: Row) => Object.fromEntries(keys.map((k) => [k, row[`l_${k}`]])) as Record<K, number>,
  };
}

/** Tournament questions only: the Store leaves labelled-set items out (drizzle/shared.ts inSet). */
const TOURNAMENT = `NOT IN (SELECT "id" FROM "questions" WHERE "pair_set" IS NOT NULL)`;

/** The fixed reads (built on first use, once per isolate: see `built`). */
function build() {
  const run = columnsOf(t.runs);
  const runLedger = ledgerOf(RUN_LEDGER_SQL);
  const refresh = columnsOf(t.refreshes);
  const refreshLedger = ledgerOf(REFRESH_LEDGER_SQL);
  const checkpoint = columnsOf(t.checkpoints);
  const question = columnsOf(t.questions);
  const report = columnsOf(t.reports);
  const runs = `SELECT ${run.select}, ${runLedger.select} FROM "runs"`;
  return {
    gameJudges: `SELECT "judge", count(*) AS "n" FROM "games" WHERE "question_id" ${TOURNAMENT} GROUP BY "judge"`,
    voteJudges: `SELECT "judge", count(*) AS "n" FROM "votes" WHERE "question_id" ${TOURNAMENT} GROUP BY "judge"`,
    runsAll: `${runs} ORDER BY "started_at" ASC`,
    runsLast: `${runs} ORDER BY "started_at" DESC, "id" DESC LIMIT ?`,
    run: (row: Row) => runRecord({ run: run.map(row), ...runLedger.map(row) } as RunRow),
    refreshesLast: `SELECT ${refresh.select}, ${refreshLedger.select} FROM "refreshes" ORDER BY "started_at" DESC LIMIT ?`,
    refresh: (row: Row) =>
      refreshRecord({ refresh: refresh.map(row), ...refreshLedger.map(row) } as RefreshRow),
    checkpoints: `SELECT ${checkpoint.select} FROM "checkpoints" ORDER BY "series" ASC, "step" ASC, "name" ASC`,
    checkpoint: checkpoint.map,
    questions: `SELECT ${question.select} FROM "questions" WHERE "pair_set" IS NULL ORDER BY "id" ASC`,
    questionsOfSet: `SELECT ${question.select} FROM "questions" WHERE "pair_set" = ? ORDER BY "id" ASC`,
    question: question.map,
    models: `SELECT DISTINCT "model" FROM "answers" WHERE "question_id" ${TOURNAMENT} ORDER BY "model" ASC`,
    stamp: CATALOG_STAMP_SQL,
    // one statement for any number of keys: the pairs as one JSON parameter
    reports: `SELECT ${report.select} FROM "reports" WHERE ("view", "params") IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))`,
    report: report.map,
    current: CURRENT_REPORT,
  };
}

/** the fixed reads, shared by every D1Reads of the isolate (the Worker's warm-up builds them at start-up) */
let built: ReturnType<typeof build> | undefined;

/** The Store's site reads on D1, each one fixed statement, batched (see the top of this file). */
export class D1Reads {
  readonly batch: ReadBatcher;

  constructor(binding: AnyD1Database) {
    this.batch = new ReadBatcher(binding);
  }

  private get sql() {
    return (built ??= build());
  }

  /** Store.games.judges() */
  async judges(): Promise<JudgeSummary[]> {
    const [g, v] = await Promise.all([
      this.batch.all(this.sql.gameJudges),
      this.batch.all(this.sql.voteJudges),
    ]);
    return judgeSummaries(g as { judge: string; n: unknown }[], v as { judge: string; n: unknown }[]);
  }

  /** Store.runs.list(limit) */
  async runs(limit?: number): Promise<RunRecord[]> {
    const rows =
      limit === undefined
        ? await this.batch.all(this.sql.runsAll)
        : (await this.batch.all(this.sql.runsLast, [limit])).reverse();
    return rows.map(this.sql.run);
  }

  /** Store.refreshes.list(limit) */
  async refreshes(limit = 50): Promise<RefreshRecord[]> {
    return (await this.batch.all(this.sql.refreshesLast, [limit])).map(this.sql.refresh);
  }

  /** Store.checkpoints.list() (every series) */
  async checkpoints(): Promise<CheckpointRecord[]> {
    return (await this.batch.all(this.sql.checkpoints)).map(this.sql.checkpoint);
  }

  /** Store.catalog.questions(f) */
  async questions(f: { set?: string } = {}): Promise<Question[]> {
    const rows =
      f.set !== undefined
        ? await this.batch.all(this.sql.questionsOfSet, [f.set])
        : await this.batch.all(this.sql.questions);
    return rows.map((row) => questionRecord(this.sql.question(row)));
  }

  /** Store.catalog.models() */
  async models(): Promise<string[]> {
    return (await this.batch.all(this.sql.models)).map((r) => r.model as string);
  }

  /** Store.catalog.stamp() */
  async stamp(): Promise<string> {
    return catalogStamp((await this.batch.all(this.sql.stamp))[0]);
  }

  /** Store.reports.current(view, params) */
  async current(view: string, params: string): Promise<string | undefined> {
    return (await this.batch.all(this.sql.current, [view, params]))[0]?.body as string | undefined;
  }

  /** Store.reports.get(keys) */
  async reports(keys: ReportKey[]): Promise<StoredReport[]> {
    if (!keys.length) return [];
    const json = JSON.stringify(keys.map((k) => [k.view, k.params]));
    return (await this.batch.all(this.sql.reports, [json])).map(this.sql.report);
  }
}
