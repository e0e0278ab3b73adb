// `arena refresh` records: the site shows the newest one's status.
import { desc, eq, sql } from 'drizzle-orm';
import * as t from '../../../db/schema.ts';
import type { RefreshRecord, RefreshStatus, RefreshStore } from '../store.ts';
import { sqlFields, type AnyDb } from './shared.ts';

/** The games played by a refresh's runs (each run's config names the refresh that started it). */
const GAMES_SQL = `games g WHERE g.run_id IN (SELECT r.id FROM runs r WHERE json_extract(r.config, '$.refresh') = refreshes.id)`;
/** Only a running refresh's (the others' are read from their row): each is a scan of every run's games. */
const runningOnly = (select: string): string => `CASE WHEN refreshes.status = 'running' THEN (${select}) END`;
/** A refresh's played games, tokens and cost as its stored games say, as SQL over `refreshes`. */
const LEDGER_FROM_GAMES = sqlFields({
  played: runningOnly(`SELECT count(*) FROM ${GAMES_SQL}`),
  tokensIn: runningOnly(`SELECT coalesce(sum(g.tokens_in), 0) FROM ${GAMES_SQL}`),
  tokensOut: runningOnly(`SELECT coalesce(sum(g.tokens_out), 0) FROM ${GAMES_SQL}`),
  cost: runningOnly(`SELECT coalesce(sum(g.cost), 0) FROM ${GAMES_SQL}`),
});

/** A refreshes row as stored (every column), and its ledger as its stored games say. */
type RefreshRow = { refresh: typeof t.refreshes.$inferSelect } & Record<
  keyof typeof LEDGER_FROM_GAMES,
  number
>;

/** A refresh record from its row: a running refresh's ledger is what its stored games say. */
const refreshRecord = ({
  refresh: { heartbeatAt, ...r },
  played,
  tokensIn,
  tokensOut,
  cost,
}: RefreshRow): RefreshRecord => ({
  ...r,
  status: r.status as RefreshStatus,
  ...(r.status === 'running' ? { cost, summary: { ...r.summary, played, tokensIn, tokensOut } } : {}),
  ...(heartbeatAt !== null ? { heartbeatAt } : {}),
});

export class DrizzleRefreshes implements RefreshStore {
  constructor(private readonly db: AnyDb) {}

  async save(r: RefreshRecord): Promise<void> {
    const row = { ...r, heartbeatAt: r.heartbeatAt ?? null };
    await this.db.insert(t.refreshes).values(row).onConflictDoUpdate({ target: t.refreshes.id, set: row });
  }

  async beat(id: string, at: number): Promise<void> {
    await this.db
      .update(t.refreshes)
      .set({ heartbeatAt: at })
      .where(sql`${t.refreshes.id} = ${id} AND ${t.refreshes.status} = 'running'`);
  }

  async list(limit = 50): Promise<RefreshRecord[]> {
    const rows = await this.db
      .select({ refresh: t.refreshes, ...LEDGER_FROM_GAMES })
      .from(t.refreshes)
      .orderBy(desc(t.refreshes.startedAt))
      .limit(limit);
    return rows.map(refreshRecord);
  }

  async markInterrupted(): Promise<number> {
    const { played, tokensIn, tokensOut, cost } = LEDGER_FROM_GAMES;
    const marked = await this.db
      .update(t.refreshes)
      // its ledger as its stored games say: a killed refresh's record still holds what it wrote at its start
      .set({
        status: 'interrupted',
        heartbeatAt: null,
        cost,
        summary: sql`json_set(refreshes.summary, '$.played', ${played}, '$.tokensIn', ${tokensIn}, '$.tokensOut', ${tokensOut})`,
      })
      .where(eq(t.refreshes.status, 'running'))
      .returning({ id: t.refreshes.id });
    return marked.length;
  }
}
