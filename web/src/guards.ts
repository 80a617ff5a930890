/**
 * Tiny runtime guards for everything the page receives (API answers and SSE data): a schema is
 * written once and its TypeScript type is derived from it, so nothing parsed is ever cast.
 *
 * Invariant: a value that fails its guard is ignored by the caller, never half-used.
 */
export type Guard<T> = (v: unknown) => v is T;
export type Infer<G> = G extends Guard<infer T> ? T : never;

export const num: Guard<number> = (v): v is number => typeof v === 'number' && Number.isFinite(v);
export const str: Guard<string> = (v): v is string => typeof v === 'string';
export const bool: Guard<boolean> = (v): v is boolean => typeof v === 'boolean';

export function nullable<T>(g: Guard<T>): Guard<T | null> {
  return (v): v is T | null => v === null || g(v);
}
export function optional<T>(g: Guard<T>): Guard<T | undefined> {
  return (v): v is T | undefined => v === undefined || g(v);
}
export function arrayOf<T>(g: Guard<T>): Guard<T[]> {
  return (v): v is T[] => Array.isArray(v) && v.every(g);
}
export function recordOf<T>(g: Guard<T>): Guard<Record<string, T>> {
  return (v): v is Record<string, T> => isPlain(v) && Object.values(v).every(g);
}
export function literal<T extends string>(...values: T[]): Guard<T> {
  return (v): v is T => typeof v === 'string' && values.some((x) => x === v);
}
export function shape<S extends Record<string, Guard<unknown>>>(s: S): Guard<{ [K in keyof S]: Infer<S[K]> }> {
  return (v): v is { [K in keyof S]: Infer<S[K]> } => isPlain(v) && Object.entries(s).every(([k, g]) => g(v[k]));
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON.parse that answers undefined instead of throwing. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
