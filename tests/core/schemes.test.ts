// The fine-tuned judges' and Arena-Hard's parsers on replies in each documented format and on malformed ones (an
// error, never a guessed verdict), and the shipped templates against the prompts each project documents.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROMPT_SETS, renderPrompt, schemeNameFor } from '../../src/core/prompts.ts';
import { parseArenaHard } from '../../src/core/schemes/arena-hard.ts';
import { parseAutoJ } from '../../src/core/schemes/autoj.ts';
import {
  OUTPUT_FORMATS,
  outputFormatOfVersion,
  SCHEME_PROMPT_NAMES,
  SCHEME_PROMPT_SETS,
} from '../../src/core/schemes/index.ts';
import { parseJudgeLM } from '../../src/core/schemes/judgelm.ts';
import { parsePandaLM } from '../../src/core/schemes/pandalm.ts';
import { parsePrometheusRelative } from '../../src/core/schemes/prometheus.ts';
import type { SchemeReading } from '../../src/core/schemes/types.ts';
import type { Order, PromptScheme } from '../../src/core/types.ts';
import { parserFor, verdictOf } from '../../src/core/verdict/of-reply.ts';
import type { ParserMode } from '../../src/core/verdict/parse.ts';
import { AUTOJ_FIXTURE, AUTOJ_FIXTURE_START } from '../support/autoj-fixture.ts';
import { autojSchemes } from '../../src/importers/autoj.ts';
import { BUILTIN } from '../../src/importers/builtin.ts';
import { parsePrompts } from '../../src/importers/formats.ts';

const v = (r: SchemeReading) => r.verdict;

function expectErrors(parse: (s: string) => SchemeReading, replies: string[]) {
  for (const reply of replies) {
    const r = parse(reply);
    expect(r.verdict, JSON.stringify(reply)).toBe('error');
    expect(r.reason, JSON.stringify(reply)).toBeTruthy();
  }
}

// a pairwise game's reply read as its scheme says (the one reading: core/verdict/of-reply.ts)
const readPairGame = (
  scheme: Pick<PromptScheme, 'outputFormat'> | undefined,
  reply: string,
  order: Order,
  mode: ParserMode,
) =>
  verdictOf(
    { match: { questionId: 1, category: 'c', turn: 1, model1: 'a', model2: 'b' }, order },
    reply,
    parserFor(scheme, mode),
  );

describe('JudgeLM: two scores on the first line', () => {
  it('the higher score wins, equal scores tie', () => {
    expect(parseJudgeLM('8 7\nAssistant 1 gave a more detailed answer ...')).toEqual({
      verdict: 'A',
      label: '8 7',
    });
    expect(v(parseJudgeLM('6 9\nAssistant 2 is more accurate.'))).toBe('B');
    expect(v(parseJudgeLM('8 8\nBoth are equally helpful.'))).toBe('tie');
    expect(v(parseJudgeLM('10 1\n...'))).toBe('A');
    expect(v(parseJudgeLM('7.5 8\n...'))).toBe('B');
    // JudgeLM strips the output and turns commas into spaces
    expect(v(parseJudgeLM('\n  9 3  \nexplanation'))).toBe('A');
    expect(v(parseJudgeLM('9,3\nexplanation'))).toBe('A');
    expect(v(parseJudgeLM('9, 3\nexplanation'))).toBe('A');
    // only the first line counts: later numbers are explanation
    expect(v(parseJudgeLM('2 9\nAssistant 1 scores 9 on style, 2 on accuracy'))).toBe('B');
  });

  it('anything else on the first line is an error (JudgeLM itself would read it as [-1, -1], a tie)', () => {
    expectErrors(parseJudgeLM, [
      '',
      '   \n  ',
      '8\n7',
      '8 7 6\n...',
      'Assistant 1: 8, Assistant 2: 7',
      'The scores are 8 and 7.',
      '8/10 7/10',
      '0 5',
      '11 3',
      '-1 -1',
      'nan 5',
      '1e1 5',
      'eight seven',
      'Assistant 1 is better.\n8 7',
    ]);
  });
});

describe('PandaLM: "1", "2" or "Tie" alone on the first line', () => {
  it('reads the verdict line before "### Reason"', () => {
    expect(parsePandaLM('1\n\n### Reason: Response 1 answers the question.\n\n### Reference: ...')).toEqual({
      verdict: 'A',
      label: '1',
    });
    expect(v(parsePandaLM('2\n\n### Reason: ...\n\n### Reference: ...'))).toBe('B');
    expect(v(parsePandaLM('Tie\n\n### Reason: both are correct.'))).toBe('tie');
    expect(v(parsePandaLM('tie'))).toBe('tie');
    expect(v(parsePandaLM('  2  \n### Reason: ...'))).toBe('B');
    expect(v(parsePandaLM('### Evaluation:\n1\n\n### Reason: ...'))).toBe('A');
  });

  it('anything else is an error (PandaLM itself would read it as a tie)', () => {
    expectErrors(parsePandaLM, [
      '',
      'Response 1\n\n### Reason: ...',
      '1.\n',
      '1 is better',
      '3',
      '12',
      '### Reason: Response 1 is better.\n1',
      'Tied',
      'Both',
    ]);
  });
});

describe('Auto-J: "So, the final decision is Response 1 / Response 2 / Tie"', () => {
  it('reads what follows the last "final decision is "', () => {
    expect(
      parseAutoJ(
        '1. The key factor is correctness: Response 1 says 11.\n\nSo, the final decision is Response 2.',
      ),
    ).toEqual({ verdict: 'B', label: 'Response 2' });
    expect(v(parseAutoJ('... So, the final decision is Response 1'))).toBe('A');
    expect(v(parseAutoJ('So, the final decision is Tie. Both are fine.'))).toBe('tie');
    expect(v(parseAutoJ('so, the final decision is response 1.'))).toBe('A');
    expect(
      v(
        parseAutoJ(
          'If the final decision is Response 2 it would ignore the error. So, the final decision is Response 1.',
        ),
      ),
    ).toBe('A');
  });

  it('no decision, or another decision than the three, is an error', () => {
    expectErrors(parseAutoJ, [
      '',
      'Response 1 is better.',
      'So, the final decision is Response 3.',
      'So, the final decision is Response 12.',
      'So, the final decision is: Response 1',
      'So, the final decision is that both are good.',
      'Final decision is Response 1',
      'So, the final decision is ',
    ]);
  });
});

describe('Prometheus 2 relative grading: "(feedback) [RESULT] A" or "[RESULT] B"', () => {
  it('reads the letter after the last [RESULT]', () => {
    expect(
      parsePrometheusRelative('Response A follows the rubric closely while Response B ... [RESULT] A'),
    ).toEqual({ verdict: 'A', label: 'A' });
    expect(v(parsePrometheusRelative('Both are relevant, but B is more useful. [RESULT] B'))).toBe('B');
    expect(v(parsePrometheusRelative('Feedback ... [RESULT] B.'))).toBe('B');
    expect(v(parsePrometheusRelative('Feedback ... [RESULT] (A)'))).toBe('A');
    expect(v(parsePrometheusRelative('Feedback ... [RESULT] Response B'))).toBe('B');
    expect(v(parsePrometheusRelative('feedback ... [result] a'))).toBe('A');
    expect(v(parsePrometheusRelative('feedback ... [RESULT] A\n'))).toBe('A');
    expect(v(parsePrometheusRelative('feedback ... [RESULT]\tB.  \n\n'))).toBe('B');
    expect(
      v(parsePrometheusRelative('[Response A] is thorough but wrong; [Response B] is right.\n[RESULT] B')),
    ).toBe('B');
    expect(v(parsePrometheusRelative('A draft said [RESULT] A. On reflection: [RESULT] B'))).toBe('B');
  });

  it('no [RESULT], or no A/B after it, is an error (no tie exists in relative grading)', () => {
    expectErrors(parsePrometheusRelative, [
      '',
      'Response A is better.',
      'Result: A',
      '[RESULT] Tie',
      '[RESULT] Both',
      '[RESULT] 4',
      '[RESULT]',
      '[RESULT] AB',
      '[RESULT] A or B',
      '[RESULT] (A or B)',
      '[RESULT] B. Response B is better',
      '[RESULT] A. Actually: [RESULT] neither',
    ]);
  });
});

describe("Arena-Hard's five labels", () => {
  it('reads the last label, its side and its strength', () => {
    expect(parseArenaHard('My final verdict is tie: [[A=B]]')).toEqual({
      verdict: 'tie',
      label: 'A=B',
      strong: false,
    });
    expect(parseArenaHard('... Assistant A is significantly better: [[A>>B]]')).toEqual({
      verdict: 'A',
      label: 'A>>B',
      strong: true,
    });
    expect(parseArenaHard('[[A>B]]')).toEqual({ verdict: 'A', label: 'A>B', strong: false });
    expect(parseArenaHard('[[B>A]]')).toEqual({ verdict: 'B', label: 'B>A', strong: false });
    expect(parseArenaHard('[[B>>A]]')).toEqual({ verdict: 'B', label: 'B>>A', strong: true });
    // quoting the five choices first: the verdict given last is read
    const quoting =
      'The choices are [[A>>B]], [[A>B]], [[A=B]], [[B>A]] and [[B>>A]].\nB is a little clearer.\nMy final verdict is: [[B>A]]';
    expect(parseArenaHard(quoting)).toEqual({ verdict: 'B', label: 'B>A', strong: false });
    // arena-hard-auto upper-cases the reply and maps the mirrored spellings
    expect(parseArenaHard('[[a>>b]]')).toEqual({ verdict: 'A', label: 'A>>B', strong: true });
    expect(parseArenaHard('[[A<<B]]')).toEqual({ verdict: 'B', label: 'B>>A', strong: true });
    expect(parseArenaHard('[[B<A]]')).toEqual({ verdict: 'A', label: 'A>B', strong: false });
    expect(parseArenaHard('[[B=A]]')).toEqual({ verdict: 'tie', label: 'A=B', strong: false });
  });

  it('no label, or a last label outside the scale, is an error', () => {
    expectErrors(parseArenaHard, [
      '',
      'Assistant A is better: A>>B',
      '[A>B]',
      '[[A>>>B]]',
      '[[AB]]',
      '[[C]]',
      '[[A]]',
      '[[A>>B]] ... on reflection [[A>>>B]]',
      '[[>>]]',
    ]);
  });
});

describe('the registry: a scheme format is read by its own parser, an [[A]] scheme by the usual one', () => {
  it('maps positions back to models in both orders and stores the format version', () => {
    const judgelm: Pick<PromptScheme, 'outputFormat'> = { outputFormat: 'judgelm' };
    expect(readPairGame(judgelm, '8 7\n...', 'AB', 'last')).toMatchObject({
      verdict: 'model_1',
      parser: 'judgelm@1',
    });
    expect(readPairGame(judgelm, '8 7\n...', 'BA', 'last')).toMatchObject({
      verdict: 'model_2',
      parser: 'judgelm@1',
    });
    expect(readPairGame(judgelm, '[[A]]', 'AB', 'last')).toMatchObject({
      verdict: 'error',
      parser: 'judgelm@1',
    });
    expect(readPairGame({ outputFormat: '[[A]]' }, 'x [[B]]', 'BA', 'fastchat')).toEqual({
      verdict: 'model_1',
      parser: 'fastchat@1',
    });
    expect(readPairGame(undefined, 'x [[C]]', 'AB', 'last')).toEqual({ verdict: 'tie', parser: 'last@1' });
    expect(outputFormatOfVersion('arena-hard@1')?.name).toBe('arena-hard');
    expect(outputFormatOfVersion('last@1')).toBeUndefined();
    expect(outputFormatOfVersion('toString@1')).toBeUndefined();
  });
});

describe('importing prompts with a scheme format (arena import prompts)', () => {
  const line = (o: Record<string, unknown>) =>
    new TextEncoder().encode(
      `${JSON.stringify({ name: 'mine', type: 'pairwise', system_prompt: '', prompt_template: '{question} 1: {answer_a} 2: {answer_b}', output_format: 'judgelm', ...o })}\n`,
    );
  it("a user's own template may name a registered format; its games are then read by that parser", () => {
    const [p] = parsePrompts('mine.jsonl', line({}));
    expect(p!.outputFormat).toBe('judgelm');
    expect(readPairGame(p, '3 9\n...', 'AB', 'last')).toMatchObject({
      verdict: 'model_2',
      parser: 'judgelm@1',
    });
  });
  it('an unknown format, or a scheme format on a single-grading prompt, is a located error', () => {
    expect(() => parsePrompts('mine.jsonl', line({ output_format: 'judge-lm' }))).toThrow(
      /mine\.jsonl:1: field "output_format": expected "\[\[A\]\]", "\[\[rating\]\]" or a pairwise scheme format \(judgelm, pandalm, autoj, prometheus-relative, llmbar, arena-hard\), got the string "judge-lm"/,
    );
    expect(() =>
      parsePrompts('mine.jsonl', line({ type: 'single', prompt_template: '{question} {answer}' })),
    ).toThrow(/mine\.jsonl:1: field "output_format": a single prompt must use "\[\[rating\]\]"/);
  });
});

describe('the shipped templates (questions/judge_schemes.jsonl)', () => {
  // Auto-J's are not shipped (no licence): `arena import autoj` assembles them from the project's file; here
  // from a stand-in of the same shape (tests/importers/autoj.test.ts checks the real one where it is at hand)
  const prompts = new Map(
    [
      ...parsePrompts(BUILTIN.schemes, readFileSync(BUILTIN.schemes)),
      ...autojSchemes('constants_prompt.py', AUTOJ_FIXTURE),
    ].map((p) => [p.name, p]),
  );

  it('load through the importer, and hold every scheme of every set with a registered pairwise format', () => {
    expect([...prompts.keys()].sort()).toEqual([...SCHEME_PROMPT_NAMES].sort());
    for (const [name, set] of Object.entries(SCHEME_PROMPT_SETS)) {
      expect(PROMPT_SETS[name]!.pairwise).toEqual(set.pairwise);
      expect(PROMPT_SETS[name]!.single).toBeUndefined();
      for (const n of Object.values(set.pairwise)) {
        expect(prompts.get(n)!.type).toBe('pairwise');
        expect(OUTPUT_FORMATS[prompts.get(n)!.outputFormat], n).toBeDefined();
      }
    }
  });

  // Each judge's prompt as its project builds it, written out here by hand from the cited source.
  const render = (set: string, category = 'writing', reference?: string[]) =>
    renderPrompt({
      scheme: prompts.get(schemeNameFor(PROMPT_SETS[set]!.pairwise, category, 1))!,
      questionTurns: ['what is 1+0?'],
      turn: 1,
      answerA: ['1+0 is 11'],
      answerB: ['the answer is 1'],
      ...(reference ? { reference } : {}),
    });

  it("JudgeLM: system + '\\n' + template + '### Response:' is gen_model_judgement.py's data_sample", () => {
    const r = render('judgelm');
    expect(`${r.system}\n${r.user}`).toBe(
      "You are a helpful and precise assistant for checking the quality of the answer.\n[Question]\nwhat is 1+0?\n\n[The Start of Assistant 1's Answer]\n1+0 is 11\n\n[The End of Assistant 1's Answer]\n\n[The Start of Assistant 2's Answer]\nthe answer is 1\n\n[The End of Assistant 2's Answer]\n\n[System]\nWe would like to request your feedback on the performance of two AI assistants in response to the user question displayed above.\nPlease rate the helpfulness, relevance, accuracy, level of details of their responses. Each assistant receives an overall score on a scale of 1 to 10, where a higher score indicates better overall performance.\nPlease first output a single line containing only two values indicating the scores for Assistant 1 and 2, respectively. The two scores are separated by a space. In the subsequent line, please provide a comprehensive explanation of your evaluation, avoiding any potential bias and ensuring that the order in which the responses were presented does not affect your judgment.\n\n### Response:",
    );
    expect(render('judgelm', 'math', ['1']).user).toContain(
      "[Question]\nwhat is 1+0?\n\n[Reference Answer]\n1\n\n[The Start of Assistant 1's Answer]",
    );
  });

  it('PandaLM: build_pandalm_prompt without an Input, no system prompt', () => {
    const r = render('pandalm');
    expect(r.system).toBe('');
    expect(r.user).toBe(
      'Below are two responses for a given task. The task is defined by the Instruction. Evaluate the responses and generate a reference answer for the task.\n\n### Instruction:\nwhat is 1+0?\n\n### Response 1:\n1+0 is 11\n\n### Response 2:\nthe answer is 1\n\n### Evaluation:\n',
    );
  });

  it("Auto-J: pairwise_tie as build_autoj_input fills it (the [INST] wrapper is the model's chat template)", () => {
    const r = render('autoj');
    expect(r.system).toBe('');
    expect(r.user).toBe(
      `${AUTOJ_FIXTURE_START} It's a "placeholder":\n\n[BEGIN DATA]\n***\n[Query]: what is 1+0?\n***\n[Response 1]: 1+0 is 11\n***\n[Response 2]: the answer is 1\n***\n[END DATA]\n\nFinish with "So, the final decision is Response 1 / Response 2 / Tie".`,
    );
  });

  it('Prometheus: REL_SYSTEM_PROMPT and RELATIVE_PROMPT(_WO_REF) with the helpfulness rubric for relative grading', () => {
    const r = render('prometheus');
    expect(r.system).toBe(
      'You are a fair judge assistant assigned to deliver insightful feedback that compares individual performances, highlighting how each stands relative to others within the same cohort.',
    );
    expect(r.user).toBe(
      '###Task Description:\nAn instruction (might include an Input inside it), a response to evaluate, and a score rubric representing a evaluation criteria are given.\n1. Write a detailed feedback that assess the quality of two responses strictly based on the given score rubric, not evaluating in general.\n2. After writing a feedback, choose a better response between Response A and Response B. You should refer to the score rubric.\n3. The output format should look as follows: "(write a feedback for criteria) [RESULT] (A or B)"\n4. Please do not generate any other opening, closing, and explanations.\n\n###Instruction:\nwhat is 1+0?\n\n###Response A:\n1+0 is 11\n\n###Response B:\nthe answer is 1\n\n###Score Rubric:\n[Does the model provide relevant and useful responses to the user\'s needs or questions?]\n\n###Feedback: ',
    );
    const ref = render('prometheus', 'reasoning', ['1']).user;
    expect(ref).toContain('a response to evaluate, a reference answer, and a score rubric');
    expect(ref).toContain('###Response B:\nthe answer is 1\n\n###Reference Answer:\n1\n\n###Score Rubric:');
  });

  it("Arena-Hard: judge_config.yaml's system prompt and prompt template (v0.1)", () => {
    const r = render('arena-hard');
    expect(
      r.system.startsWith(
        'Please act as an impartial judge and evaluate the quality of the responses provided by two AI assistants to the user prompt displayed below.',
      ),
    ).toBe(true);
    expect(
      r.system.endsWith(
        '1. Assistant A is significantly better: [[A>>B]]\n2. Assistant A is slightly better: [[A>B]]\n3. Tie, relatively the same: [[A=B]]\n4. Assistant B is slightly better: [[B>A]]\n5. Assistant B is significantly better: [[B>>A]]\n\nExample output: "My final verdict is tie: [[A=B]]".',
      ),
    ).toBe(true);
    expect(r.user).toBe(
      "<|User Prompt|>\nwhat is 1+0?\n\n<|The Start of Assistant A's Answer|>\n1+0 is 11\n<|The End of Assistant A's Answer|>\n\n<|The Start of Assistant B's Answer|>\nthe answer is 1\n<|The End of Assistant B's Answer|>",
    );
  });

  it('multi-turn games show both questions and each answer to both (our layout: the judges document single-turn templates only)', () => {
    for (const set of Object.keys(SCHEME_PROMPT_SETS)) {
      const scheme = prompts.get(schemeNameFor(PROMPT_SETS[set]!.pairwise, 'writing', 2))!;
      const r = renderPrompt({
        scheme,
        questionTurns: ['Q-ONE', 'Q-TWO'],
        turn: 2,
        answerA: ['A-ONE', 'A-TWO'],
        answerB: ['B-ONE', 'B-TWO'],
      });
      const at = (s: string) => r.user.indexOf(s);
      for (const s of [
        'Q-ONE',
        '[Follow-up Question]\nQ-TWO',
        '[Answer to the Question]\nA-ONE',
        '[Answer to the Follow-up Question]\nA-TWO',
        'B-ONE',
        'B-TWO',
      ])
        expect(at(s), `${set}: ${s}`).toBeGreaterThanOrEqual(0);
      expect(at('Q-TWO')).toBeLessThan(at('A-ONE'));
      expect(at('A-TWO')).toBeLessThan(at('B-ONE'));
    }
  });
});
