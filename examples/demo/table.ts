/**
 * Plain-text and markdown tables for the demo's summaries (no dependency for forty lines of padding).
 */

export type Align = 'left' | 'right';

export interface Column {
  readonly title: string;
  readonly align?: Align;
}

const pad = (text: string, width: number, align: Align) =>
  align === 'right' ? text.padStart(width) : text.padEnd(width);

/** A fixed-width table for a terminal: header, rule, rows. */
export function textTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((column, index) =>
    Math.max(column.title.length, ...rows.map((row) => (row[index] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    columns
      .map((column, index) => pad(cells[index] ?? '', widths[index] ?? 0, column.align ?? 'left'))
      .join('  ')
      .trimEnd();
  return [
    line(columns.map((column) => column.title)),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...rows.map(line),
  ].join('\n');
}

/** A GitHub-flavoured markdown table. */
export function markdownTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const escapeCell = (cell: string) => cell.replaceAll('|', '\\|');
  const header = `| ${columns.map((column) => escapeCell(column.title)).join(' | ')} |`;
  const rule = `| ${columns.map((column) => (column.align === 'right' ? '---:' : '---')).join(' | ')} |`;
  const body = rows.map(
    (row) => `| ${columns.map((_, index) => escapeCell(row[index] ?? '')).join(' | ')} |`,
  );
  return [header, rule, ...body].join('\n');
}

/** `512 ms`, or `-` for a host with fewer than two requests (no gap to measure). */
export function formatMs(ms: number): string {
  return Number.isFinite(ms) ? `${Math.round(ms)} ms` : '-';
}
