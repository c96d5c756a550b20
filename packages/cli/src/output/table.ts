/** A column of `renderTable`. */
export interface Column {
  header: string;
  /** `right` for figures. Default `left`. */
  align?: 'left' | 'right';
}

/** Renders rows as aligned text columns under a header, two spaces apart, trailing spaces trimmed. */
export function renderTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((column, i) => Math.max(column.header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    columns
      .map((column, i) => (column.align === 'right' ? (cells[i] ?? '').padStart(widths[i]!) : (cells[i] ?? '').padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((column) => column.header)), ...rows.map(line)].join('\n');
}

/** Renders `label  value` lines with the labels aligned. */
export function renderFields(fields: readonly (readonly [string, string])[]): string {
  const width = Math.max(...fields.map(([label]) => label.length));
  return fields.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
}
