/** The most characters a page shows of one text (an answer, a judge's reply, a prompt): 100,000. */
export const MAX_PAGE_TEXT = 100_000;

/** Where a page's clipped texts say the whole text is: the JSON link the matches page offers. */
export const WHOLE_TEXT_JSON = 'the JSON link above has the whole text';

/**
 * A text cut to `max` characters for a page, with a note of what was left out and `whole`: where the whole text is
 * (the JSON endpoints keep it). Never splits a surrogate pair.
 */
export function clip(text: string, max = MAX_PAGE_TEXT, whole = WHOLE_TEXT_JSON): string {
  if (text.length <= max) return text;
  let end = max;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${text.slice(0, end)}\n\n[… ${(text.length - end).toLocaleString('en-US')} more characters not shown; ${whole}]`;
}
