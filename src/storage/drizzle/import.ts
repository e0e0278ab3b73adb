// An import written all or nothing: every row of a bundle in one atomic list of statements, each statement
// under the adapter's bound-parameter limit.
import { and, eq, notInArray, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as t from '../../../db/schema.ts';
import { ANNOTATORS } from '../../core/constants.ts';
import { WINNER_TO_FILE } from '../../core/sides.ts'; // the votes table keeps FastChat's spelling
import { ArenaError } from '../../core/types.ts';
import type { ImportBundle, ImportCounts } from '../store.ts';
import { gameRow } from './game-rows.ts';
import { chunk, type AnyDb, type DrizzleStoreOptions, type OnConflict, type Query } from './shared.ts';

type Columns = Record<string, { name: string }>;

/** An upsert's SET: each listed column takes the value the conflicting row brought (`excluded.<column>`). */
function fromExcluded<C extends Record<K, { name: string }>, K extends keyof C & string>(
  table: C,
  keys: K[],
): Record<K, SQL> {
  return Object.fromEntries(keys.map((k) => [k, sql.raw(`excluded.${table[k].name}`)])) as Record<K, SQL>;
}

export async function importBundle(o: DrizzleStoreOptions, b: ImportBundle): Promise<ImportCounts> {
  const db = o.db;
  const q: Query[] = [];
  const counts: ImportCounts = { questions: 0, references: 0, answers: 0, prompts: 0, games: 0, votes: 0 };
  const mp = o.maxParams;
  // the driver's own insert of the rows, else one statement per chunk of rows that stays under the parameter
  // limit; says how many rows
  const write = <T extends SQLiteTable>(
    table: T,
    rows: T['$inferInsert'][],
    conflict: OnConflict = (i) => i,
  ): number => {
    if (o.insertRows) q.push(o.insertRows(table, rows, conflict));
    // drizzle cannot infer a generic table's insert type
    else for (const c of chunk(rows, mp)) q.push(conflict(db.insert(table).values(c as never)));
    return rows.length;
  };
  // an import replaces what it brings: a row that exists takes the listed columns from the file
  const upsert =
    <T extends SQLiteTable>(
      table: T,
      target: SQLiteColumn | SQLiteColumn[],
      keys: (keyof T['$inferInsert'] & string)[],
    ): OnConflict =>
    (i) =>
      i.onConflictDoUpdate({ target, set: fromExcluded(table as unknown as Columns, keys as string[]) });
  if (b.questions) {
    const { source } = b.questions;
    const rows = b.questions.items.map((x) => ({
      ...x,
      reference: x.reference ?? null,
      source,
      set: x.set ?? null,
    }));
    counts.questions = write(
      t.questions,
      rows,
      upsert(t.questions, t.questions.id, ['category', 'turns', 'reference', 'source', 'set']),
    );
  }
  if (b.references?.length) {
    const rows = b.references.map((r) => ({ source: r.source, questionId: r.questionId, turns: r.turns }));
    counts.references = write(
      t.referenceAnswers,
      rows,
      upsert(t.referenceAnswers, [t.referenceAnswers.source, t.referenceAnswers.questionId], ['turns']),
    );
  }
  for (const file of b.answers ?? []) {
    const rows = file.items.map((a) => ({ ...a, answerId: a.answerId ?? null, source: file.source }));
    counts.answers += write(
      t.answers,
      rows,
      upsert(t.answers, [t.answers.model, t.answers.questionId], ['turns', 'answerId', 'source']),
    );
  }
  if (b.prompts?.length) {
    const rows = b.prompts.map((p) => ({
      ...p,
      category: p.category ?? null,
      description: p.description ?? null,
    }));
    counts.prompts = write(
      t.prompts,
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
    counts.games = write(t.games, b.games.map(gameRow), (i) => i.onConflictDoNothing());
  }
  const annotatorVote = await annotatorVotes(db, b.votes ?? []);
  for (const file of b.votes ?? []) {
    q.push(db.delete(t.votes).where(eq(t.votes.source, file.source)));
    const rows = file.items
      .filter((v) => annotatorVote(file.source, v))
      .map((v) => ({
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
    counts.votes += write(t.votes, rows);
  }
  if (q.length) await o.atomic(q);
  return counts;
}

type VoteFile = NonNullable<ImportBundle['votes']>[number];

/**
 * The rule for annotator votes (one per voter, match and turn): `keep` is false for a vote stored already from
 * another source, and throws, located, for one that contradicts a stored vote or repeats one of the import's.
 */
async function annotatorVotes(db: AnyDb, files: VoteFile[]) {
  const key = (v: { voter: string; questionId: number; turn: number }, a: string, b: string) =>
    JSON.stringify([v.voter, v.questionId, v.turn, a, b]);
  const sources = files.map((f) => f.source);
  const stored = new Map<string, { winner: string; source: string }>();
  if (files.some((f) => f.items.some((v) => v.judge === ANNOTATORS)))
    for (const v of await db
      .select()
      .from(t.votes)
      .where(and(eq(t.votes.judge, ANNOTATORS), notInArray(t.votes.source, sources))))
      stored.set(key(v, v.modelA, v.modelB), { winner: v.winner, source: v.source });
  const seen = new Map<string, string>();
  return (source: string, v: VoteFile['items'][number]): boolean => {
    if (v.judge !== ANNOTATORS) return true;
    const k = key(v, v.model1, v.model2);
    const what = `${v.voter} on question ${v.questionId}, turn ${v.turn} (${v.model1} vs ${v.model2})`;
    const where = `${source}:${v.line}`;
    const fail = (field: string, m: string) =>
      new ArenaError(`${where}: field "${field}": ${m}`, { file: source, line: v.line, field });
    const first = seen.get(k);
    if (first) throw fail('judge', `a second vote of ${what}; the first is at ${first}`);
    seen.set(k, where);
    const s = stored.get(k);
    if (!s) return true;
    if (s.winner === WINNER_TO_FILE[v.winner]) return false;
    throw fail(
      'winner',
      `${what} has a vote here already (${s.winner}, from ${s.source}); this line says ${WINNER_TO_FILE[v.winner]}`,
    );
  };
}
