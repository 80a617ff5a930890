/**
 * Reading the cells of an answer row and the limits of a query's numbers, shared by the read
 * queries (queries.ts, session-queries.ts).
 *
 * Invariant: a missing or mistyped cell reads as 0 (or '' or null), never as NaN or a throw; a
 * count asked for is a whole number in 0..its limit.
 */
import type { Row } from './window.js';

export const MAX_DAYS = 36_600;
export const MAX_WEEKS = 5_300;
export const MAX_MONTHS = 1_200;
export const MAX_ROWS = 10_000;

// better-sqlite3 binds JS numbers as REAL, so integer arithmetic on them is CAST explicitly.

export const n = (x: unknown): number => (typeof x === 'number' ? x : typeof x === 'bigint' ? Number(x) : 0);
export const s = (x: unknown): string => (typeof x === 'string' ? x : '');
export const nullable = (x: unknown): number | null => (x === null || x === undefined ? null : n(x));

/** UTC `YYYY-MM-DDTHH:MM:SSZ`, the original's timestamp format. */
export function isoSecond(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + 'Z';
}

/** Saved tokens by name, from rows of `key` and `saved`. */
export function toObject(rows: Row[], key: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) out[s(r[key])] = n(r.saved);
  return out;
}

/** A whole number in 0..max (bad input → 0). */
export function clampCount(x: number, max: number): number {
  return Number.isFinite(x) && x > 0 ? Math.min(Math.floor(x), max) : 0;
}
