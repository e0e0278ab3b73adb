// Where each value of a JSON text is (its line and offsets), for errors that name the line: config files
// (src/ops/config.ts) and LLMBar's JSON arrays (pairs.ts).

/** The line of every value in a JSON text, keyed by JSON.stringify(path); throws the line where it went wrong. */
export function jsonLines(text: string): Map<string, number> {
  return new Map([...jsonSpans(text)].map(([k, v]) => [k, v.line]));
}

/** Where every value of a JSON text is: its line, and its offsets [start, end), keyed as jsonLines keys them. */
export function jsonSpans(text: string): Map<string, { line: number; start: number; end: number }> {
  const out = new Map<string, { line: number; start: number; end: number }>();
  let i = 0;
  let line = 1;
  const ws = () => {
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (c === '\n') line++;
      else if (c !== ' ' && c !== '\t' && c !== '\r') break;
    }
  };
  const expect = (chars: string) => {
    ws();
    if (!chars.includes(text[i] ?? '')) throw line;
    return text[i++]!;
  };
  const str = (): string => {
    if (text[i] !== '"') throw line;
    const start = i;
    for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: (string | number)[]) => {
    ws();
    const span = { line, start: i, end: i };
    out.set(JSON.stringify(path), span);
    scalarOrNested(path);
    span.end = i;
  };
  const scalarOrNested = (path: (string | number)[]) => {
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        const key = str();
        expect(':');
        value([...path, key]);
        if (expect(',}') === '}') return;
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (let k = 0; ; k++) {
        value([...path, k]);
        if (expect(',]') === ']') return;
      }
    }
    if (c === '"') return void str();
    const lit = /^(true|false|null|-?\d+(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
    if (!lit) throw line;
    i += lit[0].length;
  };
  value([]);
  ws();
  if (i < text.length) throw line;
  return out;
}
