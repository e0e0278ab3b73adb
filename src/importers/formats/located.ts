// What every file format shares: errors located by file, line and field; strict UTF-8; JSON Lines; the
// field schemas and their messages. Pure: bytes in, typed records out.
import { z } from 'zod';
import { ArenaError } from '../../core/types.ts';
import { fieldPath } from '../../core/zod-issues.ts';

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

export const str = z.string({
  error: (i) => (i.input === undefined ? 'is missing' : `expected a string, got ${describe(i.input)}`),
});
export const int = z
  .number({
    error: (i) => (i.input === undefined ? 'is missing' : `expected an integer, got ${describe(i.input)}`),
  })
  .int({ error: (i) => `expected an integer, got ${describe(i.input)}` });
/** The largest question id: the site's addresses take up to 9 digits (web/params.ts). */
const MAX_QUESTION_ID = 999_999_999;
const NINE_DIGITS = (i: { input: unknown }) =>
  `question id ${describe(i.input)} has more than 9 digits (the site cannot show it)`;
export const questionIdOf = int
  .nonnegative({ error: (i) => `expected a question id ≥ 0, got ${describe(i.input)}` })
  .max(MAX_QUESTION_ID, { error: NINE_DIGITS });
export const positiveQuestionId = int
  .positive({ error: 'expected a positive integer' })
  .max(MAX_QUESTION_ID, { error: NINE_DIGITS });
/** MT-Bench questions have one or two turns. */
export const turnOf = int
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
export const modelName = str.superRefine((v, ctx) => {
  const p = modelNameProblem(v);
  if (p) ctx.addIssue({ code: 'custom', message: p });
});
export const turnsArray = z.array(str, {
  error: (i) =>
    i.input === undefined ? 'is missing' : `expected an array of strings, got ${describe(i.input)}`,
});

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return `${typeof v} ${JSON.stringify(v)}`;
}
