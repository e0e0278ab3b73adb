// `arena refresh` records: the site shows the newest one's status.
import { desc, eq } from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import type { RefreshRecord, RefreshStatus, RefreshStore } from '../store.ts';
import type { AnyDb } from './shared.ts';

export class DrizzleRefreshes implements RefreshStore {
  constructor(private readonly db: AnyDb) {}

  async save(r: RefreshRecord): Promise<void> {
    await this.db.insert(t.refreshes).values(r).onConflictDoUpdate({ target: t.refreshes.id, set: r });
  }

  async list(limit = 50): Promise<RefreshRecord[]> {
    const rows = await this.db.select().from(t.refreshes).orderBy(desc(t.refreshes.startedAt)).limit(limit);
    return rows.map((r) => ({ ...r, status: r.status as RefreshStatus }));
  }

  async markInterrupted(): Promise<number> {
    const marked = await this.db
      .update(t.refreshes)
      .set({ status: 'interrupted' })
      .where(eq(t.refreshes.status, 'running'))
      .returning({ id: t.refreshes.id });
    return marked.length;
  }
}
