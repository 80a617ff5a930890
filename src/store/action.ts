/**
 * The `analytics` action of `hmc_control` (reference §7.7), also behind `hmc analytics --json`.
 * Same forms and JSON as the original, with its bugs fixed (reference §14 F20/F21): a string
 * limit works, a bad one is an error answer (never a throw), day/month default to 30/12 exact
 * calendar windows, unknown scope/period are named errors; adds `by_tool` and the `tool` and
 * `strategy` periods. `day`, `week` and `month` list the days, weeks and months of the window that
 * had a session (issue 17, finding 5: 30 rows, 29 of them zero, told the model nothing); the
 * dashboard's charts keep their empty ones (/api/days). Issue 17, finding 7: any form takes
 * `since` / `until` (UTC days, inclusive); `week`, `model` (priced per model with the cache
 * model), `output` (per tool, kind or shell program: `by=`) and `work` (recalls and re-reads).
 *
 * Invariant: always returns a JSON-able object; failures come back as `{"error": "..."}`.
 */
import type { HmcConfig } from '../config/keys.js';
import type { AnalyticsStore } from './db.js';
import { classify } from './errors.js';
import { costSaved, priceModels, priceProvider } from './pricing.js';
import { reconcile } from './reconcile.js';
import { defaultConfig } from '../config/keys.js';

const DEFAULT_PRICING = defaultConfig().pricing;
import { MAX_DAYS, MAX_MONTHS, MAX_ROWS, MAX_WEEKS } from './queries.js';
import { OUTPUT_BY, type OutputBy } from './views.js';
import { DAY_MS, parseDay, type Window } from './window.js';
import { errorText } from '../core/errors.js';

export const SCOPES = ['global', 'project'] as const;
export const PERIODS = [
  'all',
  'day',
  'week',
  'month',
  'recent',
  'project',
  'tool',
  'strategy',
  'model',
  'output',
  'work',
  'usage',
] as const;
export type Scope = (typeof SCOPES)[number];
export type Period = (typeof PERIODS)[number];
export { OUTPUT_BY };

export const DISABLED_ERROR = 'analytics is disabled (analytics.enabled: false)';

const DEFAULT_LIMIT: Record<Period, number> = {
  all: 0,
  day: 30,
  week: 12,
  month: 12,
  recent: 10,
  project: 10,
  tool: 10,
  strategy: 0,
  model: 0,
  output: 20,
  work: 0,
  usage: 0,
};
const MAX_LIMIT: Record<Period, number> = {
  all: 0,
  day: MAX_DAYS,
  week: MAX_WEEKS,
  month: MAX_MONTHS,
  recent: MAX_ROWS,
  project: MAX_ROWS,
  tool: MAX_ROWS,
  strategy: 0,
  model: 0,
  output: MAX_ROWS,
  work: 0,
  usage: 0,
};

export interface ActionContext {
  /** The session's project path, used when scope=project. */
  project: string;
  /** The price table, for period=model and the cost saved (absent: the defaults). */
  pricing?: HmcConfig['pricing'];
  /** Pins the clock for day/month windows (tests). */
  now?: number;
  /**
   * Only this owner's sessions (engine/session/owner.ts), in every period and scope: a gateway user asking
   * (issue 26, finding 5). Absent: every session (the machine's owner, a CLI session).
   */
  owner?: string;
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
  const shown = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return { error: `limit must be a whole number, got ${quoted(shown)}` };
}

/**
 * `since` and `until` as UTC calendar days (`YYYY-MM-DD`), both inclusive: the sessions started in
 * that range. `echo` is what the answer repeats of them.
 */
export function parseRange(
  since: unknown,
  until: unknown,
): { window: Window; echo: Record<string, string> } | { error: string } {
  const day = (value: unknown, name: string): number | null | { error: string } => {
    if (value === undefined || value === null || value === '') return null;
    const text = String(value).trim();
    const ms = parseDay(text);
    return ms === null ? { error: `${name} must be a calendar day as YYYY-MM-DD, got ${quoted(text)}` } : ms;
  };
  const from = day(since, 'since');
  if (from !== null && typeof from === 'object') return from;
  const to = day(until, 'until');
  if (to !== null && typeof to === 'object') return to;
  if (from !== null && to !== null && from > to) return { error: 'since must not be after until' };
  const window: Window = { ...(from !== null ? { since: from } : {}), ...(to !== null ? { until: to + DAY_MS } : {}) };
  const echo: Record<string, string> = {
    ...(from !== null ? { since: String(since).trim() } : {}),
    ...(to !== null ? { until: String(until).trim() } : {}),
  };
  return { window, echo };
}

/** The action's arguments, checked: what it will answer, or the error naming what is wrong. */
export interface AnalyticsArgs {
  scope: Scope;
  period: Period;
  /** The rows asked for (0: the period's default), and the most the period lists. */
  asked: number;
  limit: number;
  range: { window: Window; echo: Record<string, string> };
  by: string;
}

/**
 * Checks the arguments without a database, so `hmc analytics --period yearly` is the same usage
 * error with or without one (issue 27, finding 6: exit 0 without a database, 2 with one).
 */
export function checkAnalyticsArgs(args: Record<string, unknown>): AnalyticsArgs | { error: string } {
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
  const range = parseRange(args.since, args.until);
  if ('error' in range) return range;
  const by = word(args.by, 'tool');
  if (p === 'output' && !(OUTPUT_BY as readonly string[]).includes(by))
    return { error: `unknown by ${quoted(by)} (allowed: ${OUTPUT_BY.join(', ')})` };
  return { scope: scope as Scope, period: p, asked: parsed, limit, range, by };
}

/** The limit asked for when the period lists fewer rows at most (`limit=1000000` → 10,000), else null. */
export function limitCut(a: AnalyticsArgs): { asked: number; max: number } | null {
  return a.asked > a.limit && MAX_LIMIT[a.period] > 0 ? { asked: a.asked, max: a.limit } : null;
}

export function analyticsAction(
  store: AnalyticsStore | null,
  args: Record<string, unknown>,
  ctx: ActionContext,
): Record<string, unknown> {
  if (store === null) return { error: DISABLED_ERROR };
  const checked = checkAnalyticsArgs(args);
  if ('error' in checked) return checked;
  const { scope, period: p, limit, range, by } = checked;
  const project = scope === 'project' ? ctx.project : undefined;
  const owned: Window = ctx.owner !== undefined ? { owner: ctx.owner } : {};
  const w: Window = { ...(project !== undefined ? { project } : {}), ...range.window, ...owned };
  const head = { scope, period: p, project: project ?? '', ...range.echo };
  const pricing = ctx.pricing;
  try {
    const dated = range.window.since !== undefined || range.window.until !== undefined;
    switch (p) {
      case 'day':
        return {
          ...head,
          ...(dated ? {} : { days: limit }),
          rows: store.byDay({ ...w, days: limit, now: ctx.now }).filter((r) => r.sessions > 0),
        };
      case 'week':
        return {
          ...head,
          ...(dated ? {} : { weeks: limit }),
          rows: store.byWeek({ ...w, weeks: limit, now: ctx.now }).filter((r) => r.sessions > 0),
        };
      case 'month':
        return {
          ...head,
          ...(dated ? {} : { months: limit }),
          rows: store.byMonth({ ...w, months: limit, now: ctx.now }).filter((r) => r.sessions > 0),
        };
      case 'recent':
        return { ...head, rows: store.recent({ ...w, limit }) };
      case 'project':
        // Like the original: a ranking of every project, whatever the scope (a gateway user's: theirs only).
        return {
          scope: 'global',
          period: 'project',
          ...range.echo,
          rows: store.byProject({ ...range.window, ...owned, limit }),
        };
      case 'tool':
        return { ...head, rows: store.byTool({ ...w, limit }) };
      case 'strategy':
        return { ...head, rows: store.byStrategy(w) };
      case 'model': {
        if (!pricing) return { ...head, rows: store.byModel(w) };
        const rows = priceModels(store.byModel(w), pricing);
        // The provider's own usage (context-engine hosts), apart from HMC's estimate: never added to it.
        const provider = priceProvider(store.providerByModel(w), pricing);
        return { ...head, rows, cost_saved: costSaved(rows, pricing), ...(provider.length > 0 ? { provider } : {}) };
      }
      case 'output':
        return { ...head, by, rows: store.byOutput({ ...w, by: by as OutputBy, limit }) };
      case 'work':
        return { ...head, ...store.work(w) };
      case 'usage': {
        // Reconcile (docs/analytics.md): one session's calls (`session`), else the window's.
        const session = typeof args.session === 'string' && args.session !== '' ? args.session : null;
        // A gateway user reads only their own sessions' calls (issue 26, finding 5), a named one too.
        const calls =
          session === null
            ? store.usageCalls(w)
            : ctx.owner === undefined
              ? (store.usage(session)?.calls ?? [])
              : store.usageCalls({ owner: ctx.owner }).filter((c) => c.session_id === session);
        const answer = { ...head, ...(session !== null ? { session } : {}) };
        if (calls.length === 0)
          return {
            ...answer,
            calls: 0,
            note: "no provider usage recorded here (HMC stores it from Hermes' post_api_request hook, or as its context engine)",
          };
        return { ...answer, ...reconcile(calls, pricing ?? DEFAULT_PRICING, store.hostPrices()) };
      }
      case 'all': {
        const summary = store.summary(w);
        return pricing
          ? { ...head, ...summary, cost_saved: costSaved(priceModels(store.byModel(w), pricing), pricing) }
          : { ...head, ...summary };
      }
    }
  } catch (err) {
    const message = errorText(err);
    // A damaged file is a fact about the file, not a bad request: callers report it as such.
    if (classify(err) === 'corrupt')
      return {
        error: `analytics database is damaged (${message}); it is moved aside on the next write`,
        damaged: true,
      };
    return { error: `analytics query failed: ${message}` };
  }
}
