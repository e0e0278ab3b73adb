// The one Store contract: every adapter (SQLite file, SQLite memory, D1) must pass the same suite.
// Usage: describeStoreContract('sqlite file', async () => openSqliteStore(path));
import { CANARY_SOURCE } from '../src/core/constants.ts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Answer, Game, PromptScheme, Question, ReferenceAnswer, Vote } from '../src/core/types.ts';
import {
  type BatchRecord,
  type CheckpointRecord,
  type ImportBundle,
  type RefreshRecord,
  type RunRecord,
  type Store,
} from '../src/storage/store.ts';

/** A fresh, empty store per test. */
export type MakeStore = () => Store | Promise<Store>;

// ---------------------------------------------------------------- fixtures

export const QUESTIONS: Question[] = [
  {
    id: 81,
    category: 'writing',
    turns: ['Compose a blog post about Hawaii.', 'Rewrite it: every sentence starts with A.'],
  },
  {
    id: 111,
    category: 'math',
    turns: [
      'The vertices of a triangle are (0, 0), (-1, 1), (3, 3). Area?',
      'Area of the circumscribing circle?',
    ],
    reference: ['3', '5π'],
  },
  { id: 200, category: 'ünïcode — 日本語', turns: ['Emoji 🎉 and "quotes" and \\ backslash\nnewline'] },
];
export const REFERENCES: ReferenceAnswer[] = [
  { source: 'gpt-4', questionId: 111, turns: ['Area is 3.', 'Area is 5π.'] },
];
export const ANSWERS: Answer[] = [
  { model: 'alpha', questionId: 81, turns: ['Aloha!', 'A blog.'], answerId: 'ans-1' },
  { model: 'alpha', questionId: 111, turns: ['3', '5 pi'] },
  { model: 'beta', questionId: 81, turns: ['Hi', 'Again'], answerId: 'ans-2' },
];
export const PROMPTS: PromptScheme[] = [
  {
    name: 'pair-v2',
    type: 'pairwise',
    systemPrompt: 'Judge two.',
    promptTemplate: '{question}\n{answer_a}\n{answer_b}',
    outputFormat: '[[A]]',
    category: 'general',
    description: 'general',
  },
  {
    name: 'single-v1',
    type: 'single',
    systemPrompt: 'You are a helpful assistant.',
    promptTemplate: '{question}\n{answer}',
    outputFormat: '[[rating]]',
  },
];

let seq = 0;
/** A complete game; `over` replaces fields. Ids are unique per call unless given. */
export function makeGame(over: Partial<Game> & { match?: Game['match'] } = {}): Game {
  seq++;
  return {
    id: `game-${String(seq).padStart(6, '0')}`,
    judge: 'judge-x',
    judgeSettings: { temperature: 0, maxTokens: 2048, seed: 7 },
    promptName: 'pair-v2',
    match: { questionId: 81, category: 'writing', turn: 1, model1: 'alpha', model2: 'beta' },
    order: 'AB',
    systemPrompt: 'Judge two.',
    userPrompt: `prompt ${seq} — ü 🎉`,
    reply: 'Both fine. [[C]]',
    verdict: 'tie',
    parser: 'last@1',
    tokensIn: 100,
    tokensOut: 20,
    latencyMs: 12.5,
    createdAt: 1_700_000_000_000 + seq,
    runId: 'run-1',
    source: 'run',
    ...over,
  };
}

const vote = (line: number, over: Partial<Vote> = {}): Vote & { line: number } => ({
  judge: 'human',
  voter: `expert_${line}`,
  questionId: 81,
  turn: 1,
  model1: 'alpha',
  model2: 'beta',
  winner: 'model_1',
  line,
  ...over,
});
const withoutLine = (v: Vote & { line: number }): Vote => {
  const { line: _line, ...rest } = v;
  return rest;
};

const run = (over: Partial<RunRecord> = {}): RunRecord => ({
  id: 'run-1',
  startedAt: 1_700_000_000_000,
  finishedAt: null,
  judge: 'judge-x',
  mode: 'pairwise-all',
  config: { models: ['alpha', 'beta'] },
  planned: 10,
  toPlay: 8,
  played: 0,
  failed: 0,
  tokensIn: 0,
  tokensOut: 0,
  status: 'running',
  cost: null,
  ...over,
});

/** Everything a store holds, read through the interface. */
async function snapshot(s: Store) {
  return {
    questions: await s.listQuestions(),
    answers: await s.listAnswers(),
    models: await s.listModels(),
    references: await s.listReferences(),
    prompts: await s.listPrompts(),
    games: await s.listGames(),
    votes: await s.listVotes(),
    judges: await s.listJudges(),
    runs: await s.listRuns(),
  };
}

// ---------------------------------------------------------------- the suite

export function describeStoreContract(name: string, makeStore: MakeStore): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
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
      expect(await store.existingGameIds([])).toEqual(new Set());
      expect(await store.existingGameIds(['nope'])).toEqual(new Set());
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
      expect(await store.listQuestions()).toEqual(QUESTIONS); // ordered by id
      expect(await store.listReferences()).toEqual(REFERENCES);
      expect(await store.listAnswers()).toEqual(ANSWERS); // ordered by model, question
      expect(await store.listAnswers(['beta'])).toEqual(ANSWERS.filter((a) => a.model === 'beta'));
      expect(await store.listModels()).toEqual(['alpha', 'beta']);
      expect(await store.listPrompts()).toEqual(PROMPTS); // ordered by name
      expect(await store.listGames()).toEqual([...games, single]); // ordered by createdAt
      expect(await store.listVotes()).toEqual(votes.map(withoutLine)); // in file order
      expect(await store.listVotes('gpt-4')).toEqual([withoutLine(votes[1]!)]);
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
      expect(await store.listQuestions()).toEqual([q81, QUESTIONS[1], QUESTIONS[2]]);
      expect(await store.listReferences()).toEqual([ref]);
      expect(await store.listAnswers()).toEqual([a, ANSWERS[1], ANSWERS[2]]);
      expect(await store.listPrompts()).toEqual([p, PROMPTS[1]]);
      expect(await store.listGames()).toEqual([g]);
    });

    it('votes are replaced per source file, and only that source', async () => {
      await store.importBundle({
        votes: [
          { source: 'a.csv', items: [vote(2), vote(3), vote(4)] },
          { source: 'b.csv', items: [vote(2, { voter: 'expert_b' })] },
        ],
      });
      await store.importBundle({ votes: [{ source: 'a.csv', items: [vote(2, { winner: 'model_2' })] }] });
      expect(await store.listVotes()).toEqual([
        withoutLine(vote(2, { voter: 'expert_b' })),
        withoutLine(vote(2, { winner: 'model_2' })),
      ]);
      await store.importBundle({ votes: [{ source: 'b.csv', items: [] }] });
      expect(await store.listVotes()).toEqual([withoutLine(vote(2, { winner: 'model_2' }))]);
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
      expect(await store.existingGameIds([games[0]!.id, games[1299]!.id])).toEqual(new Set());
    });

    it('imports thousands of games in one bundle (statements stay under the parameter limit)', async () => {
      const games = Array.from({ length: 2600 }, () => makeGame());
      expect((await store.importBundle({ games })).games).toBe(2600);
      expect((await store.listGames()).length).toBe(2600);
    });

    it('existingGameIds answers for more than 1000 ids at once', async () => {
      const games = Array.from({ length: 1200 }, () => makeGame());
      await store.importBundle({ games });
      const asked = [...games.map((g) => g.id), ...Array.from({ length: 1300 }, (_, k) => `absent-${k}`)];
      const found = await store.existingGameIds(asked);
      expect(found.size).toBe(1200);
      expect(found).toEqual(new Set(games.map((g) => g.id)));
    });

    it('insertGame is idempotent: the first stored version stays', async () => {
      const g = makeGame();
      await store.insertGame(g);
      await store.insertGame(g);
      await store.insertGame({ ...g, reply: 'other', verdict: 'model_2' });
      expect(await store.listGames()).toEqual([g]);
      expect(await store.existingGameIds([g.id])).toEqual(new Set([g.id]));
    });

    it('listGames filters by judge, kind, question and model pair (either orientation)', async () => {
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
      for (const g of [j2, single, other, reversed, ba, ab]) await store.insertGame(g); // inserted out of order
      expect(await store.listGames()).toEqual([ab, ba, reversed, other, single, j2]);
      expect(await store.listGames({ judge: 'j1' })).toEqual([ab, ba, reversed, other, single]);
      expect(await store.listGames({ judge: 'j1', kind: 'pairwise' })).toEqual([ab, ba, reversed, other]);
      expect(await store.listGames({ kind: 'single' })).toEqual([single]);
      expect(await store.listGames({ questionId: 111 })).toEqual([reversed]);
      expect(await store.listGames({ models: ['beta', 'alpha'] })).toEqual([ab, ba, reversed, j2]);
      expect(await store.listGames({ judge: 'j1', questionId: 81, models: ['alpha', 'beta'] })).toEqual([
        ab,
        ba,
      ]);
      expect(await store.listGames({ judge: 'nobody' })).toEqual([]);
    });

    it('listJudges merges game and vote counts per judge', async () => {
      await store.importBundle({
        games: [makeGame({ judge: 'gpt-4' }), makeGame({ judge: 'gpt-4' }), makeGame({ judge: 'local' })],
        votes: [
          { source: 'v.csv', items: [vote(2), vote(3), vote(4, { judge: 'gpt-4', voter: 'gpt4_pair' })] },
        ],
      });
      expect(await store.listJudges()).toEqual([
        { judge: 'gpt-4', games: 2, votes: 1 },
        { judge: 'human', games: 0, votes: 2 },
        { judge: 'local', games: 1, votes: 0 },
      ]);
    });

    it('updateVerdicts changes verdict and parser of the named games only', async () => {
      const [a, b, c] = [makeGame(), makeGame(), makeGame()];
      await store.importBundle({ games: [a!, b!, c!] });
      await store.updateVerdicts([]);
      await store.updateVerdicts([
        { id: a!.id, verdict: 'model_2', parser: 'fastchat@1' },
        { id: c!.id, verdict: 'error', parser: 'fastchat@1' },
        { id: 'no-such-game', verdict: 'tie', parser: 'fastchat@1' },
      ]);
      expect(await store.listGames()).toEqual([
        { ...a, verdict: 'model_2', parser: 'fastchat@1' },
        b,
        { ...c, verdict: 'error', parser: 'fastchat@1' },
      ]);
    });

    it('saveRun inserts, then updates the same run; listRuns orders by start', async () => {
      await store.saveRun(run({ id: 'late', startedAt: 2_000 }));
      await store.saveRun(run({ id: 'early', startedAt: 1_000 }));
      const done = run({
        id: 'late',
        startedAt: 2_000,
        finishedAt: 3_000,
        played: 8,
        failed: 1,
        tokensIn: 900,
        tokensOut: 80,
        status: 'done',
        cost: 0.42,
      });
      await store.saveRun(done);
      expect(await store.listRuns()).toEqual([run({ id: 'early', startedAt: 1_000 }), done]);
    });

    it('saveRefresh inserts, then updates the same refresh; listRefreshes is newest first and honours its limit', async () => {
      expect(await store.listRefreshes()).toEqual([]);
      const refresh = (over: Partial<RefreshRecord> = {}): RefreshRecord => ({
        id: 'r-1',
        startedAt: 1_000,
        finishedAt: null,
        status: 'running',
        config: { file: 'refresh.json', config: { db: 'arena.db' } },
        summary: {},
        degraded: null,
        cost: 0,
        ...over,
      });
      await store.saveRefresh(refresh());
      await store.saveRefresh(
        refresh({ id: 'r-0', startedAt: 500, status: 'ok', finishedAt: 600, cost: 0.25 }),
      );
      const degraded = refresh({
        finishedAt: 2_000,
        status: 'degraded',
        summary: {
          played: 12,
          line: 'refresh r-1: DEGRADED — ü 🎉',
          judges: { 'judge-x': { errorRate: 1, inconsistencyRate: null } },
        },
        degraded: ['judge-x: error rate 0.0% -> 100.0% (bound +10.0%)'],
        cost: 1.5,
      });
      await store.saveRefresh(degraded);
      await store.saveRefresh(refresh({ id: 'r-2', startedAt: 3_000, status: 'budget', cost: 2 }));
      expect((await store.listRefreshes()).map((r) => [r.id, r.status])).toEqual([
        ['r-2', 'budget'],
        ['r-1', 'degraded'],
        ['r-0', 'ok'],
      ]);
      expect(await store.listRefreshes(2)).toEqual([
        refresh({ id: 'r-2', startedAt: 3_000, status: 'budget', cost: 2 }),
        degraded,
      ]);
      expect(await store.listRefreshes(1)).toHaveLength(1);
    });

    it('saveCheckpoint upserts by series and name; listCheckpoints orders by series and step and filters by series', async () => {
      expect(await store.listCheckpoints()).toEqual([]);
      const ck = (over: Partial<CheckpointRecord> = {}): CheckpointRecord => ({
        series: 'sft-1',
        name: 'step-200',
        step: 200,
        model: 'sft-1@step-200',
        baseline: 'gpt-3.5-turbo',
        generation: { kind: 'imported', file: 'sft-1/step-200.jsonl' },
        ...over,
      });
      await store.saveCheckpoint(ck());
      await store.saveCheckpoint(ck({ name: 'step-100', step: 100, model: 'sft-1@step-100' }));
      await store.saveCheckpoint(ck({ series: 'rl-2', name: 'a', step: 5, model: 'rl@a', baseline: null }));
      const regenerated = ck({
        generation: {
          kind: 'openai',
          baseURL: 'http://127.0.0.1:9/v1',
          model: 'ckpt',
          maxTokens: 64,
          temperatures: { writing: 0.7, math: 0 },
        },
      });
      await store.saveCheckpoint(regenerated);
      expect(await store.listCheckpoints()).toEqual([
        ck({ series: 'rl-2', name: 'a', step: 5, model: 'rl@a', baseline: null }),
        ck({ name: 'step-100', step: 100, model: 'sft-1@step-100' }),
        regenerated,
      ]);
      expect((await store.listCheckpoints('sft-1')).map((c) => c.name)).toEqual(['step-100', 'step-200']);
      expect(await store.listCheckpoints('nope')).toEqual([]);
    });

    it('markRefreshesInterrupted marks every running refresh interrupted and nothing else', async () => {
      const refresh = (id: string, status: RefreshRecord['status'], startedAt: number): RefreshRecord => ({
        id,
        startedAt,
        finishedAt: null,
        status,
        config: { file: 'r.json', config: {} },
        summary: { line: id },
        degraded: null,
        cost: 0,
      });
      expect(await store.markRefreshesInterrupted()).toBe(0);
      await store.saveRefresh(refresh('killed-1', 'running', 1));
      await store.saveRefresh(refresh('killed-2', 'running', 2));
      await store.saveRefresh(refresh('fine', 'ok', 3));
      expect(await store.markRefreshesInterrupted()).toBe(2);
      expect(await store.markRefreshesInterrupted()).toBe(0);
      expect((await store.listRefreshes()).map((r) => [r.id, r.status, r.summary.line])).toEqual([
        ['fine', 'ok', 'fine'],
        ['killed-2', 'interrupted', 'killed-2'],
        ['killed-1', 'interrupted', 'killed-1'],
      ]);
    });

    it('batches: saved, listed by judge and status, re-keyed when the server names them, updated and deleted', async () => {
      const batch = (over: Partial<BatchRecord> = {}): BatchRecord => ({
        id: 'submission-1',
        refreshId: 'r-1',
        judge: 'openai/gpt-4',
        inputFileId: '',
        status: 'submitting',
        gameIds: ['g-1', 'g-2 — ü'],
        createdAt: 1_000,
        finishedAt: null,
        cost: null,
        ...over,
      });
      expect(await store.listBatches()).toEqual([]);
      await store.saveBatch(batch());
      await store.saveBatch(batch({ id: 'submission-2', judge: 'openai/other', createdAt: 2_000 }));
      // 1,500 game ids in one batch: a JSON value, not one row per id
      const many = Array.from({ length: 1500 }, (_, i) => `game-${i}`);
      await store.saveBatch(
        batch({ id: 'batch_old', status: 'submitted', gameIds: many, createdAt: 500, inputFileId: 'file-0' }),
      );
      expect((await store.listBatches()).map((b) => b.id)).toEqual([
        'batch_old',
        'submission-1',
        'submission-2',
      ]);
      expect(await store.listBatches({ judge: 'openai/gpt-4', status: 'submitting' })).toEqual([batch()]);
      expect((await store.listBatches({ status: 'submitted' }))[0]!.gameIds).toEqual(many);
      // the submission gets the server's id and file
      await store.updateBatch('submission-1', {
        id: 'batch_abc',
        inputFileId: 'file-1',
        status: 'submitted',
      });
      await store.updateBatch('no-such-batch', { status: 'failed' });
      await store.updateBatch('batch_abc', {});
      expect(await store.listBatches({ judge: 'openai/gpt-4', status: 'submitted' })).toEqual([
        batch({ id: 'batch_old', status: 'submitted', gameIds: many, createdAt: 500, inputFileId: 'file-0' }),
        batch({ id: 'batch_abc', inputFileId: 'file-1', status: 'submitted' }),
      ]);
      await store.updateBatch('batch_abc', { status: 'imported', finishedAt: 5_000, cost: 0.125 });
      expect((await store.listBatches({ status: 'imported' }))[0]).toEqual(
        batch({ id: 'batch_abc', inputFileId: 'file-1', status: 'imported', finishedAt: 5_000, cost: 0.125 }),
      );
      await store.deleteBatch('submission-2');
      await store.deleteBatch('never-existed');
      expect((await store.listBatches()).map((b) => b.id)).toEqual(['batch_old', 'batch_abc']);
      // saving again replaces by id
      await store.saveBatch(batch({ id: 'batch_old', status: 'expired', gameIds: [], createdAt: 500 }));
      expect((await store.listBatches({ status: 'expired' })).map((b) => b.gameIds)).toEqual([[]]);
    });

    it('the cost ledger: per judge (all games or some runs), per run newest first, per game newest first', async () => {
      const g = (judge: string, runId: string | null, createdAt: number, over: Partial<Game> = {}) =>
        makeGame({ judge, runId, createdAt, ...over });
      const games = [
        g('j1', 'run-a', 10, { tokensIn: 100, tokensOut: 10, cost: 0.5 }),
        g('j1', 'run-a', 11, { tokensIn: 200, tokensOut: 20, cost: 0.25 }),
        g('j1', 'run-b', 12, { tokensIn: null, tokensOut: null }),
        g('j2', 'run-c', 13, { tokensIn: 7, tokensOut: 3 }),
        g('j2', null, 14, { tokensIn: 1, tokensOut: 1, source: 'fastchat:gpt-4_pair.jsonl' }),
      ];
      await store.importBundle({ games });
      expect(await store.costByJudge()).toEqual([
        { judge: 'j1', games: 3, tokensIn: 300, tokensOut: 30, cost: 0.75 },
        { judge: 'j2', games: 2, tokensIn: 8, tokensOut: 4, cost: null },
      ]);
      expect(await store.costByJudge(['run-b', 'run-c', 'no-such-run'])).toEqual([
        { judge: 'j1', games: 1, tokensIn: 0, tokensOut: 0, cost: null },
        { judge: 'j2', games: 1, tokensIn: 7, tokensOut: 3, cost: null },
      ]);
      expect(await store.costByJudge([])).toEqual([]);
      // more run ids than D1 binds in one statement
      expect(
        await store.costByJudge([...Array.from({ length: 300 }, (_, i) => `other-${i}`), 'run-a']),
      ).toEqual([{ judge: 'j1', games: 2, tokensIn: 300, tokensOut: 30, cost: 0.75 }]);
      await store.saveRun(
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
      await store.saveRun(run({ id: 'run-b', startedAt: 2_000, judge: 'j2' }));
      expect(await store.costByRun()).toEqual([
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
      expect((await store.costByRun(1)).map((r) => r.id)).toEqual(['run-b']);
      const byGame = await store.costByGame(2);
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
          cost: null,
          source: x!.source,
        })),
      );
      expect((await store.costByGame()).map((r) => r.id)).toEqual([...games].reverse().map((x) => x.id));
    });

    it("gamesOfRuns reads the verdict columns of one judge's games of some runs (canary games included)", async () => {
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
      expect(await store.gamesOfRuns('j1', ['run-a', 'run-k'])).toEqual([a, single, canary].map(row));
      expect(await store.gamesOfRuns('j1', [])).toEqual([]);
      expect(await store.gamesOfRuns('nobody', ['run-a'])).toEqual([]);
    });

    it("tokenTotals sums prompt characters and tokens of a judge's games that have both token counts", async () => {
      expect(await store.tokenTotals('j1')).toEqual({ games: 0, chars: 0, tokensIn: 0, tokensOut: 0 });
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
      expect(await store.tokenTotals('j1')).toEqual({
        games: 2,
        chars: 3 + 2 + 2 + 1,
        tokensIn: 15,
        tokensOut: 3,
      });
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
      expect(await store.listQuestions()).toEqual(QUESTIONS);
      expect(await store.listQuestions({ set: 'Natural' })).toEqual([item]);
      expect(await store.listModels()).toEqual(['alpha', 'beta']);
      expect(await store.listAnswers()).toEqual(ANSWERS);
      expect(
        (await store.listAnswers(['output_1', 'output_2'], { set: 'Natural' })).map((a) => a.model),
      ).toEqual(['output_1', 'output_2']);
      expect(await store.listGames()).toEqual([tGame]);
      expect((await store.listGames({ set: 'Natural' })).map((g) => g.id).sort()).toEqual(
        sGames.map((g) => g.id).sort(),
      );
      expect((await store.listGames({ set: 'Natural', judge: 'judge-x' })).map((g) => g.id)).toEqual([
        sGames[1]!.id,
      ]);
      expect(await store.listGames({ set: 'Other' })).toEqual([]);
      expect((await store.listGames({ withSets: true })).length).toBe(3);
      expect((await store.listVotes()).map((v) => v.judge)).toEqual(['human']);
      expect((await store.listVotes('gold', { set: 'Natural' })).map((v) => v.questionId)).toEqual([item.id]);
      expect(await store.listJudges()).toEqual([
        { judge: 'human', games: 0, votes: 1 },
        { judge: 'judge-x', games: 1, votes: 0 },
      ]);
      expect(await store.listPairSets()).toEqual([
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

    it('insertGame says whether it stored the game (false when one with its id is stored)', async () => {
      const g = makeGame();
      expect(await store.insertGame(g)).toBe(true);
      expect(await store.insertGame({ ...g, reply: 'again [[A]]' })).toBe(false);
      expect((await store.listGames()).map((x) => x.reply)).toEqual([g.reply]);
    });

    it('insertGames stores a group in one statement and says which games were new (the play loop group commit)', async () => {
      const old = makeGame();
      await store.insertGame(old);
      const fresh = [makeGame(), makeGame({ verdictProbs: { A: 0.5, B: 0.25, C: 0.25 } })];
      expect(await store.insertGames([fresh[0]!, { ...old, reply: 'again [[A]]' }, fresh[1]!])).toEqual([
        true,
        false,
        true,
      ]);
      expect(await store.insertGames(fresh)).toEqual([false, false]);
      expect(await store.insertGames([])).toEqual([]);
      const stored = await store.listGames();
      expect(stored.map((g) => g.id).sort()).toEqual([old.id, ...fresh.map((g) => g.id)].sort());
      expect(stored.find((g) => g.id === old.id)!.reply).toBe(old.reply);
      expect(stored.find((g) => g.id === fresh[1]!.id)!.verdictProbs).toEqual({ A: 0.5, B: 0.25, C: 0.25 });
      expect(stored.find((g) => g.id === fresh[0]!.id)!.verdictProbs ?? null).toBeNull();
      // an id twice in one group is new once, at its first place; the first one's content is what stays
      const twice = makeGame();
      expect(await store.insertGames([twice, { ...twice, reply: 'second [[B]]' }])).toEqual([true, false]);
      expect((await store.listGames()).find((g) => g.id === twice.id)!.reply).toBe(twice.reply);
    });

    it('claimGames leases games that are neither stored nor leased to another run; an expired lease is taken over', async () => {
      const stored = makeGame();
      await store.insertGame(stored);
      const ids = Array.from({ length: 150 }, (_, i) => `g-${i}`); // more than D1 binds in one statement
      // run A takes everything that is not stored
      expect((await store.claimGames('A', [stored.id, ...ids], 10_000, 1_000)).sort()).toEqual(
        [...ids].sort(),
      );
      // run B gets nothing while A's leases are live
      expect(await store.claimGames('B', ['g-1', 'g-2', 'new-1'], 20_000, 5_000)).toEqual(['new-1']);
      // A claiming its own again extends them
      expect((await store.claimGames('A', ['g-1', 'g-2'], 30_000, 6_000)).sort()).toEqual(['g-1', 'g-2']);
      // at 15 s A's other leases (until 10 s) have expired: B takes g-3, not g-1 (renewed to 30 s)
      expect((await store.claimGames('B', ['g-1', 'g-3'], 40_000, 15_000)).sort()).toEqual(['g-3']);
      // renewing keeps A's leases from being taken
      await store.renewClaims('A', 100_000);
      expect(await store.claimGames('B', ['g-4', 'g-5'], 50_000, 60_000)).toEqual([]);
      // a released lease is free at once; a game stored meanwhile is never leased again
      await store.releaseClaims('A', ['g-4']);
      await store.insertGame(makeGame({ id: 'g-5' }));
      await store.releaseClaims('A', ['g-5']);
      expect((await store.claimGames('B', ['g-4', 'g-5'], 50_000, 60_000)).sort()).toEqual(['g-4']);
      // releasing all of A's leaves B's
      await store.releaseClaims('A');
      expect((await store.claimGames('C', ['g-0', 'g-3', 'g-4', 'new-1'], 50_000, 10_000)).sort()).toEqual([
        'g-0',
      ]);
      expect(await store.claimGames('C', [], 1, 1)).toEqual([]);
    });

    it('markRunsInterrupted marks only running runs and frees their leases; owner and heartbeat round-trip', async () => {
      await store.saveRun(run({ id: 'dead', owner: 'host:123', heartbeatAt: 1_700_000_000_500 }));
      await store.saveRun(run({ id: 'finished', status: 'done', finishedAt: 1 }));
      expect((await store.listRuns()).find((r) => r.id === 'dead')).toEqual(
        run({ id: 'dead', owner: 'host:123', heartbeatAt: 1_700_000_000_500 }),
      );
      await store.claimGames('dead', ['x', 'y'], 1e15, 0);
      expect(await store.markRunsInterrupted(['dead', 'finished', 'unknown'], 5_000)).toBe(1);
      expect(await store.markRunsInterrupted(['dead'], 6_000)).toBe(0);
      const runs = await store.listRuns();
      expect(runs.find((r) => r.id === 'dead')).toEqual(
        run({ id: 'dead', status: 'interrupted', finishedAt: 5_000, owner: 'host:123' }),
      );
      expect(runs.find((r) => r.id === 'finished')!.status).toBe('done');
      expect((await store.claimGames('live', ['x', 'y'], 1e15, 0)).sort()).toEqual(['x', 'y']);
    });

    it('recordAttempt keeps failed calls apart from games', async () => {
      await store.saveRun(run());
      const g = makeGame();
      await store.recordAttempt({
        runId: 'run-1',
        gameId: g.id,
        judge: 'judge-x',
        error: '[judge:openai] 429 Too Many Requests',
        at: 1,
      });
      await store.recordAttempt({
        runId: 'run-1',
        gameId: g.id,
        judge: 'judge-x',
        error: '[judge:openai] timeout',
        at: 2,
      });
      expect(await store.existingGameIds([g.id])).toEqual(new Set());
      expect(await store.listGames()).toEqual([]);
      expect(await store.listJudges()).toEqual([]);
    });
  });
}
