// The pages rendered on the write path, each served while the reports' `_state` row is the one it was rendered from.
import { asc, sql } from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import type { PageStore, StoredPage } from '../page-store.ts';
import { noTable } from './reports.ts';
import { chunk, type DrizzleStoreOptions } from './shared.ts';

export class DrizzlePages implements PageStore {
  constructor(private readonly o: DrizzleStoreOptions) {}

  async current(key: string): Promise<string | undefined> {
    try {
      const rows = await this.o.db.all<{ body: string }>(
        sql`SELECT p.body AS body FROM pages p JOIN reports s ON s.view = '_state' AND s.params = '' AND p.state = s.body WHERE p.key = ${key}`,
      );
      return rows[0]?.body;
    } catch (e) {
      if (noTable(e)) return undefined;
      throw e;
    }
  }

  async list(): Promise<StoredPage[]> {
    try {
      return await this.o.db.select().from(t.pages).orderBy(asc(t.pages.key));
    } catch (e) {
      if (noTable(e)) return [];
      throw e;
    }
  }

  async replace(rows: StoredPage[]): Promise<void> {
    const { db } = this.o;
    await this.o.atomic([
      db.delete(t.pages),
      ...chunk(rows, this.o.maxParams).map((part) => db.insert(t.pages).values(part)),
    ]);
  }
}
