import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planGames, type PlanInput } from '../../src/core/plan.ts';
import { PROMPT_SETS } from '../../src/core/prompts.ts';
import { ArenaError, type PromptScheme, type Question } from '../../src/core/types.ts';

const DIR = process.env.MTBENCH_DIR;

const PAIR_T1 = '{question}\nA: {answer_a}\nB: {answer_b}';
const PAIR_T2 = '{question_1}|{question_2}\nA: {answer_a_1}/{answer_a_2}\nB: {answer_b_1}/{answer_b_2}';
const REF = (t: string) =>
  t.includes('question_1') ? `REF {ref_answer_1}/{ref_answer_2}\n${t}` : `REF {ref_answer_1}\n${t}`;
const SINGLE_T1 = '{question}\n{answer}';
const SINGLE_T2 = '{question_1}|{question_2}\n{answer_1}/{answer_2}';

function schemes(): Map<string, PromptScheme> {
  const p = (name: string, type: 'pairwise' | 'single', promptTemplate: string): [string, PromptScheme] => [
    name,
    {
      name,
      type,
      systemPrompt: `system of ${name}`,
      promptTemplate,
      outputFormat: type === 'pairwise' ? '[[A]]' : '[[rating]]',
    },
  ];
  return new Map([
    p('pair-v2', 'pairwise', PAIR_T1),
    p('pair-math-v1', 'pairwise', REF(PAIR_T1)),
    p('pair-v2-multi-turn', 'pairwise', PAIR_T2),
    p('pair-math-v1-multi-turn', 'pairwise', REF(PAIR_T2)),
    p('single-v1', 'single', SINGLE_T1),
    p('single-math-v1', 'single', REF(SINGLE_T1)),
    p('single-v1-multi-turn', 'single', SINGLE_T2),
    p('single-math-v1-multi-turn', 'single', REF(SINGLE_T2)),
  ]);
}

// questions in file order: non-reference and reference categories interleaved; q5 has a single turn
const QUESTIONS: Question[] = [
  { id: 1, category: 'writing', turns: ['w1a', 'w1b'] },
  { id: 2, category: 'math', turns: ['m2a', 'm2b'] },
  { id: 3, category: 'roleplay', turns: ['r3a', 'r3b'] },
  { id: 4, category: 'reasoning', turns: ['x4a', 'x4b'] },
  { id: 5, category: 'stem', turns: ['s5a'] },
];

function input(over: Partial<PlanInput> = {}): PlanInput {
  const models = over.models ?? ['x', 'y', 'z'];
  const answers = new Map(
    models.map((m) => [
      m,
      new Map(QUESTIONS.map((q) => [q.id, q.turns.map((_, k) => `${m}-ans-${q.id}-${k + 1}`)])),
    ]),
  );
  return {
    mode: 'pairwise-all',
    models,
    questions: QUESTIONS,
    answers,
    references: new Map([
      [2, ['ref2a', 'ref2b']],
      [4, ['ref4a', 'ref4b']],
    ]),
    prompts: schemes(),
    promptSet: PROMPT_SETS['mt-bench']!.pairwise,
    ...over,
  };
}

const key = (g: ReturnType<typeof planGames>[number]) =>
  `t${g.match.turn} q${g.match.questionId} ${g.match.model1}${g.match.model2 ? `-${g.match.model2}` : ''} ${g.order}`;

describe('planGames: pairwise-all', () => {
  const games = planGames(input());

  it("FastChat's match order: non-reference turn 1, reference turn 1, non-reference turn 2, reference turn 2; i<j pairs in list order; AB then BA", () => {
    const pairs = ['x-y', 'x-z', 'y-z'];
    const block = (turn: number, qs: number[]) =>
      qs.flatMap((q) => pairs.flatMap((p) => [`t${turn} q${q} ${p} AB`, `t${turn} q${q} ${p} BA`]));
    expect(games.map(key)).toEqual([
      ...block(1, [1, 3, 5]),
      ...block(1, [2, 4]),
      ...block(2, [1, 3]),
      ...block(2, [2, 4]),
    ]);
  });

  it('AB shows model_1 as A, BA shows model_2 as A, with the scheme for category and turn', () => {
    const [ab, ba] = games.filter(
      (g) =>
        g.match.questionId === 1 && g.match.turn === 1 && g.match.model1 === 'x' && g.match.model2 === 'z',
    );
    expect(ab).toMatchObject({
      order: 'AB',
      promptName: 'pair-v2',
      systemPrompt: 'system of pair-v2',
      userPrompt: 'w1a\nA: x-ans-1-1\nB: z-ans-1-1',
    });
    expect(ba).toMatchObject({
      order: 'BA',
      promptName: 'pair-v2',
      userPrompt: 'w1a\nA: z-ans-1-1\nB: x-ans-1-1',
    });
  });

  it('reference categories get the reference; turn 2 shows both turns of both answers', () => {
    const t1 = games.find((g) => g.match.questionId === 4 && g.match.turn === 1)!;
    expect(t1).toMatchObject({
      promptName: 'pair-math-v1',
      userPrompt: 'REF ref4a\nx4a\nA: x-ans-4-1\nB: y-ans-4-1',
    });
    const t2 = games.find((g) => g.match.questionId === 2 && g.match.turn === 2 && g.order === 'BA')!;
    expect(t2).toMatchObject({
      promptName: 'pair-math-v1-multi-turn',
      userPrompt: 'REF ref2a/ref2b\nm2a|m2b\nA: y-ans-2-1/y-ans-2-2\nB: x-ans-2-1/x-ans-2-2',
    });
    const w2 = games.find((g) => g.match.questionId === 3 && g.match.turn === 2)!;
    expect(w2).toMatchObject({
      promptName: 'pair-v2-multi-turn',
      userPrompt: 'r3a|r3b\nA: x-ans-3-1/x-ans-3-2\nB: y-ans-3-1/y-ans-3-2',
    });
  });

  it('turns can be restricted', () => {
    expect(new Set(planGames(input({ turns: [2] })).map((g) => g.match.turn))).toEqual(new Set([2]));
  });
});

describe('planGames: pairwise-baseline and single', () => {
  it('pairwise-baseline: every other model as model_1 against the baseline as model_2', () => {
    const games = planGames(
      input({ mode: 'pairwise-baseline', models: ['x', 'base', 'y'], baseline: 'base', turns: [1] }),
    );
    expect(games.filter((g) => g.match.questionId === 1).map(key)).toEqual([
      't1 q1 x-base AB',
      't1 q1 x-base BA',
      't1 q1 y-base AB',
      't1 q1 y-base BA',
    ]);
    expect(games).toHaveLength(5 * 2 * 2);
  });

  it('pairwise-baseline needs a baseline', () => {
    expect(() => planGames(input({ mode: 'pairwise-baseline' }))).toThrow(/needs a baseline/);
  });

  it('single: one game per (question, model, turn), order AB, no model_2, single schemes', () => {
    const games = planGames(input({ mode: 'single', promptSet: PROMPT_SETS['mt-bench']!.single }));
    expect(games).toHaveLength((5 + 4) * 3);
    expect(games.every((g) => g.order === 'AB' && g.match.model2 === undefined)).toBe(true);
    expect(games.slice(0, 3).map(key)).toEqual(['t1 q1 x AB', 't1 q1 y AB', 't1 q1 z AB']);
    expect(
      games.find((g) => g.match.questionId === 2 && g.match.turn === 2 && g.match.model1 === 'z'),
    ).toMatchObject({
      promptName: 'single-math-v1-multi-turn',
      userPrompt: 'REF ref2a/ref2b\nm2a|m2b\nz-ans-2-1/z-ans-2-2',
    });
  });
});

describe('planGames: problems are reported together, before anything is played', () => {
  it('lists missing answers, references and prompts in one ArenaError', () => {
    const base = input();
    base.answers.get('y')!.delete(3);
    base.answers.delete('z');
    base.references.delete(4);
    base.prompts.delete('pair-math-v1-multi-turn');
    let err: unknown;
    try {
      planGames(base);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ArenaError);
    const msg = (err as Error).message;
    expect(msg).toMatch(/^cannot plan pairwise-all:/);
    expect(msg).toContain('model "y" has no answer (or too few turns) for question 3');
    expect(msg).toContain('model "z" has no answers');
    expect(msg).toContain('no reference answer for 1 reasoning question(s): 4');
    expect(msg).toContain('judge prompt "pair-math-v1-multi-turn" is not in the database');
  });

  it('a prompt of the wrong type, too few models, or a model listed twice', () => {
    expect(() => planGames(input({ mode: 'single' }))).toThrow(
      /judge prompt "pair-v2" is pairwise, but single needs a single prompt/,
    );
    expect(() => planGames(input({ models: ['x'] }))).toThrow(/needs at least two models/);
    expect(() => planGames(input({ models: ['x', 'y', 'x'] }))).toThrow(/listed twice/);
  });
});

describe.skipIf(!DIR)('planGames on the MT-Bench release (MTBENCH_DIR)', () => {
  it('6 models × 80 questions × 2 turns: 2,400 matches, 4,800 games; 800 matches in baseline mode', () => {
    const dir = DIR!;
    const readJsonl = <T>(f: string) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as T);
    type AnswerLine = { question_id: number; choices: { turns: string[] }[] };
    const questions = readJsonl<{ question_id: number; category: string; turns: string[] }>(
      join(dir, 'question.jsonl'),
    ).map((q) => ({ id: q.question_id, category: q.category, turns: q.turns }));
    const models = readdirSync(join(dir, 'model_answer'))
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => f.slice(0, -6))
      .sort();
    const answers = new Map(
      models.map((m) => [
        m,
        new Map(
          readJsonl<AnswerLine>(join(dir, 'model_answer', `${m}.jsonl`)).map((a) => [
            a.question_id,
            a.choices[0]!.turns,
          ]),
        ),
      ]),
    );
    const references = new Map(
      readJsonl<AnswerLine>(join(dir, 'reference_answer', 'gpt-4.jsonl')).map((a) => [
        a.question_id,
        a.choices[0]!.turns,
      ]),
    );
    const prompts = new Map(
      readJsonl<{
        name: string;
        type: 'pairwise' | 'single';
        system_prompt: string;
        prompt_template: string;
        output_format: string;
      }>(join(dir, 'judge_prompts.jsonl')).map((p) => [
        p.name,
        {
          name: p.name,
          type: p.type,
          systemPrompt: p.system_prompt,
          promptTemplate: p.prompt_template,
          outputFormat: p.output_format,
        },
      ]),
    );
    expect(models).toHaveLength(6);
    const base = {
      models,
      questions,
      answers,
      references,
      prompts,
      promptSet: PROMPT_SETS['mt-bench']!.pairwise,
    };
    const all = planGames({ ...base, mode: 'pairwise-all' });
    expect(all).toHaveLength(4800);
    expect(
      new Set(all.map((g) => `${g.match.questionId}/${g.match.turn}/${g.match.model1}/${g.match.model2}`))
        .size,
    ).toBe(2400);
    // reference-based prompts for the 30 math/reasoning/coding questions (101-130): 30 × 15 pairs × 2 turns × 2 orders
    expect(all.filter((g) => g.promptName.startsWith('pair-math-v1')).length).toBe(1800);
    const baseline = planGames({ ...base, mode: 'pairwise-baseline', baseline: 'gpt-3.5-turbo' });
    expect(baseline).toHaveLength(1600); // protocol §3.2: 800 matches = 1,600 API calls
  });
});
