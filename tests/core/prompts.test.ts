import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  formatTemplate,
  NEED_REF_CATS,
  PROMPT_SETS,
  renderPrompt,
  schemeNameFor,
} from '../../src/core/prompts.ts';
import { ArenaError, type PromptScheme } from '../../src/core/types.ts';

const DIR = process.env.MTBENCH_DIR;

describe('formatTemplate (Python str.format with keyword fields)', () => {
  it('replaces {name}; {{ and }} are literal braces', () => {
    expect(formatTemplate('{a} and {b}', { a: '1', b: '2' })).toBe('1 and 2');
    expect(formatTemplate('{{literal}} {a} }}{{', { a: 'x' })).toBe('{literal} x }{');
    expect(formatTemplate('{{{a}}}', { a: 'x' })).toBe('{x}');
  });

  it('inserts values verbatim: braces inside a value are not expanded again', () => {
    expect(formatTemplate('Q: {question}', { question: 'print(f"{x}") and {answer} and {{' })).toBe(
      'Q: print(f"{x}") and {answer} and {{',
    );
  });

  it('an unknown field is an ArenaError naming the field and the place', () => {
    expect(() => formatTemplate('{question} {answer_c}', { question: 'q' }, 'prompt my-pair')).toThrow(
      ArenaError,
    );
    expect(() => formatTemplate('{question} {answer_c}', { question: 'q' }, 'prompt my-pair')).toThrow(
      /prompt my-pair: .*\{answer_c\}/,
    );
  });
});

describe('scheme selection', () => {
  it("FastChat's NEED_REF_CATS and the four pairwise judges (protocol §3.1)", () => {
    expect([...NEED_REF_CATS].sort()).toEqual(['arena-hard-200', 'coding', 'math', 'reasoning']);
    const set = PROMPT_SETS['mt-bench']!.pairwise;
    expect(schemeNameFor(set, 'writing', 1)).toBe('pair-v2');
    expect(schemeNameFor(set, 'math', 1)).toBe('pair-math-v1');
    expect(schemeNameFor(set, 'humanities', 2)).toBe('pair-v2-multi-turn');
    expect(schemeNameFor(set, 'coding', 2)).toBe('pair-math-v1-multi-turn');
    expect(schemeNameFor(PROMPT_SETS['mt-bench']!.single, 'reasoning', 2)).toBe('single-math-v1-multi-turn');
  });
});

describe('renderPrompt', () => {
  const scheme = (over: Partial<PromptScheme>): PromptScheme => ({
    name: 't',
    type: 'pairwise',
    systemPrompt: 'S',
    promptTemplate: '{question}|{answer_a}|{answer_b}',
    outputFormat: '[[A]]',
    ...over,
  });

  it('a pairwise scheme without a second answer is an error', () => {
    expect(() => renderPrompt({ scheme: scheme({}), questionTurns: ['q'], turn: 1, answerA: ['a'] })).toThrow(
      /needs two answers/,
    );
  });

  it('a reference-based template without a reference is an error, not an empty reference', () => {
    expect(() =>
      renderPrompt({
        scheme: scheme({ promptTemplate: '{question} {ref_answer_1} {answer_a} {answer_b}' }),
        questionTurns: ['q'],
        turn: 1,
        answerA: ['a'],
        answerB: ['b'],
      }),
    ).toThrow(/ref_answer_1/);
  });

  it('single grading fills {question} and {answer}; multi-turn fills both turns', () => {
    const single = scheme({
      type: 'single',
      promptTemplate: '{question_1}/{answer_1}/{question_2}/{answer_2}',
      outputFormat: '[[rating]]',
    });
    expect(
      renderPrompt({ scheme: single, questionTurns: ['q1', 'q2'], turn: 2, answerA: ['a1', 'a2'] }),
    ).toEqual({ system: 'S', user: 'q1/a1/q2/a2' });
  });
});

interface PromptLine {
  name: string;
  type: 'pairwise' | 'single';
  system_prompt: string;
  prompt_template: string;
  output_format: string;
}

describe.skipIf(!DIR)(
  "renderPrompt with MT-Bench's real judge prompts (MTBENCH_DIR/judge_prompts.jsonl)",
  () => {
    const dir = DIR ?? '';
    const prompts = new Map<string, PromptScheme>();
    beforeAll(() => {
      for (const l of readFileSync(join(dir, 'judge_prompts.jsonl'), 'utf8').split('\n').filter(Boolean)) {
        const p = JSON.parse(l) as PromptLine;
        prompts.set(p.name, {
          name: p.name,
          type: p.type,
          systemPrompt: p.system_prompt,
          promptTemplate: p.prompt_template,
          outputFormat: p.output_format,
        });
      }
    });

    it('pair-v2-multi-turn (turn 2) shows both full conversations: both questions and both turns of each answer', () => {
      const s = prompts.get('pair-v2-multi-turn')!;
      const r = renderPrompt({
        scheme: s,
        questionTurns: ['Q1 {not a field}', 'Q2'],
        turn: 2,
        answerA: ['A-one', 'A-two'],
        answerB: ['B-one', 'B-two'],
      });
      expect(r.system).toBe(s.systemPrompt);
      expect(r.system).toContain(
        'You should focus on who provides a better answer to the second user question.',
      );
      // protocol §2, pair-v2-multi-turn prompt_template, filled by hand
      expect(r.user).toBe(
        "<|The Start of Assistant A's Conversation with User|>\n\n### User:\nQ1 {not a field}\n\n### Assistant A:\nA-one\n\n### User:\nQ2\n\n### Assistant A:\nA-two\n\n<|The End of Assistant A's Conversation with User|>\n\n\n" +
          "<|The Start of Assistant B's Conversation with User|>\n\n### User:\nQ1 {not a field}\n\n### Assistant B:\nB-one\n\n### User:\nQ2\n\n### Assistant B:\nB-two\n\n<|The End of Assistant B's Conversation with User|>",
      );
    });

    it('pair-math-v1 (turn 1) gets the reference answer', () => {
      const s = prompts.get('pair-math-v1')!;
      const r = renderPrompt({
        scheme: s,
        questionTurns: ['What is 2+2?', 'And 3+3?'],
        turn: 1,
        answerA: ['4', '6'],
        answerB: ['5', '7'],
        reference: ['Four.', 'Six.'],
      });
      expect(r.user).toBe(
        "[User Question]\nWhat is 2+2?\n\n[The Start of Reference Answer]\nFour.\n[The End of Reference Answer]\n\n[The Start of Assistant A's Answer]\n4\n[The End of Assistant A's Answer]\n\n[The Start of Assistant B's Answer]\n5\n[The End of Assistant B's Answer]",
      );
    });

    it('pair-math-v1-multi-turn (turn 2) gets both reference turns', () => {
      const r = renderPrompt({
        scheme: prompts.get('pair-math-v1-multi-turn')!,
        questionTurns: ['q1', 'q2'],
        turn: 2,
        answerA: ['a1', 'a2'],
        answerB: ['b1', 'b2'],
        reference: ['REF-ONE', 'REF-TWO'],
      });
      expect(
        r.user.startsWith(
          '<|The Start of Reference Answer|>\n\n### User:\nq1\n\n### Reference answer:\nREF-ONE\n\n### User:\nq2\n\n### Reference answer:\nREF-TWO\n\n<|The End of Reference Answer|>',
        ),
      ).toBe(true);
    });

    it("reproduces FastChat's own rendered prompts, both orders, for all 75 matches of the phi-3 sample", () => {
      const questions = new Map(
        readFileSync(join(dir, 'question.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { question_id: number; category: string; turns: string[] })
          .map((q) => [q.question_id, q]),
      );
      const refs = new Map(
        readFileSync(join(dir, 'reference_answer', 'gpt-4.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { question_id: number; choices: { turns: string[] }[] })
          .map((r) => [r.question_id, r.choices[0]!.turns]),
      );
      const lines = readFileSync(
        join(dir, 'format_samples', 'phi-3_vs_phi-3-dpo', 'gpt-4_pair.jsonl'),
        'utf8',
      )
        .split('\n')
        .filter(Boolean)
        .map(
          (l) =>
            JSON.parse(l) as {
              question_id: number;
              judge: [string, string];
              turn: number;
              g1_user_prompt: string;
              g2_user_prompt: string;
            },
        );
      const between = (text: string, start: string, end: string) => {
        const i = text.indexOf(start);
        const j = text.indexOf(end, i + start.length);
        expect(i >= 0 && j >= 0).toBe(true);
        return text.slice(i + start.length, j);
      };
      let withReference = 0;
      for (const line of lines) {
        const q = questions.get(line.question_id)!;
        const name = schemeNameFor(PROMPT_SETS['mt-bench']!.pairwise, q.category, line.turn);
        expect(name).toBe(line.judge[1]);
        // the two answers, cut out of FastChat's game-1 prompt (A = model_1)
        const a = between(
          line.g1_user_prompt,
          "[The Start of Assistant A's Answer]\n",
          "\n[The End of Assistant A's Answer]",
        );
        const b = between(
          line.g1_user_prompt,
          "[The Start of Assistant B's Answer]\n",
          "\n[The End of Assistant B's Answer]",
        );
        const reference = NEED_REF_CATS.has(q.category) ? refs.get(line.question_id) : undefined;
        if (reference) withReference++;
        const input = {
          scheme: prompts.get(name)!,
          questionTurns: q.turns,
          turn: line.turn,
          ...(reference ? { reference } : {}),
        };
        expect(renderPrompt({ ...input, answerA: [a], answerB: [b] }).user, `q${line.question_id} g1`).toBe(
          line.g1_user_prompt,
        );
        expect(renderPrompt({ ...input, answerA: [b], answerB: [a] }).user, `q${line.question_id} g2`).toBe(
          line.g2_user_prompt,
        );
      }
      expect(withReference).toBeGreaterThan(20);
    });
  },
);
