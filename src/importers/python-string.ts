// One string constant of a Python source file, read without running Python (`NAME = """..."""`). Only the plain
// escapes a prompt file uses are understood: a changed upstream file is refused rather than read differently.
import { ArenaError } from '../core/types.ts';

const ESCAPES: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', n: '\n', t: '\t' };

/** The value of the top-level string constant `name` in `source` (a Python file called `file`). */
export function readPythonString(file: string, source: string, name: string): string {
  const lines = source.split('\n');
  const head = new RegExp(`^${name}\\s*(?::\\s*str\\s*)?=\\s*`);
  const index = lines.findIndex((l) => head.test(l));
  const fail = (line: number, why: string): never => {
    throw new ArenaError(`${file}:${line}: field "${name}": ${why}`, { file, line, field: name });
  };
  if (index < 0) fail(1, `no top-level assignment "${name} = ..." in the file`);
  const start = lines.slice(0, index).join('\n').length + (index ? 1 : 0);
  const rest = source.slice(start).replace(head, '');
  const quote = ['"""', "'''", '"', "'"].find((q) => rest.startsWith(q));
  if (!quote)
    fail(index + 1, `expected a string literal after "=", got ${JSON.stringify(rest.slice(0, 20))}`);
  let out = '';
  let i = quote!.length;
  const lineAt = (k: number) => index + 1 + (rest.slice(0, k).match(/\n/g)?.length ?? 0);
  for (;;) {
    if (i >= rest.length)
      fail(index + 1, `the string is not closed (no ${quote} before the end of the file)`);
    if (rest.startsWith(quote!, i)) break;
    const c = rest[i]!;
    if (c === '\n' && quote!.length === 1) fail(lineAt(i), 'a line break inside a one-line string');
    if (c === '\\') {
      const e = rest[i + 1] ?? '';
      if (!Object.hasOwn(ESCAPES, e))
        fail(lineAt(i), `unsupported escape \\${e} (only \\\\ \\' \\" \\n \\t)`);
      out += ESCAPES[e];
      i += 2;
      continue;
    }
    out += c;
    i++;
  }
  const after = rest.slice(i + quote!.length).split('\n')[0]!;
  if (after.trim() !== '')
    fail(
      lineAt(i),
      `expected the end of the line after the string, got ${JSON.stringify(after.slice(0, 20))}`,
    );
  return out;
}
