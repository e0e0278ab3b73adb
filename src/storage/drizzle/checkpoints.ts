// Checkpoints of fine-tuning runs, keyed by series and name.
import { asc, eq } from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import type { CheckpointRecord, CheckpointStore } from '../store.ts';
import type { AnyDb } from './shared.ts';

export class DrizzleCheckpoints implements CheckpointStore {
  constructor(private readonly db: AnyDb) {}

  async save(c: CheckpointRecord): Promise<void> {
    await this.db
      .insert(t.checkpoints)
      .values(c)
      .onConflictDoUpdate({ target: [t.checkpoints.series, t.checkpoints.name], set: c });
  }

  async list(series?: string): Promise<CheckpointRecord[]> {
    return this.db
      .select()
      .from(t.checkpoints)
      .where(series === undefined ? undefined : eq(t.checkpoints.series, series))
      .orderBy(asc(t.checkpoints.series), asc(t.checkpoints.step), asc(t.checkpoints.name));
  }
}
