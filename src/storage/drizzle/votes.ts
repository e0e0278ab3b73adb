// Recorded votes; the votes table keeps FastChat's spelling of the winner.
import { and, asc, eq } from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import { WINNER_FROM_FILE } from '../../core/sides.ts';
import type { Vote } from '../../core/types.ts';
import type { VoteStore } from '../store.ts';
import { inSet, type AnyDb } from './shared.ts';

export class DrizzleVotes implements VoteStore {
  constructor(private readonly db: AnyDb) {}

  async list(judge?: string, f: { set?: string } = {}): Promise<Vote[]> {
    const rows = await this.db
      .select()
      .from(t.votes)
      .where(
        and(
          judge !== undefined ? eq(t.votes.judge, judge) : undefined,
          inSet(this.db, t.votes.questionId, f.set),
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
}
