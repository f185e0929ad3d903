// A Markdown table, for every section of the report.

export function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]): string => `| ${cells.map(String).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
