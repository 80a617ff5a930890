/**
 * Aligned text for people: the tables and label/value blocks every human-facing form uses (`hmc
 * analytics`, `hmc control …`, `/hmc …`, `hmc doctor`), so every command lines up the same way.
 *
 * Invariant: pure; a column whose every non-empty cell is a number (digits, separators, a sign, a
 * `%`) is right-aligned, every other column left-aligned; no line ends in spaces.
 */

const NUMBER = /^-?[0-9][0-9,.]*%?$/;

/** A whole number with thousands separators: 12,345. */
export function num(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** An aligned table: the header, a rule of dashes, the rows; number columns right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = header.map(
    (_, i) =>
      rows.some((r) => (r[i] ?? '') !== '') && rows.every((r) => (r[i] ?? '') === '' || NUMBER.test(r[i] ?? '')),
  );
  const line = (cells: readonly string[]): string =>
    header
      .map((_, i) => (numeric[i] ? (cells[i] ?? '').padStart(widths[i]!) : (cells[i] ?? '').padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Label/value lines with the values in one column: `manual mode   off`. */
export function keyValues(rows: readonly (readonly [string, string])[], indent = ''): string {
  const width = Math.max(0, ...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${indent}${k.padEnd(width)}  ${v}`.trimEnd()).join('\n');
}
