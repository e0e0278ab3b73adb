// OpenAI Batch API jobs: the batch id is stored so that a restarted refresh resumes polling.
import { and, asc, eq } from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import type { BatchRecord, BatchStore } from '../store.ts';
import type { AnyDb } from './shared.ts';

export class DrizzleBatches implements BatchStore {
  constructor(private readonly db: AnyDb) {}

  async save(b: BatchRecord): Promise<void> {
    await this.db.insert(t.batches).values(b).onConflictDoUpdate({ target: t.batches.id, set: b });
  }

  async list(f: { judge?: string; status?: string } = {}): Promise<BatchRecord[]> {
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

  async update(id: string, patch: Partial<BatchRecord>): Promise<void> {
    if (!Object.keys(patch).length) return;
    await this.db.update(t.batches).set(patch).where(eq(t.batches.id, id));
  }

  async delete(id: string): Promise<void> {
    await this.db.delete(t.batches).where(eq(t.batches.id, id));
  }
}
