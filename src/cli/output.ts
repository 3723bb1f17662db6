/** How a command prints: a table for people, JSON (one document on stdout) for scripts. */
export interface Output {
  json: boolean;
  write(text: string): void;
}

export type Row = Record<string, string | number | boolean | null | undefined>;

/** Rows as an aligned text table under upper-case headings; `(none)` when there are none. */
export function formatTable(rows: Row[], columns: string[]): string {
  if (rows.length === 0) return '(none)\n';
  const cell = (value: Row[string]) => (value === null || value === undefined || value === '' ? '-' : String(value));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return (
    [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n') +
    '\n'
  );
}

/** Prints `data` as JSON, or the rows as a table (with a closing note, e.g. where the next page starts). */
export function print(out: Output, data: unknown, rows: Row[], columns: string[], note?: string): void {
  if (out.json) {
    out.write(`${JSON.stringify(data, null, 2)}\n`);
    return;
  }
  out.write(formatTable(rows, columns));
  if (note) out.write(`${note}\n`);
}
