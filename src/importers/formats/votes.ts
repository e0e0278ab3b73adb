// Votes from the HF mt_bench_human_judgments splits (CSV, a JSON array or JSON Lines).
import { z } from 'zod';
import type { Vote } from '../../core/types.ts';
import { AUTHOR, HUMAN, REFERENCE_JUDGE } from '../../core/constants.ts';
import { WINNER_FROM_FILE } from '../../core/sides.ts';
import { annotatorOfVoter } from '../../core/annotate.ts';
import {
  check,
  decodeUtf8,
  fail,
  modelName,
  parseJsonl,
  questionIdOf,
  str,
  turnOf,
  type Located,
} from './located.ts';

const WINNERS: Record<string, Vote['winner']> = {
  ...WINNER_FROM_FILE,
  'tie (bothbad)': 'tie',
  'tie (inconsistent)': 'inconsistent',
};

/** expert_* → human, author_* → author, annotator_<n> → annotators, gpt4_pair or ["gpt-4", "pair-…"] → gpt-4. */
function judgeOfVoter(voter: unknown): { judge: string; voter: string } | undefined {
  if (Array.isArray(voter) && typeof voter[0] === 'string')
    return { judge: voter[0], voter: voter.join('/') };
  if (typeof voter !== 'string' || !voter) return undefined;
  if (voter.startsWith('expert')) return { judge: HUMAN, voter };
  if (voter.startsWith('author')) return { judge: AUTHOR, voter };
  const annotator = annotatorOfVoter(voter);
  if (annotator) return annotator;
  if (voter === 'gpt4_pair') return { judge: REFERENCE_JUDGE, voter };
  return { judge: voter, voter };
}

/** CSV cells are strings: one written as a plain integer (digits only) is a number; any other (blank, `0x51`, `81.0`, ` 81 `) stays a (rejected) string. */
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
function parseCsv(file: string, text: string): { header: string[]; rows: Located<Record<string, string>>[] } {
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
