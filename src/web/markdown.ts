// Untrusted text (model answers, judge replies) as Markdown: raw HTML shown as text, markdown-it's link validator,
// links nofollow. Math keeps its characters: TeX spans as written, `*` or `_` between operands (17*20) not emphasis.
import MarkdownIt from 'markdown-it';
import type StateInline from 'markdown-it/lib/rules_inline/state_inline.mjs';

const md = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: true });
// images would make the reader's browser fetch third-party URLs: render them as links instead
md.disable(['image']);
const defaultLink =
  md.renderer.rules.link_open ??
  ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('rel', 'nofollow noopener noreferrer ugc');
  return defaultLink(tokens, idx, options, env, self);
};

/** TeX delimiters, longest first: the closing one must follow in the same paragraph ($…$ on one line). */
const TEX: readonly (readonly [string, string, boolean])[] = [
  ['$$', '$$', true],
  ['\\[', '\\]', true],
  ['\\(', '\\)', true],
  ['$', '$', false],
];

/** A TeX span at the cursor as literal text (no escapes, no emphasis inside). */
function texSpan(state: StateInline, silent: boolean): boolean {
  const { src, pos, posMax } = state;
  for (const [open, close, multiline] of TEX) {
    if (!src.startsWith(open, pos)) continue;
    const end = src.indexOf(close, pos + open.length);
    if (end < 0 || end + close.length > posMax || end === pos + open.length) continue;
    if (!multiline && src.slice(pos, end).includes('\n')) continue;
    if (!silent) state.push('text', '', 0).content = src.slice(pos, end + close.length);
    state.pos = end + close.length;
    return true;
  }
  return false;
}

const OPERAND_BEFORE = /[\p{L}\p{N})\]}.]/u;
const OPERAND_AFTER = /[\p{L}\p{N}([{.]/u;

/** A run of `*` or `_` with an operand right before and after it: an operator, kept as text. */
function operator(state: StateInline, silent: boolean): boolean {
  const { src, pos, posMax } = state;
  const ch = src[pos];
  if ((ch !== '*' && ch !== '_') || pos === 0) return false;
  let end = pos;
  while (end < posMax && src[end] === ch) end++;
  if (!OPERAND_BEFORE.test(src[pos - 1]!) || end >= posMax || !OPERAND_AFTER.test(src[end]!)) return false;
  if (!silent) state.push('text', '', 0).content = src.slice(pos, end);
  state.pos = end;
  return true;
}

md.inline.ruler.before('escape', 'tex_span', texSpan);
md.inline.ruler.before('emphasis', 'operator', operator);

export function markdown(text: string): string {
  return md.render(text);
}
