// Taking in what a site recorded on /annotate (read from D1 by `arena publish`): the site is where annotators
// vote, this database where games are played and annotators invited. Rows are matched by the ids and lines the
// site gave them; a contradiction is refused before anything is written.
import { and, eq, inArray, isNull } from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import { ANNOTATORS } from '../../core/constants.ts';
import { ArenaError } from '../../core/types.ts';
import type { AnnotationRecord, MergedSite, SiteAnnotate, SiteVote } from '../annotator-store.ts';
import { ANNOTATE_SOURCE } from './annotators.ts';
import { chunk, slices, type DrizzleStoreOptions, type Query } from './shared.ts';

const matchOf = (n: AnnotationRecord) =>
  JSON.stringify([n.annotatorId, n.questionId, n.turn, n.model1, n.model2]);
const answerOf = (n: AnnotationRecord) => JSON.stringify([n.choice, n.reason, n.answeredAt]);
const voteOf = (v: SiteVote) => JSON.stringify([v.voter, v.questionId, v.turn, v.modelA, v.modelB, v.winner]);

const refuse = (what: string) =>
  new ArenaError(
    `[annotators] the site's ${what}: it was published from another database, or votes were collected here and on the site at once; nothing was taken in`,
  );

export async function mergeSite(o: DrizzleStoreOptions, site: SiteAnnotate): Promise<MergedSite> {
  const { db } = o;
  const queries: Query[] = [];
  const out: MergedSite = { redeemed: 0, annotations: 0, answers: 0, votes: 0 };

  const local = new Map((await db.select().from(t.annotators)).map((a) => [a.id, a]));
  for (const a of site.annotators) {
    const l = local.get(a.id);
    if (!l || l.name !== a.name)
      throw refuse(`annotator ${a.id} is "${a.name}", here ${l ? `"${l.name}"` : 'there is none'}`);
    // a redemption before the invite was (re)issued here used an older token
    if (l.usedAt !== null || a.usedAt === null || a.usedAt < l.createdAt) continue;
    out.redeemed++;
    queries.push(
      db
        .update(t.annotators)
        .set({ usedAt: a.usedAt })
        .where(and(eq(t.annotators.id, a.id), isNull(t.annotators.usedAt))),
    );
  }

  const mine = (await db.select().from(t.annotations)) as AnnotationRecord[];
  const byId = new Map(mine.map((n) => [n.id, n]));
  const byMatch = new Map(mine.map((n) => [matchOf(n), n]));
  const added: AnnotationRecord[] = [];
  for (const n of site.annotations) {
    const l = byId.get(n.id);
    if (!l) {
      if (byMatch.has(matchOf(n))) throw refuse(`annotation ${n.id} is a match shown here under another id`);
      added.push(n);
    } else if (matchOf(l) !== matchOf(n)) throw refuse(`annotation ${n.id} is another match here`);
    else if (n.choice !== null && l.choice === null) {
      out.answers++;
      queries.push(
        db
          .update(t.annotations)
          .set({ choice: n.choice, reason: n.reason, answeredAt: n.answeredAt })
          .where(and(eq(t.annotations.id, n.id), isNull(t.annotations.choice))),
      );
    } else if (n.choice !== null && answerOf(l) !== answerOf(n))
      throw refuse(`annotation ${n.id} is answered otherwise here`);
  }
  out.annotations = added.length;
  for (const rows of chunk(added, o.maxParams)) queries.push(db.insert(t.annotations).values(rows));

  const lines = new Map<number, SiteVote>();
  for (const ls of slices(
    site.votes.map((v) => v.line),
    o.maxParams - 1,
  ))
    for (const v of await db
      .select()
      .from(t.votes)
      .where(and(eq(t.votes.source, ANNOTATE_SOURCE), inArray(t.votes.line, ls))))
      lines.set(v.line, v);
  const votes = [];
  for (const v of site.votes) {
    const l = lines.get(v.line);
    if (l && voteOf(l) !== voteOf(v)) throw refuse(`vote ${v.line} is another vote here`);
    if (!l) votes.push({ ...v, judge: ANNOTATORS, source: ANNOTATE_SOURCE });
  }
  out.votes = votes.length;
  // (one vote per annotator and match: a vote this database has under another line counts once)
  for (const rows of chunk(votes, o.maxParams))
    queries.push(db.insert(t.votes).values(rows).onConflictDoNothing());
  if (queries.length) await o.atomic(queries);
  return out;
}
