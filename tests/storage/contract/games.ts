// The Store contract, games: inserts (one, many), listings and their filters, verdict updates, the games of runs.
import { CANARY_SOURCE } from '../../../src/core/constants.ts';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Game } from '../../../src/core/types.ts';
import type { Store } from '../../../src/storage/store.ts';
import { ANSWERS, makeGame, QUESTIONS, run, vote } from './fixtures.ts';

export function describeGames(current: () => Store): void {
  describe('games', () => {
    let store: Store;
    beforeEach(() => {
      store = current();
    });

    it('existingIds answers for more than 1000 ids at once', async () => {
      const games = Array.from({ length: 1200 }, () => makeGame());
      await store.importBundle({ games });
      const asked = [...games.map((g) => g.id), ...Array.from({ length: 1300 }, (_, k) => `absent-${k}`)];
      const found = await store.games.existingIds(asked);
      expect(found.size).toBe(1200);
      expect(found).toEqual(new Set(games.map((g) => g.id)));
    });

    it('insert is idempotent: the first stored version stays', async () => {
      const g = makeGame();
      await store.games.insert(g);
      await store.games.insert(g);
      await store.games.insert({ ...g, reply: 'other', verdict: 'model_2' });
      expect(await store.games.list()).toEqual([g]);
      expect(await store.games.existingIds([g.id])).toEqual(new Set([g.id]));
    });

    it('insert says whether it stored the game (false when one with its id is stored)', async () => {
      const g = makeGame();
      expect(await store.games.insert(g)).toBe(true);
      expect(await store.games.insert({ ...g, reply: 'again [[A]]' })).toBe(false);
      expect((await store.games.list()).map((x) => x.reply)).toEqual([g.reply]);
    });

    it('insertMany stores a group in one statement and says which games were new (the play loop group commit)', async () => {
      const old = makeGame();
      await store.games.insert(old);
      const fresh = [makeGame(), makeGame({ verdictProbs: { A: 0.5, B: 0.25, C: 0.25 } })];
      expect(await store.games.insertMany([fresh[0]!, { ...old, reply: 'again [[A]]' }, fresh[1]!])).toEqual([
        true,
        false,
        true,
      ]);
      expect(await store.games.insertMany(fresh)).toEqual([false, false]);
      expect(await store.games.insertMany([])).toEqual([]);
      const stored = await store.games.list();
      expect(stored.map((g) => g.id).sort()).toEqual([old.id, ...fresh.map((g) => g.id)].sort());
      expect(stored.find((g) => g.id === old.id)!.reply).toBe(old.reply);
      expect(stored.find((g) => g.id === fresh[1]!.id)!.verdictProbs).toEqual({ A: 0.5, B: 0.25, C: 0.25 });
      expect(stored.find((g) => g.id === fresh[0]!.id)!.verdictProbs ?? null).toBeNull();
      // an id twice in one group is new once, at its first place; the first one's content is what stays
      const twice = makeGame();
      expect(await store.games.insertMany([twice, { ...twice, reply: 'second [[B]]' }])).toEqual([
        true,
        false,
      ]);
      expect((await store.games.list()).find((g) => g.id === twice.id)!.reply).toBe(twice.reply);
    });

    it('list filters by judge, kind, question and model pair (either orientation)', async () => {
      const ab = makeGame({ judge: 'j1' });
      const ba = makeGame({ judge: 'j1', order: 'BA' });
      const reversed = makeGame({
        judge: 'j1',
        match: { questionId: 111, category: 'math', turn: 1, model1: 'beta', model2: 'alpha' },
      });
      const other = makeGame({
        judge: 'j1',
        match: { questionId: 81, category: 'writing', turn: 2, model1: 'alpha', model2: 'gamma' },
      });
      const single = makeGame({
        judge: 'j1',
        promptName: 'single-v1',
        match: { questionId: 81, category: 'writing', turn: 1, model1: 'alpha' },
        verdict: '8',
      });
      const j2 = makeGame({ judge: 'j2' });
      for (const g of [j2, single, other, reversed, ba, ab]) await store.games.insert(g); // inserted out of order
      expect(await store.games.list()).toEqual([ab, ba, reversed, other, single, j2]);
      expect(await store.games.list({ judge: 'j1' })).toEqual([ab, ba, reversed, other, single]);
      expect(await store.games.list({ judge: 'j1', kind: 'pairwise' })).toEqual([ab, ba, reversed, other]);
      expect(await store.games.list({ kind: 'single' })).toEqual([single]);
      expect(await store.games.list({ questionId: 111 })).toEqual([reversed]);
      expect(await store.games.list({ models: ['beta', 'alpha'] })).toEqual([ab, ba, reversed, j2]);
      expect(await store.games.list({ judge: 'j1', questionId: 81, models: ['alpha', 'beta'] })).toEqual([
        ab,
        ba,
      ]);
      expect(await store.games.list({ judge: 'nobody' })).toEqual([]);
    });

    it("facts reads list's games without their text, in list's order, through the same filters (pages included)", async () => {
      // more games than one page of D1's read, many with the same createdAt (a page may end inside a tie)
      const many = Array.from({ length: 1100 }, (_, k) =>
        makeGame({
          judge: 'j1',
          createdAt: 1_800_000_000_000 + Math.floor(k / 7),
          order: k % 2 ? 'BA' : 'AB',
        }),
      );
      const rich = makeGame({
        judge: 'j1',
        judgeSettings: { temperature: null, maxTokens: 512, sample: 2 },
        verdictProbs: { A: 0.5, B: 0.25, C: 0.25 },
        entropy: 1.5,
        reliability: 0.25,
        tokensCached: 3,
        tokensReasoning: 4,
        cost: 0.001,
        recordedVerdict: 'model_2',
      });
      const single = makeGame({
        judge: 'j1',
        promptName: 'single-v1',
        match: { questionId: 81, category: 'writing', turn: 1, model1: 'alpha' },
        verdict: '8',
      });
      const canary = makeGame({ judge: 'j1', source: CANARY_SOURCE });
      await store.importBundle({
        games: [...many.reverse(), rich, single, canary, makeGame({ judge: 'j2' })],
      });
      const bare = ({ systemPrompt: _s, userPrompt: _u, reply: _r, ...facts }: Game) => facts;
      for (const f of [
        undefined,
        { judge: 'j1', kind: 'pairwise' as const },
        { kind: 'single' as const },
        { source: CANARY_SOURCE },
        { judge: 'nobody' },
      ]) {
        const listed = await store.games.list(f);
        expect(await store.games.facts(f)).toEqual(listed.map(bare));
      }
      expect((await store.games.facts({ judge: 'j1', kind: 'pairwise' })).length).toBe(1101);
      expect((await store.games.facts()).find((g) => g.id === rich.id)).toEqual(bare(rich));
    });

    it('judges merges game and vote counts per judge', async () => {
      await store.importBundle({
        games: [makeGame({ judge: 'gpt-4' }), makeGame({ judge: 'gpt-4' }), makeGame({ judge: 'local' })],
        votes: [
          { source: 'v.csv', items: [vote(2), vote(3), vote(4, { judge: 'gpt-4', voter: 'gpt4_pair' })] },
        ],
      });
      expect(await store.games.judges()).toEqual([
        { judge: 'gpt-4', games: 2, votes: 1 },
        { judge: 'human', games: 0, votes: 2 },
        { judge: 'local', games: 1, votes: 0 },
      ]);
    });

    it('updateVerdicts changes verdict and parser of the named games only', async () => {
      const [a, b, c] = [makeGame(), makeGame(), makeGame()];
      await store.importBundle({ games: [a!, b!, c!] });
      await store.games.updateVerdicts([]);
      await store.games.updateVerdicts([
        { id: a!.id, verdict: 'model_2', parser: 'fastchat@1' },
        { id: c!.id, verdict: 'error', parser: 'fastchat@1' },
        { id: 'no-such-game', verdict: 'tie', parser: 'fastchat@1' },
      ]);
      expect(await store.games.list()).toEqual([
        { ...a, verdict: 'model_2', parser: 'fastchat@1' },
        b,
        { ...c, verdict: 'error', parser: 'fastchat@1' },
      ]);
    });

    it("ofRuns reads the verdict columns of one judge's games of some runs (canary games included)", async () => {
      const a = makeGame({ judge: 'j1', runId: 'run-a', verdict: 'model_1' });
      const single = makeGame({
        judge: 'j1',
        runId: 'run-a',
        promptName: 'single-v1',
        match: { questionId: 111, category: 'math', turn: 2, model1: 'alpha' },
        verdict: '7',
      });
      const canary = makeGame({
        judge: 'j1',
        runId: 'run-k',
        source: CANARY_SOURCE,
        order: 'BA',
        verdict: 'error',
      });
      const otherJudge = makeGame({ judge: 'j2', runId: 'run-a' });
      const otherRun = makeGame({ judge: 'j1', runId: 'run-z' });
      await store.importBundle({ games: [a, single, canary, otherJudge, otherRun] });
      const row = (x: Game) => ({
        id: x.id,
        questionId: x.match.questionId,
        turn: x.match.turn,
        model1: x.match.model1,
        model2: x.match.model2 ?? null,
        order: x.order,
        verdict: x.verdict,
        source: x.source,
      });
      expect(await store.games.ofRuns('j1', ['run-a', 'run-k'])).toEqual([a, single, canary].map(row));
      expect(await store.games.ofRuns('j1', [])).toEqual([]);
      expect(await store.games.ofRuns('nobody', ['run-a'])).toEqual([]);
    });
    it('prune removes one judge, model or run in one write and says what it removed; a dry run changes nothing', async () => {
      const mine = makeGame({ judge: 'mock/longer', runId: 'run-m' });
      const kept = makeGame();
      const gamma = makeGame({
        match: { questionId: 81, category: 'writing', turn: 1, model1: 'gamma', model2: 'alpha' },
      });
      await store.importBundle({
        questions: { source: 'q.jsonl', items: QUESTIONS },
        answers: [
          { source: 'a.jsonl', items: [...ANSWERS, { model: 'gamma', questionId: 81, turns: ['g', 'g'] }] },
        ],
        games: [mine, kept, gamma],
        votes: [
          {
            source: 'v.csv',
            items: [vote(2), vote(3, { judge: 'mock/longer' }), vote(4, { model2: 'gamma' })],
          },
        ],
      });
      await store.runs.save(run({ id: 'run-m', judge: 'mock/longer' }));
      await store.runs.save(run({ id: 'run-1' }));
      await store.runs.recordAttempt({
        runId: 'run-m',
        gameId: 'g',
        judge: 'mock/longer',
        error: 'x',
        at: 1,
      });
      const dry = await store.games.prune({ judge: 'mock/longer' }, { dryRun: true });
      expect(dry).toEqual({ games: 1, votes: 1, answers: 0, runs: 1, attempts: 1 });
      expect((await store.games.list()).length).toBe(3);
      expect(await store.games.prune({ judge: 'mock/longer' })).toEqual(dry);
      expect((await store.games.list()).map((g) => g.id).sort()).toEqual([kept.id, gamma.id].sort());
      expect((await store.votes.list()).map((v) => v.judge)).toEqual(['human', 'human']);
      expect((await store.runs.list()).map((r) => r.id)).toEqual(['run-1']);
      expect(await store.games.prune({ judge: 'mock/longer' })).toEqual({
        games: 0,
        votes: 0,
        answers: 0,
        runs: 0,
        attempts: 0,
      });
      expect(await store.games.prune({ model: 'gamma' })).toEqual({
        games: 1,
        votes: 1,
        answers: 1,
        runs: 0,
        attempts: 0,
      });
      expect(await store.catalog.models()).toEqual(['alpha', 'beta']);
      expect(await store.games.prune({ run: 'run-1' })).toEqual({
        games: 1,
        votes: 0,
        answers: 0,
        runs: 1,
        attempts: 0,
      });
      expect(await store.games.list()).toEqual([]);
      expect((await store.votes.list()).length).toBe(1);
    });
  });
}
