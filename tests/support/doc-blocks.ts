// Code blocks read out of the project's markdown, so what the docs show is what the tests run. A marker line before
// a block says what to do: `<!-- doc-test: run -->`, `<!-- doc-test: json -->`, `<!-- doc-test: skip: <why> -->`.
import { readFileSync } from 'node:fs';

export interface DocBlock {
  file: string;
  /** 1-based line of the opening fence */
  line: number;
  /** the fence's language (`sh`, `json`, ...) */
  lang: string;
  /** `run`, `json`, `skip`, or '' when the block has no marker */
  marker: string;
  /** the reason given after `skip:` */
  why: string;
  /** the block's text, without the fences */
  text: string;
  /** the nearest heading above the block */
  heading: string;
}

const MARKER = /^<!-- doc-test: (run|json|skip)(?::\s*(.*?))?\s*-->$/;

/** Every fenced block of a markdown file, in order. */
export function docBlocks(file: string): DocBlock[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith('#')) heading = l.replace(/^#+\s*/, '');
    const open = /^```(\S*)\s*$/.exec(l);
    if (!open) continue;
    let end = i + 1;
    while (end < lines.length && !lines[end]!.startsWith('```')) end++;
    const m = MARKER.exec(lines[i - 1]?.trim() ?? '');
    blocks.push({
      file,
      line: i + 1,
      lang: open[1] ?? '',
      marker: m?.[1] ?? '',
      why: m?.[2] ?? '',
      text: lines.slice(i + 1, end).join('\n'),
      heading,
    });
    i = end;
  }
  return blocks;
}
