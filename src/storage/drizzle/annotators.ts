// Annotators and what they were shown and answered. An answer and its vote are written together, only while
// the annotation is pending and its voter has no vote on the match: nothing a unique index could swallow.
import { and, asc, eq, getTableColumns, isNotNull, isNull, ne, notExists, or, sql } from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import { annotatorVoter, winnerOf } from '../../core/annotate.ts';
import { ANNOTATORS } from '../../core/constants.ts';
import { WINNER_TO_FILE } from '../../core/sides.ts';
import { ArenaError } from '../../core/types.ts';
import type {
  AnnotationMatch,
  AnnotationRecord,
  AnnotatorRecord,
  AnnotatorStore,
  MergedSite,
  SiteAnnotate,
} from '../annotator-store.ts';
import { mergeSite } from './site-merge.ts';
import type { AnyDb, DrizzleStoreOptions } from './shared.ts';

/** Where annotator votes say they came from (the votes table's source; line counts up per source). */
export const ANNOTATE_SOURCE = 'annotate';

/** An annotator's columns but its secrets' hashes. */
const { tokenHash: _t, sessionHash: _s, ...annotatorColumns } = getTableColumns(t.annotators);

export class DrizzleAnnotators implements AnnotatorStore {
  private readonly db: AnyDb;
  constructor(private readonly o: DrizzleStoreOptions) {
    this.db = o.db;
  }

  async add(name: string, tokenHash: string, at: number): Promise<AnnotatorRecord & { again: boolean }> {
    const a = t.annotators;
    // a person whose invite was used (logged out, expired) or revoked comes back as the same voter
    const [again] = await this.db
      .update(a)
      .set({ tokenHash, createdAt: at, usedAt: null, revokedAt: null, sessionHash: null })
      .where(and(eq(a.name, name), or(isNotNull(a.usedAt), isNotNull(a.revokedAt))))
      .returning(annotatorColumns);
    if (again) return { ...again, again: true };
    // past every annotator's number and every annotator vote's (imported votes keep theirs)
    const id = sql<number>`(SELECT MAX(n) + 1 FROM (SELECT COALESCE(MAX(id), 0) AS n FROM annotators UNION ALL
      SELECT COALESCE(MAX(CAST(substr(voter, 11) AS INTEGER)), 0) FROM votes
      WHERE judge = ${ANNOTATORS} AND voter GLOB 'annotator_[0-9]*'))`;
    const [row] = await this.db
      .insert(a)
      .values({ id, name, tokenHash, createdAt: at })
      .onConflictDoNothing()
      .returning(annotatorColumns);
    if (!row)
      throw new ArenaError(
        `[annotators] an annotator named "${name}" exists already and has not used the invite yet (revoke it to invite them again)`,
      );
    return { ...row, again: false };
  }

  async list(): Promise<AnnotatorRecord[]> {
    return this.db.select(annotatorColumns).from(t.annotators).orderBy(asc(t.annotators.name));
  }

  async get(id: number): Promise<AnnotatorRecord | undefined> {
    const [row] = await this.db.select(annotatorColumns).from(t.annotators).where(eq(t.annotators.id, id));
    return row;
  }

  async revoke(name: string, at: number): Promise<boolean> {
    const rows = await this.db
      .update(t.annotators)
      .set({ revokedAt: at, sessionHash: null })
      .where(and(eq(t.annotators.name, name), isNull(t.annotators.revokedAt)))
      .returning({ id: t.annotators.id });
    return rows.length > 0;
  }

  async redeem(tokenHash: string, at: number, sessionHash?: string): Promise<AnnotatorRecord | undefined> {
    const [row] = await this.db
      .update(t.annotators)
      .set({ usedAt: at, sessionHash: sessionHash ?? null })
      .where(
        and(
          eq(t.annotators.tokenHash, tokenHash),
          isNull(t.annotators.usedAt),
          isNull(t.annotators.revokedAt),
        ),
      )
      .returning(annotatorColumns);
    return row;
  }

  async session(annotatorId: number, sessionHash: string): Promise<AnnotatorRecord | undefined> {
    const a = t.annotators;
    const [row] = await this.db
      .select(annotatorColumns)
      .from(a)
      .where(and(eq(a.id, annotatorId), eq(a.sessionHash, sessionHash), isNull(a.revokedAt)));
    return row;
  }

  async endSession(annotatorId: number, sessionHash: string): Promise<void> {
    const a = t.annotators;
    await this.db
      .update(a)
      .set({ sessionHash: null })
      .where(and(eq(a.id, annotatorId), eq(a.sessionHash, sessionHash)));
  }

  async shown(annotatorId: number): Promise<AnnotationRecord[]> {
    return this.db
      .select()
      .from(t.annotations)
      .where(eq(t.annotations.annotatorId, annotatorId))
      .orderBy(asc(t.annotations.id));
  }

  async show(
    annotatorId: number,
    m: AnnotationMatch,
    order: 'AB' | 'BA',
    at: number,
  ): Promise<AnnotationRecord> {
    await this.db
      .insert(t.annotations)
      .values({ annotatorId, ...m, order, shownAt: at })
      .onConflictDoNothing();
    const [row] = await this.db
      .select()
      .from(t.annotations)
      .where(
        and(
          eq(t.annotations.annotatorId, annotatorId),
          eq(t.annotations.questionId, m.questionId),
          eq(t.annotations.turn, m.turn),
          eq(t.annotations.model1, m.model1),
          eq(t.annotations.model2, m.model2),
        ),
      );
    return row!;
  }

  async annotation(id: number): Promise<AnnotationRecord | undefined> {
    const [row] = await this.db.select().from(t.annotations).where(eq(t.annotations.id, id));
    return row;
  }

  async answer(a: Parameters<AnnotatorStore['answer']>[0]): Promise<boolean> {
    const n = a.annotation;
    // the voter's vote on this match, from any source: an imported one makes this answer count nothing
    const voted = () => (a.choice === 'skip' ? undefined : notExists(this.votedOn(n)));
    const record = this.db
      .update(t.annotations)
      .set({ choice: a.choice, reason: a.reason, answeredAt: a.at })
      .where(and(eq(t.annotations.id, n.id), isNull(t.annotations.choice), voted()));
    const queries = [record];
    if (a.choice !== 'skip') {
      const winner = WINNER_TO_FILE[winnerOf(a.choice, n.order)];
      // from the annotation only when it now holds this answer (written by this call, or by an identical one
      // at the same instant, whose vote is then there already)
      const vote = this.db.insert(t.votes).select(
        this.db
          .select({
            id: sql<number>`NULL`.as('id'),
            judge: sql<string>`${ANNOTATORS}`.as('judge'),
            voter: sql<string>`${annotatorVoter(n.annotatorId)}`.as('voter'),
            questionId: t.annotations.questionId,
            turn: t.annotations.turn,
            modelA: t.annotations.model1,
            modelB: t.annotations.model2,
            winner: sql<typeof winner>`${winner}`.as('winner'),
            source: sql<string>`${ANNOTATE_SOURCE}`.as('source'),
            line: sql<number>`(SELECT COALESCE(MAX(line), 0) + 1 FROM votes WHERE source = ${ANNOTATE_SOURCE})`.as(
              'line',
            ),
          })
          .from(t.annotations)
          .where(
            and(
              eq(t.annotations.id, n.id),
              eq(t.annotations.choice, a.choice),
              eq(t.annotations.answeredAt, a.at),
              voted(),
            ),
          ) as never,
      );
      queries.push(vote as never);
    }
    await this.o.atomic(queries);
    const now = await this.annotation(n.id);
    return now?.choice === a.choice && now.answeredAt === a.at;
  }

  /** the votes of the annotation's voter on its match and turn (what the one-vote index keys on) */
  private votedOn(n: AnnotationRecord) {
    const v = t.votes;
    return this.db
      .select({ one: sql`1` })
      .from(v)
      .where(
        and(
          eq(v.judge, ANNOTATORS),
          eq(v.voter, annotatorVoter(n.annotatorId)),
          eq(v.questionId, n.questionId),
          eq(v.turn, n.turn),
          eq(v.modelA, n.model1),
          eq(v.modelB, n.model2),
        ),
      );
  }

  mergeSite(site: SiteAnnotate): Promise<MergedSite> {
    return mergeSite(this.o, site);
  }

  async answered(): Promise<AnnotationRecord[]> {
    return this.db
      .select()
      .from(t.annotations)
      .where(and(isNotNull(t.annotations.choice), ne(t.annotations.choice, 'skip')))
      .orderBy(asc(t.annotations.id));
  }
}
