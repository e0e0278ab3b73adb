// Recorded judgments: FastChat's model_judgment/<judge>_pair.jsonl and _single.jsonl, one line at a time.
import { z } from 'zod';
import {
  PARSER_VERSIONS,
  RECORDED_PARSER,
  parsePairVerdict,
  parseRating,
  toVerdict,
} from '../../core/verdict/parse.ts';
import type { GameVerdict } from '../../core/types.ts';
import { scoreText } from '../../core/verdict/stored.ts';
import { check, describe, fail, modelName, questionIdOf, str, turnOf } from './located.ts';

const FASTCHAT_PARSER = PARSER_VERSIONS.fastchat;

const judgeTuple = z.tuple([str, str], {
  error: (i) => `expected ["<judge model>", "<prompt name>"], got ${describe(i.input)}`,
});
const pairWinner = z.enum(['model_1', 'model_2', 'tie', 'error'], {
  error: (i) => `expected model_1, model_2, tie or error, got ${describe(i.input)}`,
});

const PairJudgmentLine = z.object({
  question_id: questionIdOf,
  model_1: modelName,
  model_2: modelName,
  g1_winner: pairWinner,
  g2_winner: pairWinner,
  judge: judgeTuple,
  g1_user_prompt: str,
  g1_judgment: str,
  g2_user_prompt: str,
  g2_judgment: str,
  turn: turnOf,
  tstamp: z.number().optional(),
});

const SingleJudgmentLine = z.object({
  question_id: questionIdOf,
  model: modelName,
  judge: judgeTuple,
  user_prompt: str,
  judgment: str,
  score: z.number({ error: (i) => `expected a number, got ${describe(i.input)}` }),
  turn: turnOf,
  tstamp: z.number().optional(),
});

/** A recorded game before it gets its id and category (those need the question table). */
export interface RecordedGame {
  line: number;
  judge: string;
  promptName: string;
  questionId: number;
  turn: number;
  model1: string;
  model2?: string;
  order: 'AB' | 'BA';
  /** the system prompt the line records (the study's `orig_prompt1/2` = system prompt + "\n" + user prompt) */
  systemPrompt?: string;
  userPrompt: string;
  reply: string;
  verdict: GameVerdict;
  /** 'fastchat@1' when FastChat's parser reads the recorded verdict from the text, else 'recorded' */
  parser: string;
  createdAt: number;
}

/** The system prompt inside a recorded full prompt (`system + "\n" + user`), when it is one. */
function systemOf(full: string | undefined, user: string): string | undefined {
  return full !== undefined && full.endsWith(`\n${user}`)
    ? full.slice(0, full.length - user.length - 1)
    : undefined;
}

/**
 * One line of FastChat's model_judgment/<judge>_pair.jsonl or _single.jsonl (a pair line: games AB and BA).
 * The verdicts are kept as recorded: parser 'fastchat@1' where FastChat's parser reads the text the same way,
 * else 'recorded' (`arena reparse` can read the texts again).
 */
export function recordedGamesOfLine(
  file: string,
  line: number,
  value: unknown,
  opts: { judge?: string } = {},
): RecordedGame[] {
  const isPair = typeof value === 'object' && value !== null && 'model_1' in value;
  if (isPair) {
    const j = check(PairJudgmentLine, value, file, line);
    if (j.model_1 === j.model_2) fail(file, line, 'model_2', `same model on both sides (${j.model_1})`);
    const extra = value as { orig_prompt1?: unknown; orig_prompt2?: unknown };
    const createdAt = Math.round((j.tstamp ?? 0) * 1000);
    const out: RecordedGame[] = [];
    for (const [order, prompt, reply, recorded, full] of [
      ['AB', j.g1_user_prompt, j.g1_judgment, j.g1_winner, extra.orig_prompt1],
      ['BA', j.g2_user_prompt, j.g2_judgment, j.g2_winner, extra.orig_prompt2],
    ] as const) {
      const pos = parsePairVerdict(reply, 'fastchat');
      const expected = toVerdict(pos, order);
      const systemPrompt = systemOf(typeof full === 'string' ? full : undefined, prompt);
      out.push({
        line,
        judge: opts.judge ?? j.judge[0],
        promptName: j.judge[1],
        questionId: j.question_id,
        turn: j.turn,
        model1: j.model_1,
        model2: j.model_2,
        order,
        ...(systemPrompt !== undefined ? { systemPrompt } : {}),
        userPrompt: prompt,
        reply,
        verdict: recorded,
        parser: expected === recorded ? FASTCHAT_PARSER : RECORDED_PARSER,
        createdAt,
      });
    }
    return out;
  }
  const j = check(SingleJudgmentLine, value, file, line);
  const parsed = parseRating(j.judgment, 'fastchat');
  const recorded = j.score === -1 ? null : j.score;
  return [
    {
      line,
      judge: opts.judge ?? j.judge[0],
      promptName: j.judge[1],
      questionId: j.question_id,
      turn: j.turn,
      model1: j.model,
      order: 'AB',
      userPrompt: j.user_prompt,
      reply: j.judgment,
      verdict: recorded === null ? 'error' : scoreText(recorded),
      parser: parsed === recorded ? FASTCHAT_PARSER : RECORDED_PARSER,
      createdAt: Math.round((j.tstamp ?? 0) * 1000),
    },
  ];
}
