/**
 * The `analytics` action of `hmc_control` (reference §7.7), also behind `hmc analytics --json`.
 * Same forms and JSON as the original, with its bugs fixed (reference §14 F20/F21): a string
 * limit works, a bad one is an error answer (never a throw), day/month default to 30/12 exact
 * calendar windows, unknown scope/period are named errors; adds `by_tool` and the `tool` and
 * `strategy` periods. `day` and `month` list the days and months of the window that had a session
 * (issue 17, finding 5: 30 rows, 29 of them zero, told the model nothing); the dashboard's chart
 * keeps its empty days (/api/days).
 *
 * Invariant: always returns a JSON-able object; failures come back as `{"error": "..."}`.
 */
import type { AnalyticsStore } from './db.js';
import { classify } from './errors.js';
import { MAX_DAYS, MAX_MONTHS, MAX_ROWS } from './queries.js';
import { errorText } from '../core/errors.js';

export const SCOPES = ['global', 'project'] as const;
export const PERIODS = ['all', 'day', 'month', 'recent', 'project', 'tool', 'strategy'] as const;
export type Scope = (typeof SCOPES)[number];
export type Period = (typeof PERIODS)[number];

export const DISABLED_ERROR = 'analytics is disabled (analytics.enabled: false)';

const DEFAULT_LIMIT: Record<Period, number> = { all: 0, day: 30, month: 12, recent: 10, project: 10, tool: 10, strategy: 0 };
const MAX_LIMIT: Record<Period, number> = {
  all: 0,
  day: MAX_DAYS,
  month: MAX_MONTHS,
  recent: MAX_ROWS,
  project: MAX_ROWS,
  tool: MAX_ROWS,
  strategy: 0,
};

export interface ActionContext {
  /** The session's project path, used when scope=project. */
  project: string;
  /** Pins the clock for day/month windows (tests). */
  now?: number;
}

/** A user's value in an error message, cut at 60 characters (a 100 KB value is not echoed back). */
function quoted(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

function word(value: unknown, fallback: string): string {
  if (value === undefined || value === null) return fallback;
  const text = String(value).trim().toLowerCase();
  return text === '' ? fallback : text;
}

/**
 * `limit` as a whole number: numbers and digit strings are accepted; absent, empty or 0 mean the
 * period's default (as in the original); anything else is an error message.
 */
export function parseLimit(value: unknown): number | { error: string } {
  if (value === undefined || value === null || value === '') return 0;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\s*\d+\s*$/.test(value)) return Number(value.trim());
  const shown = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return { error: `limit must be a whole number, got ${quoted(shown)}` };
}

export function analyticsAction(
  store: AnalyticsStore | null,
  args: Record<string, unknown>,
  ctx: ActionContext,
): Record<string, unknown> {
  if (store === null) return { error: DISABLED_ERROR };
  const scope = word(args.scope, 'global');
  if (!(SCOPES as readonly string[]).includes(scope)) {
    return { error: `unknown scope ${quoted(scope)} (allowed: ${SCOPES.join(', ')})` };
  }
  const period = word(args.period, 'all');
  if (!(PERIODS as readonly string[]).includes(period)) {
    return { error: `unknown period ${quoted(period)} (allowed: ${PERIODS.join(', ')})` };
  }
  const p = period as Period;
  const parsed = parseLimit(args.limit);
  if (typeof parsed !== 'number') return parsed;
  const limit = Math.min(parsed || DEFAULT_LIMIT[p], MAX_LIMIT[p] || Number.MAX_SAFE_INTEGER);
  const project = scope === 'project' ? ctx.project : undefined;
  const head = { scope, period: p, project: project ?? '' };
  try {
    switch (p) {
      case 'day':
        return { ...head, days: limit, rows: store.byDay({ days: limit, project, now: ctx.now }).filter((r) => r.sessions > 0) };
      case 'month':
        return { ...head, months: limit, rows: store.byMonth({ months: limit, project, now: ctx.now }).filter((r) => r.sessions > 0) };
      case 'recent':
        return { ...head, rows: store.recent({ limit, project }) };
      case 'project':
        // Like the original: a ranking of every project, whatever the scope.
        return { scope: 'global', period: 'project', rows: store.byProject({ limit }) };
      case 'tool':
        return { ...head, rows: store.byTool({ project, limit }) };
      case 'strategy':
        return { ...head, rows: store.byStrategy({ project }) };
      case 'all':
        return { ...head, ...store.summary({ project }) };
    }
  } catch (err) {
    const message = errorText(err);
    // A damaged file is a fact about the file, not a bad request: callers report it as such.
    if (classify(err) === 'corrupt') return { error: `analytics database is damaged (${message}); it is moved aside on the next write`, damaged: true };
    return { error: `analytics query failed: ${message}` };
  }
}
