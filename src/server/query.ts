/**
 * Query-string parsing for the JSON API: each parser returns a value or a message that names
 * the parameter, and the route answers 400 with that message.
 *
 * Invariant: nothing from the query reaches the store unchecked (numbers are bounded integers,
 * enums are from their list, strings are length-limited).
 */
import { DAY_MS, parseDay, type Window } from '../store/window.js';

export class QueryError extends Error {}

export function intParam(q: URLSearchParams, name: string, def: number, min: number, max: number): number {
  const raw = q.get(name);
  if (raw === null || raw === '') return def;
  if (!/^\d+$/.test(raw)) throw new QueryError(`${name} must be a whole number from ${min} to ${max}`);
  const n = Number(raw);
  if (n < min || n > max) throw new QueryError(`${name} must be a whole number from ${min} to ${max}`);
  return n;
}

export function enumParam<T extends string>(q: URLSearchParams, name: string, allowed: readonly T[], def: T): T {
  const raw = q.get(name);
  if (raw === null || raw === '') return def;
  const hit = allowed.find((a) => a === raw);
  if (hit === undefined) throw new QueryError(`${name} must be one of ${allowed.join(', ')}`);
  return hit;
}

export function textParam(q: URLSearchParams, name: string, maxLength: number): string | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw.length > maxLength) throw new QueryError(`${name} must be at most ${maxLength} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(raw)) throw new QueryError(`${name} must not contain control characters`);
  return raw;
}

/** The longest date range a query takes (100 years of days). */
const MAX_RANGE_DAYS = 36_600;

/**
 * The window of sessions a query names: `project`, and `since` / `until` as `YYYY-MM-DD` UTC days,
 * both inclusive (`until=2026-11-26` takes that whole day). A bad day or `since` after `until` is a
 * QueryError naming the parameter.
 */
export function windowParam(q: URLSearchParams): Window {
  const project = textParam(q, 'project', 4096);
  const day = (name: string): number | undefined => {
    const raw = textParam(q, name, 10);
    if (raw === undefined) return undefined;
    const ms = parseDay(raw);
    if (ms === null) throw new QueryError(`${name} must be a calendar day as YYYY-MM-DD, got ${JSON.stringify(raw)}`);
    return ms;
  };
  const since = day('since');
  const last = day('until');
  if (since !== undefined && last !== undefined && since > last) throw new QueryError('since must not be after until');
  if (since !== undefined && last !== undefined && (last - since) / DAY_MS >= MAX_RANGE_DAYS)
    throw new QueryError(`since to until must span at most ${MAX_RANGE_DAYS} days`);
  return {
    ...(project !== undefined ? { project } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(last !== undefined ? { until: last + DAY_MS } : {}),
  };
}

/** A calendar view's window and unit count: `since`/`until` (then the count is ignored), else the last `name` units. */
export function calendarParam(
  q: URLSearchParams,
  name: string,
  def: number,
  max: number,
): { window: Window; count: number } {
  return { window: windowParam(q), count: intParam(q, name, def, 1, max) };
}
