// One way to say what a zod schema rejected, for config files (`FILE:LINE: field "judges[0].retries": ...`)
// and command-line options (`--retries: ...`): every message names where the value came from and the field.
import type { z } from 'zod';

/** `judges[0].retries` from a zod issue path. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s ? `.${String(p)}` : String(p);
  return s;
}

export interface IssueLine {
  /** where the value came from: `file.json:12` or `--timeout` */
  at: string;
  /** the field, when `at` does not already name it */
  field?: string;
  /** the line `at` names, if any */
  line?: number;
  message: string;
}

/**
 * The issues of a failed parse as lines `<at>: field "<field>": <message>` (at most `max`, default 8).
 * `locate(path)` says where the value at `path` came from, and whether the field must still be named.
 */
export function issueLines(
  error: z.ZodError,
  locate: (path: readonly PropertyKey[]) => Omit<IssueLine, 'message'>,
  max = 8,
): IssueLine[] {
  return error.issues.slice(0, max).map((i) => ({ ...locate(i.path), message: i.message }));
}

export function formatIssueLine(l: IssueLine): string {
  return `${l.at}: ${l.field !== undefined ? `field "${l.field || '(top)'}": ` : ''}${l.message}`;
}
