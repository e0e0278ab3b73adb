// The Store contract, imports: a bundle is written all or nothing, and re-importing upserts.
import { beforeEach, describe, expect, it } from 'vitest';
import type { ImportBundle, Store } from '../../../src/storage/store.ts';
import {
  ANSWERS,
  makeGame,
  PROMPTS,
  QUESTIONS,
  REFERENCES,
  snapshot,
  vote,
  withoutLine,
} from './fixtures.ts';

export function describeImport(current: () => Store): void {
  describe('import', () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it('starts empty', async () => {
      expect(await snapshot(store)).toEqual({
        questions: [],
        answers: [],
        models: [],
        references: [],
        prompts: [],
        games: [],
        votes: [],
        judges: [],
        runs: [],
      });
      expect(await store.games.existingIds([])).toEqual(new Set());
      expect(await store.games.existingIds(['nope'])).toEqual(new Set());
    });

    it('importBundle round-trips every kind of record and counts them', async () => {
      const games = [
        makeGame(),
        makeGame({
          order: 'BA',
          verdict: 'model_1',
          reply: '[[B]]',
          cost: 0.0123,
          verdictProbs: { A: 0.1, B: 0.8, C: 0.1 },
          entropy: 0.92,
        }),
      ];
      const single = makeGame({
        promptName: 'single-v1',
        match: { questionId: 111, category: 'math', turn: 2, model1: 'alpha' },
        verdict: '7.5',
        reply: 'Rating: [[7.5]]',
        runId: null,
        tokensIn: null,
        tokensOut: null,
        latencyMs: null,
      });
      const votes = [
        vote(2),
        vote(3, { judge: 'gpt-4', voter: 'gpt4_pair', winner: 'inconsistent', turn: 2 }),
        vote(4, { winner: 'tie', model1: 'beta', model2: 'alpha' }),
      ];
      const counts = await store.importBundle({
        questions: { source: 'question.jsonl', items: QUESTIONS },
        references: REFERENCES,
        answers: [
          { source: 'alpha.jsonl', items: ANSWERS.filter((a) => a.model === 'alpha') },
          { source: 'beta.jsonl', items: ANSWERS.filter((a) => a.model === 'beta') },
        ],
        prompts: PROMPTS,
        games: [...games, single],
        votes: [{ source: 'votes.csv', items: votes }],
      });
      expect(counts).toEqual({ questions: 3, references: 1, answers: 3, prompts: 2, games: 3, votes: 3 });
      expect(await store.catalog.questions()).toEqual(QUESTIONS); // ordered by id
      expect(await store.catalog.references()).toEqual(REFERENCES);
      expect(await store.catalog.answers()).toEqual(ANSWERS); // ordered by model, question
      expect(await store.catalog.answers(['beta'])).toEqual(ANSWERS.filter((a) => a.model === 'beta'));
      expect(await store.catalog.models()).toEqual(['alpha', 'beta']);
      expect(await store.catalog.prompts()).toEqual(PROMPTS); // ordered by name
      expect(await store.games.list()).toEqual([...games, single]); // ordered by createdAt
      expect(await store.votes.list()).toEqual(votes.map(withoutLine)); // in file order
      expect(await store.votes.list('gpt-4')).toEqual([withoutLine(votes[1]!)]);
    });

    it('re-importing upserts questions, answers, references and prompts, and never rewrites a stored game', async () => {
      const g = makeGame();
      await store.importBundle({
        questions: { source: 'q1.jsonl', items: QUESTIONS },
        references: REFERENCES,
        answers: [{ source: 'a.jsonl', items: ANSWERS }],
        prompts: PROMPTS,
        games: [g],
      });
      const q81 = { id: 81, category: 'roleplay', turns: ['changed'] };
      const a = { model: 'alpha', questionId: 81, turns: ['new 1', 'new 2'], answerId: 'ans-9' };
      const ref = { source: 'gpt-4', questionId: 111, turns: ['new ref', 'new ref 2'] };
      const p = { ...PROMPTS[0]!, systemPrompt: 'Judge, v3.', description: 'changed' };
      const counts = await store.importBundle({
        questions: { source: 'q2.jsonl', items: [q81] },
        references: [ref],
        answers: [{ source: 'a2.jsonl', items: [a] }],
        prompts: [p],
        games: [{ ...g, reply: 'rewritten', verdict: 'model_1' }],
      });
      expect(counts.questions).toBe(1);
      expect(await store.catalog.questions()).toEqual([q81, QUESTIONS[1], QUESTIONS[2]]);
      expect(await store.catalog.references()).toEqual([ref]);
      expect(await store.catalog.answers()).toEqual([a, ANSWERS[1], ANSWERS[2]]);
      expect(await store.catalog.prompts()).toEqual([p, PROMPTS[1]]);
      expect(await store.games.list()).toEqual([g]);
    });

    it('votes are replaced per source file, and only that source', async () => {
      await store.importBundle({
        votes: [
          { source: 'a.csv', items: [vote(2), vote(3), vote(4)] },
          { source: 'b.csv', items: [vote(2, { voter: 'expert_b' })] },
        ],
      });
      await store.importBundle({ votes: [{ source: 'a.csv', items: [vote(2, { winner: 'model_2' })] }] });
      expect(await store.votes.list()).toEqual([
        withoutLine(vote(2, { voter: 'expert_b' })),
        withoutLine(vote(2, { winner: 'model_2' })),
      ]);
      await store.importBundle({ votes: [{ source: 'b.csv', items: [] }] });
      expect(await store.votes.list()).toEqual([withoutLine(vote(2, { winner: 'model_2' }))]);
    });

    it('a bundle that fails midway (NOT NULL violation in its last chunk) leaves nothing behind', async () => {
      await store.importBundle({
        questions: { source: 'q.jsonl', items: QUESTIONS },
        answers: [{ source: 'a.jsonl', items: ANSWERS }],
        votes: [{ source: 'v.csv', items: [vote(2), vote(3)] }],
      });
      const before = await snapshot(store);
      // many rows, so every adapter splits them into several statements; the bad vote is the very last row
      const games = Array.from({ length: 1300 }, (_, k) =>
        makeGame({
          match: { questionId: 81, category: 'writing', turn: 1 + (k % 2), model1: 'alpha', model2: 'beta' },
        }),
      );
      const votes = Array.from({ length: 3400 }, (_, k) => vote(k + 2));
      votes.push({ ...vote(9999), model1: null as unknown as string });
      const bad: ImportBundle = {
        questions: {
          source: 'q2.jsonl',
          items: [
            { ...QUESTIONS[0]!, category: 'changed' },
            { id: 300, category: 'new', turns: ['x'] },
          ],
        },
        answers: [{ source: 'g.jsonl', items: [{ model: 'gamma', questionId: 81, turns: ['g1', 'g2'] }] }],
        prompts: PROMPTS,
        games,
        votes: [{ source: 'v.csv', items: votes }],
      };
      await expect(store.importBundle(bad)).rejects.toThrow();
      expect(await snapshot(store)).toEqual(before);
      expect(await store.games.existingIds([games[0]!.id, games[1299]!.id])).toEqual(new Set());
    });

    it('imports thousands of games in one bundle (statements stay under the parameter limit)', async () => {
      const games = Array.from({ length: 2600 }, () => makeGame());
      expect((await store.importBundle({ games })).games).toBe(2600);
      expect((await store.games.list()).length).toBe(2600);
    });
  });
}
