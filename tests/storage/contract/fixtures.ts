// The Store contract's fixtures: questions, answers, prompts, games, votes and runs, shared by its groups
// (tests/storage/contract/*.ts) and by tests that need a filled store.
import type { Answer, Game, PromptScheme, Question, ReferenceAnswer, Vote } from '../../../src/core/types.ts';
import type { RunRecord, Store } from '../../../src/storage/store.ts';

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

export const vote = (line: number, over: Partial<Vote> = {}): Vote & { line: number } => ({
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
export const withoutLine = (v: Vote & { line: number }): Vote => {
  const { line: _line, ...rest } = v;
  return rest;
};

export const run = (over: Partial<RunRecord> = {}): RunRecord => ({
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
export async function snapshot(s: Store) {
  return {
    questions: await s.catalog.questions(),
    answers: await s.catalog.answers(),
    models: await s.catalog.models(),
    references: await s.catalog.references(),
    prompts: await s.catalog.prompts(),
    games: await s.games.list(),
    votes: await s.votes.list(),
    judges: await s.games.judges(),
    runs: await s.runs.list(),
  };
}
