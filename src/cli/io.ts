/** Small I/O helpers shared by the subcommands. */

/** All of stdin as UTF-8 (empty when stdin is a terminal with nothing piped). */
export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** `1 turn`, `3 turns`: a count with its noun in the right number. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${num(n)} ${n === 1 ? singular : plural}`;
}

/** A right-aligned number with thousands separators. */
export function num(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Renders rows as an aligned text table (first column left, others right). */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
