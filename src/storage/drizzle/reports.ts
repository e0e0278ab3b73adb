// Stored reports (what the site shows, computed when the games change), keyed by view and parameters, and the
// content digest of the data they are computed from.
import { and, asc, eq, sql } from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import { sha256Hex } from '../../core/sha256.ts';
import type { DataDigest, DigestTable, ReportKey, ReportStore, StoredReport } from '../report-store.ts';
import { chunk, type DrizzleStoreOptions } from './shared.ts';

/** A database opened read-only before its migration to the reports (or pages) table has none: nothing is stored there. */
export const noTable = (e: unknown) =>
  /no such table: (reports|pages)/.test(String((e as Error)?.message ?? e));

/** The keys as the one JSON parameter of a read: `[[view, params], ...]`. */
export const keysJson = (keys: ReportKey[]): string => JSON.stringify(keys.map((k) => [k.view, k.params]));

/** The read of `get` as plain SQL, its one parameter `keysJson(keys)` (a driver prepares it once: readReports). */
export const REPORTS_BY_KEYS =
  'SELECT view, params, digest, version, body, built_at AS builtAt, ms FROM reports WHERE (view, params) IN ' +
  "(SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))";

export class DrizzleReports implements ReportStore {
  constructor(private readonly o: DrizzleStoreOptions) {}

  async get(keys: ReportKey[]): Promise<StoredReport[]> {
    if (!keys.length) return [];
    try {
      if (this.o.readReports) return this.o.readReports(keys);
      // one statement for any number of keys: the pairs as one JSON parameter
      return await this.o.db
        .select()
        .from(t.reports)
        .where(
          sql`(${t.reports.view}, ${t.reports.params}) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${keysJson(keys)}))`,
        );
    } catch (e) {
      if (noTable(e)) return [];
      throw e;
    }
  }

  async put(rows: StoredReport[]): Promise<void> {
    const { db } = this.o;
    await this.o.atomic(
      chunk(rows, this.o.maxParams).map((part) =>
        db
          .insert(t.reports)
          .values(part)
          .onConflictDoUpdate({
            target: [t.reports.view, t.reports.params],
            set: {
              digest: sql`excluded.digest`,
              version: sql`excluded.version`,
              body: sql`excluded.body`,
              builtAt: sql`excluded.built_at`,
              ms: sql`excluded.ms`,
            },
          }),
      ),
    );
  }

  async index(): Promise<Omit<StoredReport, 'body'>[]> {
    try {
      return await this.o.db
        .select({
          view: t.reports.view,
          params: t.reports.params,
          digest: t.reports.digest,
          version: t.reports.version,
          builtAt: t.reports.builtAt,
          ms: t.reports.ms,
        })
        .from(t.reports)
        .orderBy(asc(t.reports.view), asc(t.reports.params));
    } catch (e) {
      if (noTable(e)) return [];
      throw e;
    }
  }

  async remove(keys: ReportKey[]): Promise<void> {
    const { db } = this.o;
    await this.o.atomic(
      keys.map((k) =>
        db.delete(t.reports).where(and(eq(t.reports.view, k.view), eq(t.reports.params, k.params))),
      ),
    );
  }

  /** The digest of everything a report reads (games' id and verdict, votes, DIGEST_TABLES); no prompt or reply. */
  async digest(): Promise<DataDigest> {
    const [judges, tables] = await Promise.all([this.judgesDigest(), this.tablesDigest()]);
    return { judges, tables };
  }

  private async judgesDigest(): Promise<Record<string, string>> {
    const { db } = this.o;
    const parts = new Map<string, string[]>();
    const add = (judge: string, s: string) => {
      const p = parts.get(judge);
      if (p) p.push(s);
      else parts.set(judge, [s]);
    };
    const games = await db
      .select({ judge: t.games.judge, id: t.games.id, verdict: t.games.verdict })
      .from(t.games)
      .orderBy(asc(t.games.judge), asc(t.games.id));
    // the verdict, not the parser that read it: a re-parse that changes no verdict changes no figure
    for (const g of games) add(g.judge, `g${g.id}\u0001${g.verdict}`);
    const votes = await db.select().from(t.votes).orderBy(asc(t.votes.judge));
    // not the row id: re-importing a file replaces its votes with the same content under new ids
    for (const { id: _id, ...v } of votes) add(v.judge, `v${JSON.stringify(Object.values(v))}`);
    const judges: Record<string, string> = {};
    for (const [j, p] of [...parts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      judges[j] = sha256Hex(p.sort().join('\n')).slice(0, 32);
    return judges;
  }

  /** The tables' columns the Store hands out: not a row's file, so re-importing from another file changes none. */
  private async tablesDigest(): Promise<Record<DigestTable, string>> {
    const { db } = this.o;
    const q = t.questions;
    const a = t.answers;
    const [questions, answers, checkpoints] = await Promise.all([
      db
        .select({ id: q.id, category: q.category, turns: q.turns, reference: q.reference, set: q.set })
        .from(q)
        .orderBy(asc(q.id)),
      db
        .select({ model: a.model, questionId: a.questionId, turns: a.turns, answerId: a.answerId })
        .from(a)
        .orderBy(asc(a.model), asc(a.questionId)),
      db.select().from(t.checkpoints).orderBy(asc(t.checkpoints.series), asc(t.checkpoints.name)),
    ]);
    const hash = (rows: object[]) =>
      sha256Hex(JSON.stringify(rows.map((r) => Object.values(r)))).slice(0, 32);
    return {
      pairSets: hash(questions.filter((x) => x.set !== null).map((x) => [x.id, x.set])),
      questions: hash(questions),
      answers: hash(answers),
      checkpoints: hash(checkpoints),
    };
  }
}
