// Tables that may be wider than the screen scroll inside their own box (`<div class="scroll">`). WCAG asks
// that such a box be reachable by keyboard and named: each becomes a focusable region labelled by its table's
// caption, given an id here so that no view has to invent one (ids are numbered in page order, unique per page).

const BOX = /<div class="scroll">(\s*<table\b[^>]*>\s*)<caption>/g;

/** The page's table boxes as focusable regions named by their captions (`tabindex="0"`, `role="region"`). */
export function tableRegions(html: string): string {
  let n = 0;
  return html.replace(BOX, (_all, table: string) => {
    const id = `table-${++n}`;
    return `<div class="scroll" role="region" tabindex="0" aria-labelledby="${id}">${table}<caption id="${id}">`;
  });
}
