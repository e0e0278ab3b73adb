// The package's public surface imported by its own name, as a library user would: parse files, import, run with the
// mock judge, read standings and ratings, re-run without paying twice.
import { afterAll, describe, expect, it } from 'vitest';
import {
  bradleyTerry,
  battlesFromOutcomes,
  ensureRunPrompts,
  gameId,
  JudgeSetup,
  openJudge,
  openMemoryStore,
  outcomesFromGames,
  pairwiseStandings,
  parseAnswers,
  parseGameVerdict,
  parseQuestions,
  planGames,
  runTournament,
  storedVerdictOf,
  verdictOf,
  parserFor,
} from 'mt-arena';
import * as fromSource from '../src/index.ts';

const bytes = (lines: object[]) => new TextEncoder().encode(lines.map((l) => JSON.stringify(l)).join('\n'));
const QUESTIONS = [1, 2, 3].map((id) => ({
  question_id: id,
  category: 'writing',
  turns: [`Question ${id}, turn 1?`, `Question ${id}, turn 2?`],
}));
/** answers of one model: `words` words per turn, so the mock judge `longer` ranks the models by it */
const answers = (words: number) =>
  bytes(
    QUESTIONS.map((q) => ({
      question_id: q.question_id,
      choices: [{ index: 0, turns: q.turns.map(() => 'word '.repeat(words)) }],
    })),
  );

const store = openMemoryStore();
afterAll(() => store.close());

describe('the package entry (import from "mt-arena")', () => {
  it('is src/index.ts', () => {
    expect(planGames).toBe(fromSource.planGames);
    expect(Object.keys(fromSource).length).toBeGreaterThan(40);
  });

  it('parses a reply the way a game stores it', () => {
    expect(parseGameVerdict('Reasons... [[A]]', 'BA')).toBe('model_2');
    const spec = {
      match: { questionId: 1, category: 'writing', turn: 1, model1: 'x', model2: 'y' },
      order: 'AB' as const,
    };
    expect(verdictOf(spec, 'final: [[B]]', parserFor(undefined, 'last'))).toEqual({
      verdict: 'model_2',
      parser: 'last@1',
    });
  });

  it('runs a tournament end to end and reads standings and ratings', async () => {
    const questions = parseQuestions('question.jsonl', bytes(QUESTIONS));
    const turns = new Map(questions.map((q) => [q.id, q.turns.length]));
    await store.importBundle({
      questions: { source: 'question.jsonl', items: questions },
      answers: [
        { source: 'short.jsonl', items: parseAnswers('short.jsonl', answers(5), turns) },
        { source: 'mid.jsonl', items: parseAnswers('mid.jsonl', answers(20), turns) },
        { source: 'long.jsonl', items: parseAnswers('long.jsonl', answers(60), turns) },
      ],
    });
    await ensureRunPrompts(store, ['pairwise-all'], 'arena');
    const judge = await openJudge(JudgeSetup.parse({ id: 'mock/longer' }), {});
    const models = ['short', 'mid', 'long'];
    const first = await runTournament({ store, judge, mode: 'pairwise-all', models, promptSet: 'arena' });
    // 3 pairs x 3 questions x 2 turns x 2 orders
    expect(first.planned).toBe(36);
    expect(first.toPlay).toBe(36);

    const games = await store.games.list({ judge: 'mock/longer' });
    expect(games).toHaveLength(36);
    // a game's id is its content's address
    const g = games[0]!;
    expect(gameId(g.judge, g.judgeSettings, g)).toBe(g.id);

    const outcomes = outcomesFromGames(games.map(storedVerdictOf));
    const table = pairwiseStandings(outcomes);
    expect(table.map((s) => [s.model, s.win, s.loss])).toEqual([
      ['long', 12, 0],
      ['mid', 6, 6],
      ['short', 0, 12],
    ]);
    expect(bradleyTerry(battlesFromOutcomes(outcomes)).map((r) => r.model)).toEqual(['long', 'mid', 'short']);

    // a second run finds every game stored and plays none
    const again = await runTournament({ store, judge, mode: 'pairwise-all', models, promptSet: 'arena' });
    expect(again.toPlay).toBe(0);
  });
});
