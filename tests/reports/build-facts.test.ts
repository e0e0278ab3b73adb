// A report build reads each filter's game facts once (readOnce, src/reports/read-once.ts), without their text
// (games.facts) where it can.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReports } from '../../src/reports/site/build.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import type { GameFilter } from '../../src/storage/store.ts';
import { playOwn, tmpDir } from '../support/cli.ts';

describe('a report build lists each filter of games once', () => {
  const db = join(tmpDir('arena-build-listing-'), 'a.db');
  let store: SqliteStore;
  /** the filters games.list was asked for on the database itself, in order */
  let asked: string[];
  /** and those games.facts was asked for */
  let factsAsked: string[];
  beforeAll(async () => {
    await playOwn(db, 'mock/longer', 'arena-sage,arena-echo,arena-swift', ['--turns', '1']);
    await playOwn(db, 'mock/a', 'arena-sage,arena-echo', ['--turns', '1']);
    store = openSqliteStore(db);
    const list = store.games.list.bind(store.games);
    const facts = store.games.facts.bind(store.games);
    asked = [];
    factsAsked = [];
    store.games.list = (f?: GameFilter) => (asked.push(JSON.stringify(f ?? {})), list(f));
    store.games.facts = (f?: GameFilter) => (factsAsked.push(JSON.stringify(f ?? {})), facts(f));
  }, 180_000);
  afterAll(async () => store?.close());

  it("a full build asks the database once per filter, and for no game's text", async () => {
    asked.length = 0;
    factsAsked.length = 0;
    const built = await buildReports(store, { bootstrapRounds: 20 });
    expect(built.computed).toBeGreaterThan(20);
    // no judge here reads a reply again (score schemes, the duel of GPT-4 and the study judge)
    expect(asked).toEqual([]);
    expect(factsAsked.length).toBeGreaterThan(3);
    expect(
      factsAsked.filter((k, i) => factsAsked.indexOf(k) !== i),
      factsAsked.join('\n'),
    ).toEqual([]);
  });
});
