/**
 * CSV files of what the page shows (sessions, projects, per day and month, per strategy and
 * tool, per turn), built in the browser: RFC 4180 text, UTF-8 with a byte order mark so
 * spreadsheet apps read names in any script correctly.
 *
 * Invariant: a field holding a comma, a double quote, CR or LF is quoted, its quotes doubled;
 * records end with CRLF. A text field starting with `=`, `+`, `-`, `@`, tab or CR gets a leading
 * `'` so a spreadsheet shows it as text instead of running it as a formula (tool names, paths
 * and ids come from the agent's world). Numbers are written as numbers, never prefixed; a number
 * that is not finite, null and undefined are empty fields. Pure: no DOM.
 */

export type Cell = string | number | boolean | null | undefined;

export interface CsvTable {
  header: string[];
  rows: Cell[][];
}

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;
export const BOM = '\uFEFF';

/** One field, quoted and defused as needed. */
export function csvField(v: Cell): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  const text = FORMULA_START.test(v) ? `'${v}` : v;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The whole file's text (without the byte order mark): the header, then one record per row. */
export function toCsv(table: CsvTable): string {
  return [table.header, ...table.rows].map((r) => `${r.map(csvField).join(',')}\r\n`).join('');
}

/** The file as downloaded: UTF-8, the byte order mark first. */
export function csvBlob(table: CsvTable): Blob {
  return new Blob([BOM, toCsv(table)], { type: 'text/csv;charset=utf-8' });
}

/**
 * A file name from its parts: `hmc-sessions-2026-11-26.csv`. Each part is reduced to ASCII
 * letters, digits and single dashes (no path separator, dot or anything a file system refuses), at
 * most 60 characters.
 */
export function csvFileName(parts: string[], date = new Date()): string {
  const day = `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
  const clean = parts
    .map((p) =>
      p
        .normalize('NFKD')
        .replace(/[^A-Za-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 60)
        .replace(/-+$/, ''),
    )
    .filter(Boolean);
  return `${['hmc', ...clean, day].join('-')}.csv`;
}

/** Milliseconds since the epoch as an ISO 8601 UTC time (`2026-11-25T07:56:03Z`), empty when unknown. */
export function isoTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms <= 0) return '';
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A share (0..1) as a percentage with at most two decimals: 0.28345 → 28.35. */
export function pct(fraction: number): number {
  return Number.isFinite(fraction) ? Math.round(fraction * 10000) / 100 : Number.NaN;
}
