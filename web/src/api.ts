/**
 * Fetching the dashboard's JSON API: same-origin GETs whose answers pass a guard or are refused.
 *
 * Invariant: resolves to null (getJson) or to a failure with its HTTP status (fetchJson) on any
 * failure (network, status, shape), never throws into a component; a component keeps showing
 * what it had.
 */
import { parseJson, type Guard } from './guards.js';

/** An answer, or why there is none: `status` is the HTTP status, 0 for a network error or a bad shape. */
export type Fetched<T> = { ok: true; value: T } | { ok: false; status: number };

export async function fetchJson<T>(path: string, guard: Guard<T>, signal?: AbortSignal): Promise<Fetched<T>> {
  try {
    const res = await fetch(path, {
      headers: { Accept: 'application/json' },
      cache: 'no-store',
      ...(signal ? { signal } : {}),
    });
    if (!res.ok) return { ok: false, status: res.status };
    const value = parseJson(await res.text());
    return guard(value) ? { ok: true, value } : { ok: false, status: 0 };
  } catch {
    return { ok: false, status: 0 };
  }
}

export async function getJson<T>(path: string, guard: Guard<T>, signal?: AbortSignal): Promise<T | null> {
  const r = await fetchJson(path, guard, signal);
  return r.ok ? r.value : null;
}

export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
