// A stored game with ledger fields (game i costs 0.001 × (i + 1), 100 + i tokens in, 10 + i out), and read-only
// queries of a database file, for tests that check what was stored.
import Database from 'better-sqlite3';
import type { Game } from '../../src/core/types.ts';

/** The rows `sql` reads from the SQLite file `db` (opened read-only, closed again). */
export function sqlRows<T = Record<string, unknown>>(db: string, sql: string, ...params: unknown[]): T[] {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).all(...params) as T[];
  } finally {
    d.close();
  }
}
/** `n` of the first row of `sql` (a `count(*) AS n` query). */
export const sqlCount = (db: string, sql: string): number => sqlRows<{ n: number }>(db, sql)[0]!.n;

export function ledgerGame(i: number, runId: string): Game {
  return {
    match: { questionId: i + 1, category: 'writing', turn: 1, model1: 'm1', model2: 'm2' },
    order: 'AB',
    promptName: 'pair-v2',
    systemPrompt: 'judge',
    userPrompt: `q${i}`,
    id: `game-${i}`,
    judge: 'openai/judge',
    judgeSettings: { temperature: 0, maxTokens: 64 },
    reply: '[[A]]',
    verdict: 'model_1',
    parser: 'last@1',
    tokensIn: 100 + i,
    tokensOut: 10 + i,
    cost: 0.001 * (i + 1),
    createdAt: Date.now(),
    runId,
    source: 'run',
  };
}
