// WCAG asks that a scrolling box (`<div class="scroll">`) be reachable by keyboard and named: each becomes a
// focusable region labelled by its table's caption, numbered here so that no view has to invent an id.

const BOX = /<div class="scroll">(\s*<table\b[^>]*>\s*)<caption>/g;

/** The page's table boxes as focusable regions named by their captions (`tabindex="0"`, `role="region"`). */
export function tableRegions(html: string): string {
  let n = 0;
  return html.replace(BOX, (_all, table: string) => {
    const id = `table-${++n}`;
    return `<div class="scroll" role="region" tabindex="0" aria-labelledby="${id}">${table}<caption id="${id}">`;
  });
}
