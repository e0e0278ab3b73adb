// Questions, answers, references, prompts and the labelled pair sets.
import { and, asc, eq, inArray, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import { CANARY_SOURCE } from '../../core/constants.ts';
import type { Answer, PromptScheme, Question, ReferenceAnswer } from '../../core/types.ts';
import type { CatalogStore, PairSetSummary } from '../store.ts';
import { inSet, type AnyDb } from './shared.ts';

/** A question from its row (reference and labelled set only where there is one). */
const questionRecord = (r: typeof t.questions.$inferSelect): Question => ({
  id: r.id,
  category: r.category,
  turns: r.turns,
  ...(r.reference !== null ? { reference: r.reference } : {}),
  ...(r.set !== null ? { set: r.set } : {}),
});

/** CatalogStore.stamp's one statement */
const CATALOG_STAMP_SQL =
  'SELECT (SELECT count(*) FROM "questions") AS "q", (SELECT max(rowid) FROM "questions") AS "qr", ' +
  '(SELECT count(*) FROM "answers") AS "a", (SELECT max(rowid) FROM "answers") AS "ar"';

/** the token CatalogStore.stamp makes of that statement's row */
const catalogStamp = (r: Record<string, unknown> | undefined): string =>
  ['q', 'qr', 'a', 'ar'].map((k) => String(r?.[k] ?? 0)).join('.');

export class DrizzleCatalog implements CatalogStore {
  constructor(private readonly db: AnyDb) {}

  async questions(f: { set?: string } = {}): Promise<Question[]> {
    const rows = await this.db
      .select()
      .from(t.questions)
      .where(f.set !== undefined ? eq(t.questions.set, f.set) : isNull(t.questions.set))
      .orderBy(asc(t.questions.id));
    return rows.map(questionRecord);
  }

  async answers(models?: string[], f: { set?: string } = {}): Promise<Answer[]> {
    const rows = await this.db
      .select()
      .from(t.answers)
      .where(
        and(
          models ? inArray(t.answers.model, models) : undefined,
          inSet(this.db, t.answers.questionId, f.set),
        ),
      )
      .orderBy(asc(t.answers.model), asc(t.answers.questionId));
    return rows.map((r) => ({
      model: r.model,
      questionId: r.questionId,
      turns: r.turns,
      ...(r.answerId ? { answerId: r.answerId } : {}),
    }));
  }

  async stamp(): Promise<string> {
    return catalogStamp((await this.db.all<Record<string, unknown>>(sql.raw(CATALOG_STAMP_SQL)))[0]);
  }

  async models(): Promise<string[]> {
    const rows = await this.db
      .selectDistinct({ model: t.answers.model })
      .from(t.answers)
      .where(inSet(this.db, t.answers.questionId, undefined))
      .orderBy(asc(t.answers.model));
    return rows.map((r) => r.model);
  }

  async references(): Promise<ReferenceAnswer[]> {
    const rows = await this.db.select().from(t.referenceAnswers);
    return rows.map((r) => ({ source: r.source, questionId: r.questionId, turns: r.turns }));
  }

  async prompts(): Promise<PromptScheme[]> {
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

  async pairSets(): Promise<PairSetSummary[]> {
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
}
