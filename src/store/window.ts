/**
 * Which sessions a query covers (its window): a project and everything under it, and a range of
 * start times (issue 17, finding 7: since / until), plus the statements prepared once per shape of
 * window and the calendar arithmetic of days, weeks and months.
 *
 * Invariant: an owner filter keeps only that owner's sessions, in every query built here; a project filter matches the exact path or anything under it, compared as a byte
 * range, so `*`, `?`, `[`, `%` and `_` in paths are ordinary characters; `since` is inclusive and
 * `until` exclusive (milliseconds, a session belongs to the moment it started); weeks start on
 * Monday, days and months are UTC calendar ones.
 */
import type Database from 'better-sqlite3';

export const DAY_MS = 86_400_000;

/** The sessions a query covers; every field optional (absent: no limit on it). */
export interface Window {
  /** A project path: that folder and everything under it. */
  project?: string;
  /** Sessions started at or after this time (ms since the epoch). */
  since?: number;
  /** Sessions started before this time (ms since the epoch). */
  until?: number;
  /**
   * Only this owner's sessions (engine/session/owner.ts: `platform:user`), for a gateway user asking;
   * absent: every session (the machine's owner).
   */
  owner?: string;
}

export type Params = Record<string, string | number>;
export type Row = Record<string, unknown>;

/** Named parameters for the project filter `(project_path = @p OR @lo <= project_path < @hi)`. */
export function projectParams(project: string): Params {
  const p = project.length > 1 ? project.replace(/[/\\]+$/, '') : project;
  const sep = p.includes('\\') && !p.includes('/') ? '\\' : '/';
  // An empty project (unknown cwd) matches only sessions with an unknown cwd.
  const lo = p === '' ? '' : p.endsWith(sep) ? p : p + sep;
  const hi = p === '' ? '' : lo.slice(0, -1) + String.fromCharCode(sep.charCodeAt(0) + 1);
  return { p, lo, hi };
}

/** The conditions of `w` on the sessions table (`alias.` before each column when given), joined by AND. */
function conditions(w: Window, alias: string): string[] {
  const c = alias ? `${alias}.` : '';
  const out: string[] = [];
  if (w.project !== undefined)
    out.push(`(${c}project_path = @p OR (${c}project_path >= @lo AND ${c}project_path < @hi))`);
  if (w.since !== undefined) out.push(`${c}started_at >= @since`);
  if (w.until !== undefined) out.push(`${c}started_at < @until`);
  if (w.owner !== undefined) out.push(`${c}owner = @owner`);
  return out;
}

/** The parameters `w`'s conditions bind. */
export function windowParams(w: Window): Params {
  return {
    ...(w.project !== undefined ? projectParams(w.project) : {}),
    ...(w.since !== undefined ? { since: w.since } : {}),
    ...(w.until !== undefined ? { until: w.until } : {}),
    ...(w.owner !== undefined ? { owner: w.owner } : {}),
  };
}

/**
 * A statement over the sessions table prepared once per shape of window (project, since, until
 * each given or not): `sql(where)` builds it, `where(and, alias)` giving ` WHERE …` (or ` AND …`
 * after a condition of its own) or nothing.
 */
export class Filtered {
  private readonly cache = new Map<string, Database.Statement>();

  constructor(
    private readonly db: Database.Database,
    private readonly sql: (where: (and: boolean, alias?: string) => string) => string,
  ) {}

  rows(w: Window, params: Params = {}): Row[] {
    return this.statement(w).all({ ...params, ...windowParams(w) }) as Row[];
  }

  private statement(w: Window): Database.Statement {
    const key = `${w.project !== undefined}${w.since !== undefined}${w.until !== undefined}${w.owner !== undefined}`;
    let st = this.cache.get(key);
    if (!st) {
      st = this.db.prepare(
        this.sql((and, alias = '') => {
          const parts = conditions(w, alias);
          return parts.length === 0 ? '' : `${and ? ' AND ' : ' WHERE '}${parts.join(' AND ')}`;
        }),
      );
      this.cache.set(key, st);
    }
    return st;
  }
}

/** A window without its project (`project` undefined stays undefined). */
export function only(w: Window, keys: readonly (keyof Window)[]): Window {
  const out: Window = {};
  for (const k of keys) if (w[k] !== undefined) (out as Record<string, unknown>)[k] = w[k];
  return out;
}

export const dayStart = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS;

/** The Monday (UTC) of the week holding `ms`. 1970-01-01 was a Thursday. */
export function weekStart(ms: number): number {
  const day = dayStart(ms);
  const weekday = (Math.floor(day / DAY_MS) + 3) % 7; // 0 = Monday
  return day - weekday * DAY_MS;
}

export const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * `YYYY-MM-DD` as the UTC day's start (ms), or null when it is not a real calendar day.
 * `2026-02-30` is refused (Date would roll it over into March).
 */
export function parseDay(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (!m) return null;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isFinite(ms) && isoDay(ms) === text.trim() ? ms : null;
}
