// Untrusted text (model answers, judge replies) as Markdown: markdown-it with raw HTML off (any tag is
// shown as text), its link validator (no javascript:, vbscript:, file:, most data: URLs), and links
// marked nofollow/noopener/noreferrer. The page's CSP is the second line of defence.
import MarkdownIt from 'markdown-it';

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

export function markdown(text: string): string {
  return md.render(text);
}
