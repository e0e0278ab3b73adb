// The Store contract (tests/storage/contract.ts) over the D1 adapter: a real local D1 (workerd, the engine
// `wrangler dev` runs, through wrangler's own miniflare: tests/web/local-d1.ts), migrated with db/migrations.
import { drizzle } from 'drizzle-orm/d1';
import { migrate } from 'drizzle-orm/d1/migrator';
import type { AnyD1Database } from 'drizzle-orm/d1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openD1Store, D1_MAX_PARAMS } from '../../src/storage/d1.ts';
import { MIGRATIONS_DIR } from '../../src/storage/sqlite.ts';
import { tmpDir } from '../support/cli.ts';
import { describeStoreContract, makeGame, QUESTIONS } from '../storage/contract.ts';
import { openLocalD1 } from './local-d1.ts';

let binding: AnyD1Database;
let dispose: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const d1 = await openLocalD1(tmpDir('arena-d1-'));
  binding = d1.db;
  dispose = d1.dispose;
  await migrate(drizzle(binding), { migrationsFolder: MIGRATIONS_DIR });
}, 120_000);
afterAll(async () => {
  await dispose?.();
});

/** A fresh, empty store: the one local D1 with every data table emptied. */
async function freshD1() {
  const tables = (
    await binding
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT IN ('__drizzle_migrations', 'd1_migrations')",
      )
      .all<{ name: string }>()
  ).results;
  if (tables.length)
    await binding.batch(tables.map((t: { name: string }) => binding.prepare(`DELETE FROM "${t.name}"`)));
  return openD1Store(binding);
}

describeStoreContract('d1 (local, workerd)', freshD1);

describe('d1 specifics', () => {
  it('an import larger than one statement can bind is split into statements of at most 100 parameters and applied atomically', async () => {
    const store = await freshD1();
    const games = Array.from({ length: 40 }, () => makeGame());
    await store.importBundle({ questions: { source: 'q.jsonl', items: QUESTIONS }, games });
    expect((await store.games.list()).map((g) => g.id).sort()).toEqual(games.map((g) => g.id).sort());
    expect(D1_MAX_PARAMS).toBe(100);
    // a bundle whose last statement fails leaves nothing behind (D1 batch = one transaction)
    const before = await store.catalog.questions();
    const bad = { ...makeGame(), id: null as unknown as string };
    await expect(
      store.importBundle({
        questions: { source: 'q2.jsonl', items: [{ id: 999, category: 'x', turns: ['t'] }] },
        games: [bad],
      }),
    ).rejects.toThrow(/\[storage:d1\]/);
    expect(await store.catalog.questions()).toEqual(before);
  });
});
