/**
 * Fetching the dashboard's JSON API: same-origin GETs whose answers pass a guard or are refused.
 *
 * Invariant: resolves to null on any failure (network, status, shape), never throws into a
 * component; a component keeps showing what it had.
 */
import { parseJson, type Guard } from './guards.js';

export async function getJson<T>(path: string, guard: Guard<T>, signal?: AbortSignal): Promise<T | null> {
  try {
    const res = await fetch(path, { headers: { Accept: 'application/json' }, cache: 'no-store', ...(signal ? { signal } : {}) });
    if (!res.ok) return null;
    const value = parseJson(await res.text());
    return guard(value) ? value : null;
  } catch {
    return null;
  }
}

export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
