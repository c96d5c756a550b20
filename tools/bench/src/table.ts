/** A column of a text table. */
export interface Column {
  header: string;
  /** Numbers read best right-aligned. Default left. */
  align?: 'left' | 'right';
}

/** A plain-text table: header, a rule, then the rows; every column as wide as its widest cell. */
export function renderTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((column, i) => Math.max(column.header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    columns
      .map((column, i) => {
        const cell = cells[i] ?? '';
        return column.align === 'right' ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!);
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The same table as Markdown, for docs. */
export function renderMarkdownTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const rule = columns.map((c) => (c.align === 'right' ? '---:' : '---'));
  const line = (cells: readonly string[]): string => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(columns.map((c) => c.header)), `| ${rule.join(' | ')} |`, ...rows.map(line)].join('\n');
}

/** A number with thousands separators and `digits` decimals; `-` for null or NaN. */
export function formatNumber(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '-';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
