/**
 * Query-string parsing for the JSON API: each parser returns a value or a message that names
 * the parameter, and the route answers 400 with that message.
 *
 * Invariant: nothing from the query reaches the store unchecked (numbers are bounded integers,
 * enums are from their list, strings are length-limited).
 */

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
