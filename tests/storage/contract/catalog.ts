// The Store contract, the catalog: questions, answers, references, prompts and the labelled pair sets.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Question } from '../../../src/core/types.ts';
import type { Store } from '../../../src/storage/store.ts';
import { ANSWERS, makeGame, QUESTIONS, vote } from './fixtures.ts';

export function describeCatalog(current: () => Store): void {
  describe('catalog', () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it('labelled pair sets: their items, answers, games and votes stay out of tournament reads; set filters read them', async () => {
      const item: Question = {
        id: 1e15 + 42,
        category: 'Natural',
        turns: ['Write a haiku.'],
        set: 'Natural',
      };
      const sGames = [
        makeGame({
          judge: 'GPT-4/Vanilla',
          match: {
            questionId: item.id,
            category: 'Natural',
            turn: 1,
            model1: 'output_1',
            model2: 'output_2',
          },
        }),
        makeGame({
          judge: 'judge-x',
          order: 'BA',
          match: {
            questionId: item.id,
            category: 'Natural',
            turn: 1,
            model1: 'output_1',
            model2: 'output_2',
          },
        }),
      ];
      const tGame = makeGame();
      await store.importBundle({
        questions: { source: 'q.jsonl', items: [...QUESTIONS, item] },
        answers: [
          { source: 'a.jsonl', items: ANSWERS },
          {
            source: 'pairs',
            items: [
              { model: 'output_1', questionId: item.id, turns: ['x'] },
              { model: 'output_2', questionId: item.id, turns: ['y'] },
            ],
          },
        ],
        games: [...sGames, tGame],
        votes: [
          { source: 'v.csv', items: [vote(1)] },
          {
            source: 'pairs:Natural',
            items: [
              vote(1, {
                judge: 'gold',
                voter: 'llmbar',
                questionId: item.id,
                model1: 'output_1',
                model2: 'output_2',
              }),
            ],
          },
        ],
      });
      expect(await store.catalog.questions()).toEqual(QUESTIONS);
      expect(await store.catalog.questions({ set: 'Natural' })).toEqual([item]);
      expect(await store.catalog.models()).toEqual(['alpha', 'beta']);
      expect(await store.catalog.answers()).toEqual(ANSWERS);
      expect(
        (await store.catalog.answers(['output_1', 'output_2'], { set: 'Natural' })).map((a) => a.model),
      ).toEqual(['output_1', 'output_2']);
      expect(await store.games.list()).toEqual([tGame]);
      expect((await store.games.list({ set: 'Natural' })).map((g) => g.id).sort()).toEqual(
        sGames.map((g) => g.id).sort(),
      );
      expect((await store.games.list({ set: 'Natural', judge: 'judge-x' })).map((g) => g.id)).toEqual([
        sGames[1]!.id,
      ]);
      expect(await store.games.list({ set: 'Other' })).toEqual([]);
      expect((await store.games.list({ withSets: true })).length).toBe(3);
      expect((await store.votes.list()).map((v) => v.judge)).toEqual(['human']);
      expect((await store.votes.list('gold', { set: 'Natural' })).map((v) => v.questionId)).toEqual([
        item.id,
      ]);
      expect(await store.games.judges()).toEqual([
        { judge: 'human', games: 0, votes: 1 },
        { judge: 'judge-x', games: 1, votes: 0 },
      ]);
      expect(await store.catalog.pairSets()).toEqual([
        {
          set: 'Natural',
          items: 1,
          judges: [
            { judge: 'GPT-4/Vanilla', games: 1 },
            { judge: 'judge-x', games: 1 },
          ],
        },
      ]);
    });
  });
}
