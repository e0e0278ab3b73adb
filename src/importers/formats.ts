// Parsers for the MT-Bench / FastChat file formats. Pure: bytes in, typed records out.
// Every problem is one ArenaError naming the file, the line and the field.
import { z } from 'zod';
import {
  PARSER_VERSIONS,
  RECORDED_PARSER,
  parsePairVerdict,
  parseRating,
  toVerdict,
} from '../core/verdict/parse.ts';
import { OUTPUT_FORMATS } from '../core/schemes/index.ts';
import {
  ArenaError,
  type Answer,
  type GameVerdict,
  type PromptScheme,
  type Question,
  type ReferenceAnswer,
  type Vote,
} from '../core/types.ts';
import { AUTHOR, HUMAN, REFERENCE_JUDGE } from '../core/constants.ts';
import { WINNER_FROM_FILE } from '../core/sides.ts';
import { fieldPath } from '../core/zod-issues.ts';
import { scoreText } from '../core/verdict/stored.ts';

export interface Located<T> {
  line: number;
  value: T;
}

export function fail(
  file: string,
  line: number | undefined,
  field: string | undefined,
  message: string,
): never {
  const where = `${file}${line !== undefined ? `:${line}` : ''}`;
  throw new ArenaError(`${where}: ${field ? `field "${field}": ` : ''}${message}`, {
    file,
    ...(line !== undefined ? { line } : {}),
    ...(field ? { field } : {}),
  });
}

/** Decode strict UTF-8; an invalid byte is reported with its line. */
export function decodeUtf8(file: string, bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // find the first invalid sequence to report its line
    let line = 1;
    let start = 0;
    for (let i = 0; i <= bytes.length; i++) {
      if (i === bytes.length || bytes[i] === 0x0a) {
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(start, i));
        } catch {
          fail(file, line, undefined, 'invalid UTF-8');
        }
        line++;
        start = i + 1;
      }
    }
    fail(file, undefined, undefined, 'invalid UTF-8');
  }
}

/** Parse with a zod schema, turning the first issue into a located ArenaError. */
export function check<T>(schema: z.ZodType<T>, value: unknown, file: string, line: number): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  // zod 4 leaves `input` off reported issues, so tell "missing" from "mistyped" by looking at the value
  const msg = !issue.path.length
    ? `expected a JSON object, got ${describe(value)}`
    : issue.code === 'invalid_type' && isMissing(value, issue.path)
      ? 'is missing'
      : issue.message;
  fail(file, line, fieldPath(issue.path) || undefined, msg);
}

function isMissing(value: unknown, path: readonly PropertyKey[]): boolean {
  let v = value;
  for (const key of path) {
    if (v === null || typeof v !== 'object' || !(key in v)) return true;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v === undefined;
}

/** JSON Lines: one object per non-blank line. */
export function parseJsonl(file: string, bytes: Uint8Array): Located<unknown>[] {
  const text = decodeUtf8(file, bytes);
  const out: Located<unknown>[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    if (!raw.trim()) continue;
    try {
      out.push({ line: i + 1, value: JSON.parse(raw) });
    } catch (e) {
      fail(file, i + 1, undefined, `malformed JSON (${(e as Error).message})`);
    }
  }
  return out;
}

const str = z.string({
  error: (i) => (i.input === undefined ? 'is missing' : `expected a string, got ${describe(i.input)}`),
});
const int = z
  .number({
    error: (i) => (i.input === undefined ? 'is missing' : `expected an integer, got ${describe(i.input)}`),
  })
  .int({ error: (i) => `expected an integer, got ${describe(i.input)}` });
/** The largest question id: the site's addresses take up to 9 digits (web/params.ts). */
export const MAX_QUESTION_ID = 999_999_999;
const questionIdOf = int
  .nonnegative({ error: (i) => `expected a question id ≥ 0, got ${describe(i.input)}` })
  .max(MAX_QUESTION_ID, {
    error: (i) => `question id ${describe(i.input)} has more than 9 digits (the site cannot show it)`,
  });
/** MT-Bench questions have one or two turns. */
const turnOf = int
  .min(1, { error: 'expected turn 1 or 2' })
  .max(2, { error: (i) => `expected turn 1 or 2, got ${describe(i.input)}` });
/**
 * A model name as the commands take it: not empty, no surrounding spaces, no comma (`--models a,b` splits at
 * commas), no control characters.
 */
export function modelNameProblem(name: string): string | undefined {
  if (!name) return 'a model name must not be empty';
  if (name.trim() !== name) return `model name ${JSON.stringify(name)} has leading or trailing spaces`;
  if (name.includes(','))
    return `model name ${JSON.stringify(name)} contains a comma (--models splits at commas)`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name))
    return `model name ${JSON.stringify(name)} contains a control character`;
  return undefined;
}
const modelName = str.superRefine((v, ctx) => {
  const p = modelNameProblem(v);
  if (p) ctx.addIssue({ code: 'custom', message: p });
});
const turnsArray = z.array(str, {
  error: (i) =>
    i.input === undefined ? 'is missing' : `expected an array of strings, got ${describe(i.input)}`,
});

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return `${typeof v} ${JSON.stringify(v)}`;
}

const QuestionLine = z.object({
  question_id: int.positive({ error: 'expected a positive integer' }).max(MAX_QUESTION_ID, {
    error: (i) => `question id ${describe(i.input)} has more than 9 digits (the site cannot show it)`,
  }),
  category: str.min(1, { error: 'must not be empty' }),
  turns: turnsArray.min(1, { error: 'needs at least one turn' }),
  reference: turnsArray.optional(),
});

export function parseQuestions(file: string, bytes: Uint8Array): Question[] {
  return questionsFrom(file, parseJsonl(file, bytes));
}

/** parseQuestions over JSON values already read line by line (src/importers/lines.ts streams a file so). */
export function questionsFrom(file: string, rows: Iterable<Located<unknown>>): Question[] {
  const seen = new Map<number, number>();
  return Array.from(rows, ({ line, value }) => {
    const q = check(QuestionLine, value, file, line);
    const prev = seen.get(q.question_id);
    if (prev !== undefined)
      fail(file, line, 'question_id', `duplicate id ${q.question_id} (first on line ${prev})`);
    seen.set(q.question_id, line);
    return {
      id: q.question_id,
      category: q.category,
      turns: q.turns,
      ...(q.reference ? { reference: q.reference } : {}),
    };
  });
}

const AnswerLine = z.object({
  question_id: questionIdOf,
  answer_id: str.optional(),
  model_id: str.optional(),
  choices: z
    .array(z.object({ index: int.optional(), turns: turnsArray }), {
      error: (i) => (i.input === undefined ? 'is missing' : `expected an array, got ${describe(i.input)}`),
    })
    .min(1, { error: 'needs at least one choice' }),
});

/** The model id is the file name without .jsonl, as FastChat's load_model_answers does. */
export function modelFromFile(file: string): string {
  return file.replace(/^.*[\\/]/, '').replace(/\.jsonl$/, '');
}

/**
 * Answers in FastChat's model_answer/<model>.jsonl shape. `questions` maps the known question ids
 * to their number of turns: an answer to an unknown question, or with another number of turns, is an error.
 */
export function parseAnswers(
  file: string,
  bytes: Uint8Array,
  questions: Map<number, number>,
  model = modelFromFile(file),
): Answer[] {
  return answersFrom(file, parseJsonl(file, bytes), questions, model);
}

/** parseAnswers over JSON values already read line by line (src/importers/lines.ts reads a file so, without holding its text). */
export function answersFrom(
  file: string,
  rows: Iterable<Located<unknown>>,
  questions: Map<number, number>,
  model = modelFromFile(file),
): Answer[] {
  const one = answerChecker(file, questions, model);
  return Array.from(rows, ({ line, value }) => one(line, value));
}

/** One answers line checked (schema, duplicate, known question, its number of turns): for a file read line by line. */
export function answerChecker(
  file: string,
  questions: Map<number, number>,
  model = modelFromFile(file),
): (line: number, value: unknown) => Answer {
  const bad = modelNameProblem(model);
  if (bad)
    fail(
      file,
      undefined,
      'model',
      `${bad}: the model is named after the file (<model>.jsonl); rename the file`,
    );
  const seen = new Map<number, number>();
  return (line, value) => {
    const a = check(AnswerLine, value, file, line);
    const prev = seen.get(a.question_id);
    if (prev !== undefined)
      fail(
        file,
        line,
        'question_id',
        `duplicate answer to question ${a.question_id} (first on line ${prev})`,
      );
    seen.set(a.question_id, line);
    const n = questions.get(a.question_id);
    if (n === undefined)
      fail(
        file,
        line,
        'question_id',
        `answer to unknown question ${a.question_id} (import its questions first)`,
      );
    const turns = a.choices[0]!.turns;
    if (turns.length !== n)
      fail(
        file,
        line,
        'choices[0].turns',
        `question ${a.question_id} has ${n} turn(s), the answer has ${turns.length}`,
      );
    return { model, questionId: a.question_id, turns, ...(a.answer_id ? { answerId: a.answer_id } : {}) };
  };
}

export function parseReferences(
  file: string,
  bytes: Uint8Array,
  questions: Map<number, number>,
  source = modelFromFile(file),
): ReferenceAnswer[] {
  return referencesFrom(file, parseJsonl(file, bytes), questions, source);
}

/** parseReferences over JSON values already read line by line. */
export function referencesFrom(
  file: string,
  rows: Iterable<Located<unknown>>,
  questions: Map<number, number>,
  source = modelFromFile(file),
): ReferenceAnswer[] {
  return answersFrom(file, rows, questions, source).map((a) => ({
    source,
    questionId: a.questionId,
    turns: a.turns,
  }));
}

const PAIR_FIELDS = new Set([
  'question',
  'answer_a',
  'answer_b',
  'ref_answer_1',
  'question_1',
  'question_2',
  'answer_a_1',
  'answer_b_1',
  'answer_a_2',
  'answer_b_2',
  'ref_answer_2',
]);
const SINGLE_FIELDS = new Set([
  'question',
  'answer',
  'ref_answer_1',
  'question_1',
  'question_2',
  'answer_1',
  'answer_2',
  'ref_answer_2',
]);

const PromptLine = z.object({
  name: str.min(1, { error: 'must not be empty' }),
  type: z.enum(['pairwise', 'single'], {
    error: (i) => `expected "pairwise" or "single", got ${describe(i.input)}`,
  }),
  system_prompt: str,
  prompt_template: str,
  output_format: z.enum(['[[A]]', '[[rating]]', ...Object.keys(OUTPUT_FORMATS)], {
    error: (i) =>
      `expected "[[A]]", "[[rating]]" or a pairwise scheme format (${Object.keys(OUTPUT_FORMATS).join(', ')}), got ${describe(i.input)}`,
  }),
  category: str.optional(),
  description: str.optional(),
});

export function parsePrompts(file: string, bytes: Uint8Array): PromptScheme[] {
  return promptsFrom(file, parseJsonl(file, bytes));
}

/** parsePrompts over JSON values already read line by line. */
export function promptsFrom(file: string, rows: Iterable<Located<unknown>>): PromptScheme[] {
  const seen = new Map<string, number>();
  return Array.from(rows, ({ line, value }) => {
    const p = check(PromptLine, value, file, line);
    const prev = seen.get(p.name);
    if (prev !== undefined) fail(file, line, 'name', `duplicate prompt "${p.name}" (first on line ${prev})`);
    seen.set(p.name, line);
    if ((p.type === 'pairwise') !== (p.output_format !== '[[rating]]'))
      fail(
        file,
        line,
        'output_format',
        `a ${p.type} prompt must use ${p.type === 'pairwise' ? '"[[A]]" or a pairwise scheme format' : '"[[rating]]"'}`,
      );
    const allowed = p.type === 'pairwise' ? PAIR_FIELDS : SINGLE_FIELDS;
    const used = new Set<string>();
    // as Python's str.format: {{ and }} are literal braces, {name} a field; any other brace is an error
    for (const m of p.prompt_template.matchAll(/\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}|\{[^{}]*\}|[{}]/g)) {
      if (m[0] === '{{' || m[0] === '}}') continue;
      if (!m[1])
        fail(
          file,
          line,
          'prompt_template',
          m[0].length > 1
            ? `unsupported field ${m[0]}: only named fields like {question} are filled`
            : `a single "${m[0]}" at character ${m.index! + 1}: write "${m[0]}${m[0]}" for a literal brace`,
        );
      if (!allowed.has(m[1]))
        fail(
          file,
          line,
          'prompt_template',
          `unknown field {${m[1]}} (a ${p.type} template may use ${[...allowed].join(', ')})`,
        );
      used.add(m[1]);
    }
    const shows = (prefix: string) => [...used].some((f) => f.startsWith(prefix));
    if (p.type === 'pairwise' ? !shows('answer_a') || !shows('answer_b') : !shows('answer')) {
      fail(
        file,
        line,
        'prompt_template',
        p.type === 'pairwise'
          ? 'a pairwise template must show both answers ({answer_a} and {answer_b}, or {answer_a_1} … {answer_b_2})'
          : 'a single template must show the answer ({answer}, or {answer_1} and {answer_2})',
      );
    }
    return {
      name: p.name,
      type: p.type,
      systemPrompt: p.system_prompt,
      promptTemplate: p.prompt_template,
      outputFormat: p.output_format,
      ...(p.category ? { category: p.category } : {}),
      ...(p.description ? { description: p.description } : {}),
    };
  });
}

// ---------------------------------------------------------------- recorded judgments

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
 * One line of FastChat's model_judgment/<judge>_pair.jsonl or _single.jsonl. A pair line becomes two
 * games (g1 = AB, g2 = BA). The recorded verdicts are kept as recorded: where FastChat's parser reads
 * the stored text the same way the game's parser is 'fastchat@1', otherwise 'recorded' (a judge
 * parsed with its own, e.g. more lenient, parser); `arena reparse` can read the texts again.
 * Fields beyond FastChat's (e.g. `orig_prompt1/2`) are ignored, except the system prompt they carry.
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

/** A whole judgment file in memory (see recordedGamesOfLine; imports stream with importers/lines.ts). */
export function parseFastchatJudgments(
  file: string,
  bytes: Uint8Array,
  opts: { judge?: string } = {},
): RecordedGame[] {
  return parseJsonl(file, bytes).flatMap(({ line, value }) => recordedGamesOfLine(file, line, value, opts));
}
export const FASTCHAT_PARSER = PARSER_VERSIONS.fastchat;

// ---------------------------------------------------------------- votes (HF mt_bench_human_judgments)

const WINNERS: Record<string, Vote['winner']> = {
  ...WINNER_FROM_FILE,
  'tie (bothbad)': 'tie',
  'tie (inconsistent)': 'inconsistent',
};

/** expert_* → human, author_* → author, gpt4_pair or ["gpt-4", "pair-…"] → gpt-4. */
export function judgeOfVoter(voter: unknown): { judge: string; voter: string } | undefined {
  if (Array.isArray(voter) && typeof voter[0] === 'string')
    return { judge: voter[0], voter: voter.join('/') };
  if (typeof voter !== 'string' || !voter) return undefined;
  if (voter.startsWith('expert')) return { judge: HUMAN, voter };
  if (voter.startsWith('author')) return { judge: AUTHOR, voter };
  if (voter === 'gpt4_pair') return { judge: REFERENCE_JUDGE, voter };
  return { judge: voter, voter };
}

/**
 * CSV cells are strings: one written as a plain integer (digits only) is read as a number; any other (blank,
 * `0x51`, `81.0`, ` 81 `) stays a (rejected) string, never 0 or a guess.
 */
function fromCell(v: unknown): unknown {
  return typeof v === 'string' && /^(0|[1-9][0-9]*)$/.test(v) ? Number(v) : v;
}

const VoteRow = z.object({
  question_id: z.preprocess(fromCell, questionIdOf),
  model_a: modelName,
  model_b: modelName,
  winner: str,
  judge: z.union([str, z.array(str)]),
  turn: z.preprocess(fromCell, turnOf),
});

/** One vote row (from CSV, JSON or JSONL) to a Vote. */
function toVote(file: string, line: number, row: unknown): Vote & { line: number } {
  const r = check(VoteRow, row, file, line);
  const winner = WINNERS[r.winner];
  if (!winner)
    fail(
      file,
      line,
      'winner',
      `unknown winner label ${JSON.stringify(r.winner)} (expected model_a, model_b, tie, "tie (bothbad)" or "tie (inconsistent)")`,
    );
  const j = judgeOfVoter(r.judge);
  if (!j) fail(file, line, 'judge', 'must name the voter');
  if (r.model_a === r.model_b) fail(file, line, 'model_b', `same model on both sides (${r.model_a})`);
  return {
    ...j,
    questionId: r.question_id,
    turn: r.turn,
    model1: r.model_a,
    model2: r.model_b,
    winner,
    line,
  };
}

/** RFC 4180 CSV: quoted fields, doubled quotes, CRLF or LF. */
export function parseCsv(
  file: string,
  text: string,
): { header: string[]; rows: Located<Record<string, string>>[] } {
  const records: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === '\n') line++;
        cell += c;
      }
    } else if (c === '"' && cell === '') quoted = true;
    else if (c === ',') {
      cells.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      cells.push(cell);
      if (cells.length > 1 || cells[0] !== '') records.push({ line: recordLine, cells });
      cells = [];
      cell = '';
      line++;
      recordLine = line;
    } else cell += c;
  }
  if (quoted) fail(file, recordLine, undefined, 'unterminated quoted field');
  if (cell !== '' || cells.length) {
    cells.push(cell);
    records.push({ line: recordLine, cells });
  }
  const head = records.shift();
  if (!head) fail(file, 1, undefined, 'empty file: expected a header line');
  const header = head.cells.map((h) => h.trim());
  const rows = records.map(({ line: l, cells: cs }) => {
    if (cs.length !== header.length)
      fail(file, l, undefined, `expected ${header.length} columns, found ${cs.length}`);
    const row: Record<string, string> = {};
    header.forEach((h, k) => (row[h] = cs[k]!));
    return { line: l, value: row };
  });
  return { header, rows };
}

/**
 * Votes from the HF mt_bench_human_judgments splits: CSV (`question_id,model_a,model_b,winner,judge,turn`),
 * a JSON array (compute_agreement's format) or JSON Lines. `turn` may be given for files without it.
 */
export function parseVotes(
  file: string,
  bytes: Uint8Array,
  opts: { turn?: number } = {},
): (Vote & { line: number })[] {
  const withTurn = (v: unknown) =>
    opts.turn !== undefined && typeof v === 'object' && v !== null && !('turn' in v)
      ? { ...v, turn: opts.turn }
      : v;
  if (/\.csv$/i.test(file)) {
    const { header, rows } = parseCsv(file, decodeUtf8(file, bytes));
    for (const col of ['question_id', 'model_a', 'model_b', 'winner', 'judge'])
      if (!header.includes(col)) fail(file, 1, col, 'column is missing from the header');
    if (!header.includes('turn') && opts.turn === undefined)
      fail(file, 1, 'turn', 'column is missing from the header (or pass --turn)');
    return rows.map(({ line, value }) => toVote(file, line, withTurn(value)));
  }
  if (/\.jsonl$/i.test(file))
    return parseJsonl(file, bytes).map(({ line, value }) => toVote(file, line, withTurn(value)));
  const text = decodeUtf8(file, bytes);
  let arr: unknown;
  try {
    arr = JSON.parse(text);
  } catch (e) {
    fail(file, undefined, undefined, `malformed JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(arr)) fail(file, 1, undefined, 'expected a JSON array of votes');
  // a one-line JSON array has no lines of its own: errors name the element (1-based) as the line
  return arr.map((v, k) => toVote(`${file} element`, k + 1, withTurn(v)));
}
