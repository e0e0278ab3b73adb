// The Store contract, the cost ledger.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Game } from '../../../src/core/types.ts';
import type { Store } from '../../../src/storage/store.ts';
import { makeGame, run } from './fixtures.ts';

export function describeLedger(current: () => Store): void {
  describe('ledger', () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it('per judge (all games or some runs), per run newest first, per game newest first', async () => {
      const g = (judge: string, runId: string | null, createdAt: number, over: Partial<Game> = {}) =>
        makeGame({ judge, runId, createdAt, ...over });
      const games = [
        g('j1', 'run-a', 10, { tokensIn: 100, tokensOut: 10, cost: 0.5 }),
        g('j1', 'run-a', 11, {
          tokensIn: 200,
          tokensOut: 20,
          tokensCached: 64,
          tokensReasoning: 12,
          cost: 0.25,
        }),
        g('j1', 'run-b', 12, { tokensIn: null, tokensOut: null }),
        g('j2', 'run-c', 13, { tokensIn: 7, tokensOut: 3 }),
        g('j2', null, 14, { tokensIn: 1, tokensOut: 1, source: 'fastchat:gpt-4_pair.jsonl' }),
      ];
      await store.importBundle({ games });
      expect(await store.ledger.byJudge()).toEqual([
        {
          judge: 'j1',
          games: 3,
          tokensIn: 300,
          tokensOut: 30,
          tokensCached: 64,
          tokensReasoning: 12,
          cost: 0.75,
        },
        { judge: 'j2', games: 2, tokensIn: 8, tokensOut: 4, tokensCached: 0, tokensReasoning: 0, cost: null },
      ]);
      expect(await store.ledger.byJudge(['run-b', 'run-c', 'no-such-run'])).toEqual([
        { judge: 'j1', games: 1, tokensIn: 0, tokensOut: 0, tokensCached: 0, tokensReasoning: 0, cost: null },
        { judge: 'j2', games: 1, tokensIn: 7, tokensOut: 3, tokensCached: 0, tokensReasoning: 0, cost: null },
      ]);
      expect(await store.ledger.byJudge([])).toEqual([]);
      // some games by id (a batch's), those stored; more ids than D1 binds in one statement
      const ids = (k: number[]) => k.map((i) => games[i]!.id);
      expect(await store.ledger.ofGames(ids([0, 1, 2]))).toEqual({ games: 3, cost: 0.75 });
      expect(
        await store.ledger.ofGames([...ids([1]), ...Array.from({ length: 300 }, (_, i) => `gone-${i}`)]),
      ).toEqual({ games: 1, cost: 0.25 });
      expect(await store.ledger.ofGames(ids([3, 4]))).toEqual({ games: 2, cost: null });
      expect(await store.ledger.ofGames([])).toEqual({ games: 0, cost: null });
      // more run ids than D1 binds in one statement
      expect(
        await store.ledger.byJudge([...Array.from({ length: 300 }, (_, i) => `other-${i}`), 'run-a']),
      ).toEqual([
        {
          judge: 'j1',
          games: 2,
          tokensIn: 300,
          tokensOut: 30,
          tokensCached: 64,
          tokensReasoning: 12,
          cost: 0.75,
        },
      ]);
      await store.runs.save(
        run({
          id: 'run-a',
          startedAt: 1_000,
          status: 'done',
          played: 2,
          tokensIn: 300,
          tokensOut: 30,
          cost: 0.75,
        }),
      );
      await store.runs.save(run({ id: 'run-b', startedAt: 2_000, judge: 'j2' }));
      expect(await store.ledger.byRun()).toEqual([
        {
          id: 'run-b',
          startedAt: 2_000,
          judge: 'j2',
          mode: 'pairwise-all',
          played: 0,
          failed: 0,
          tokensIn: 0,
          tokensOut: 0,
          cost: null,
          status: 'running',
        },
        {
          id: 'run-a',
          startedAt: 1_000,
          judge: 'judge-x',
          mode: 'pairwise-all',
          played: 2,
          failed: 0,
          tokensIn: 300,
          tokensOut: 30,
          cost: 0.75,
          status: 'done',
        },
      ]);
      expect((await store.ledger.byRun(1)).map((r) => r.id)).toEqual(['run-b']);
      const byGame = await store.ledger.byGame(2);
      expect(byGame).toEqual(
        [games[4], games[3]].map((x) => ({
          id: x!.id,
          runId: x!.runId,
          judge: x!.judge,
          questionId: 81,
          turn: 1,
          model1: 'alpha',
          model2: 'beta',
          order: 'AB',
          tokensIn: x!.tokensIn,
          tokensOut: x!.tokensOut,
          tokensCached: null,
          tokensReasoning: null,
          cost: null,
          source: x!.source,
        })),
      );
      expect((await store.ledger.byGame()).map((r) => r.id)).toEqual([...games].reverse().map((x) => x.id));
    });

    it("tokenTotals sums prompt characters and tokens of a judge's games that have both token counts", async () => {
      expect(await store.ledger.tokenTotals('j1')).toEqual({ games: 0, chars: 0, tokensIn: 0, tokensOut: 0 });
      await store.importBundle({
        games: [
          makeGame({ judge: 'j1', systemPrompt: 'abc', userPrompt: 'ü🎉', tokensIn: 10, tokensOut: 2 }),
          makeGame({ judge: 'j1', systemPrompt: 'de', userPrompt: 'f', tokensIn: 5, tokensOut: 1 }),
          makeGame({
            judge: 'j1',
            systemPrompt: 'no tokens',
            userPrompt: 'x',
            tokensIn: null,
            tokensOut: null,
          }),
          makeGame({ judge: 'j1', systemPrompt: 'half', userPrompt: 'x', tokensIn: 9, tokensOut: null }),
          makeGame({
            judge: 'j2',
            systemPrompt: 'other',
            userPrompt: 'judge',
            tokensIn: 100,
            tokensOut: 100,
          }),
        ],
      });
      // characters as SQLite counts them (code points: 'ü🎉' is 2)
      expect(await store.ledger.tokenTotals('j1')).toEqual({
        games: 2,
        chars: 3 + 2 + 2 + 1,
        tokensIn: 15,
        tokensOut: 3,
      });
    });
  });
}
