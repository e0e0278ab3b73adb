/** RFC 4180 CSV of flat rows: the header is `columns`; quoted when needed; formula-leading cells defused. */
export function toCsv(rows: readonly object[], columns: readonly string[]): string {
  const cell = (v: unknown): string => {
    if (v === null || v === undefined) return '';
    let s = typeof v === 'object' ? JSON.stringify(v) : String(v);
    // spreadsheet formula injection: prefix a quote to text cells that a spreadsheet would evaluate
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = [columns.join(',')];
  for (const r of rows) lines.push(columns.map((c) => cell((r as Record<string, unknown>)[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
