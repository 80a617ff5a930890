/**
 * The read side of the analytics store: every statement prepared once per shape of window
 * (window.ts: a project, since, until), the small amount of shaping the answers need, and what
 * each query answers while there is no database. The store (db.ts) is these queries plus the writes; the dashboard
 * reads them as they are (server/store-reader.ts), so a new chart's query is written here once.
 *
 * Invariant: windows are exact UTC calendar days/months ending at `now` (no N+1); a project
 * filter matches the exact path or anything under it, compared as a byte range, so `*`, `?`, `[`,
 * `%` and `_` in paths are ordinary characters.
 */
import type Database from 'better-sqlite3';
import { clampCount, isoSecond, MAX_DAYS, MAX_MONTHS, MAX_ROWS, MAX_WEEKS, n, nullable, s, toObject } from './cells.js';
import { UsageQueries, type SessionUsage } from './usage.js';
import {
  pct,
  type DayRow,
  type MonthRow,
  type ProjectRow,
  type RecentRow,
  type SessionDetail,
  type SessionRow,
  type SessionsQuery,
  type Summary,
  type WeekRow,
} from './rows.js';
import { SESSION_COLUMNS, SessionQueries } from './session-queries.js';
import { EMPTY_WORK, ViewQueries } from './views.js';
import { DAY_MS, dayStart, Filtered, isoDay, only, weekStart, type Row, type Window } from './window.js';

export { projectParams } from './window.js';
export { clampCount, isoSecond, MAX_DAYS, MAX_MONTHS, MAX_ROWS, MAX_WEEKS } from './cells.js';

/** A query's window may end at a pinned time (tests); else the store's clock. */
interface Clocked {
  now?: number;
}

/** A calendar view: the last `count` units ending now, or the units from `since` to `until`. */
type Calendar = Window & Clocked;

export class Queries {
  private readonly totals: Filtered;
  private readonly strategies: Filtered;
  private readonly tools: Filtered;
  private readonly rangedStrategies: Filtered;
  private readonly rangedTools: Filtered;
  private readonly days: Filtered;
  private readonly recentRows: Filtered;
  private readonly projects: Filtered;
  private readonly sessionQ: SessionQueries;
  private readonly views: ViewQueries;
  private readonly usageQ: UsageQueries;

  constructor(
    db: Database.Database,
    protected readonly clock: () => number = Date.now,
  ) {
    this.totals = new Filtered(
      db,
      (w) => `SELECT COUNT(*) AS sessions, COALESCE(SUM(saved), 0) AS saved,
      COALESCE(SUM(input_raw), 0) AS input, COALESCE(SUM(model_calls), 0) AS calls,
      COALESCE(SUM(CASE WHEN model_calls = 0 AND input_raw > 0 THEN 1 ELSE 0 END), 0) AS uncounted FROM sessions${w(false)}`,
    );
    // The running totals answer per project without scanning history; a date range sums the sessions in it.
    this.strategies = new Filtered(
      db,
      (w) => `SELECT strategy, SUM(saved) AS saved FROM strategy_totals${w(false)}
      GROUP BY strategy HAVING SUM(saved) > 0 ORDER BY saved DESC, strategy`,
    );
    this.tools = new Filtered(
      db,
      (w) => `SELECT tool, SUM(saved) AS saved FROM tool_totals${w(false)}
      GROUP BY tool HAVING SUM(saved) > 0 ORDER BY saved DESC, tool LIMIT @limit`,
    );
    this.rangedStrategies = new Filtered(
      db,
      (w) => `SELECT x.strategy AS strategy, SUM(x.saved) AS saved FROM session_strategy x
      JOIN sessions s ON s.id = x.session_id${w(false, 's')} GROUP BY x.strategy HAVING SUM(x.saved) > 0 ORDER BY saved DESC, strategy`,
    );
    this.rangedTools = new Filtered(
      db,
      (w) => `SELECT x.tool AS tool, SUM(x.saved) AS saved FROM session_tool x
      JOIN sessions s ON s.id = x.session_id${w(false, 's')} GROUP BY x.tool HAVING SUM(x.saved) > 0 ORDER BY saved DESC, tool LIMIT @limit`,
    );
    this.days = new Filtered(
      db,
      (w) => `SELECT CAST((started_at - @start) / ${DAY_MS} AS INTEGER) AS d, SUM(saved) AS saved,
      SUM(input_raw) AS input, COUNT(*) AS sessions FROM sessions
      WHERE started_at >= @start AND started_at < @end${w(true)} GROUP BY d`,
    );
    this.recentRows = new Filtered(
      db,
      (w) => `SELECT ${SESSION_COLUMNS} FROM sessions${w(false)}
      ORDER BY started_at DESC, id LIMIT @limit`,
    );
    this.projects = new Filtered(
      db,
      (w) => `SELECT project_path, SUM(saved) AS saved, SUM(input_raw) AS input,
      COUNT(*) AS sessions FROM sessions${w(false)} GROUP BY project_path ORDER BY saved DESC, project_path LIMIT @limit`,
    );
    this.sessionQ = new SessionQueries(db);
    this.views = new ViewQueries(db);
    this.usageQ = new UsageQueries(db);
  }

  /** The provider's usage of the session's model calls (context-engine hosts; null when none was reported). */
  usage(sessionId: string): SessionUsage | null {
    return this.usageQ.usage(sessionId);
  }

  summary(q: Window = {}): Summary {
    const t = this.totals.rows(q)[0] ?? {};
    const saved = n(t.saved);
    const input = n(t.input);
    return {
      total_saved: saved,
      total_sessions: n(t.sessions),
      total_input: input,
      total_sent: input - saved,
      total_output: input - saved,
      savings_pct: pct(saved, input),
      model_calls: n(t.calls),
      sessions_without_model_calls: n(t.uncounted),
      by_strategy: toObject(this.byStrategy(q), 'strategy'),
      by_tool: toObject(this.byTool({ ...q, limit: MAX_ROWS }), 'tool'),
    };
  }

  byStrategy(q: Window = {}): { strategy: string; saved: number }[] {
    const rows = ranged(q) ? this.rangedStrategies.rows(q) : this.strategies.rows(projectOnly(q));
    return rows.map((r) => ({ strategy: s(r.strategy), saved: n(r.saved) }));
  }

  byTool(q: Window & { limit?: number } = {}): { tool: string; saved: number }[] {
    const { limit, ...w } = q;
    const params = { limit: clampCount(limit ?? MAX_ROWS, MAX_ROWS) };
    const rows = ranged(w) ? this.rangedTools.rows(w, params) : this.tools.rows(projectOnly(w), params);
    return rows.map((r) => ({ tool: s(r.tool), saved: n(r.saved) }));
  }

  /** The last `days` UTC days ending today, or the days from `since` to `until` (each day listed, empty ones too). */
  byDay(q: Calendar & { days?: number }): DayRow[] {
    const { start, count } = this.calendar(q, q.days ?? 30, MAX_DAYS, dayStart, (t) => t - DAY_MS);
    const found = this.dayBuckets(q, start, start + count * DAY_MS);
    const out: DayRow[] = [];
    for (let i = count - 1; i >= 0; i--) {
      const r = found.get(i);
      out.push({ day: isoDay(start + i * DAY_MS), saved: n(r?.saved), input: n(r?.input), sessions: n(r?.sessions) });
    }
    return out;
  }

  /** The last `weeks` weeks (Monday to Sunday, UTC) ending with this one, or those from `since` to `until`; newest first. */
  byWeek(q: Calendar & { weeks?: number }): WeekRow[] {
    const week = 7 * DAY_MS;
    const { start, count } = this.calendar(q, q.weeks ?? 12, MAX_WEEKS, weekStart, (t) => t - week);
    const out: WeekRow[] = [];
    for (let i = count - 1; i >= 0; i--) out.push({ week: isoDay(start + i * week), saved: 0, input: 0, sessions: 0 });
    for (const [d, r] of this.dayBuckets(q, start, start + count * week)) {
      const row = out[count - 1 - Math.floor(d / 7)];
      if (!row) continue;
      row.saved += n(r.saved);
      row.input += n(r.input);
      row.sessions += n(r.sessions);
    }
    return out;
  }

  /** The last `months` calendar months ending with this one, or those from `since` to `until`; newest first. */
  byMonth(q: Calendar & { months?: number }): MonthRow[] {
    const monthOf = (t: number): number => Date.UTC(new Date(t).getUTCFullYear(), new Date(t).getUTCMonth(), 1);
    const first = q.since !== undefined ? monthOf(q.since) : undefined;
    const last = monthOf(q.until !== undefined ? q.until - 1 : (q.now ?? this.clock()));
    const y = new Date(last).getUTCFullYear();
    const m = new Date(last).getUTCMonth();
    const span =
      first === undefined
        ? clampCount(q.months ?? 12, MAX_MONTHS)
        : Math.min(
            MAX_MONTHS,
            Math.max(1, (y - new Date(first).getUTCFullYear()) * 12 + m - new Date(first).getUTCMonth() + 1),
          );
    const start = Date.UTC(y, m - (span - 1), 1);
    // Day buckets from the covering index, folded into months here (cheaper than strftime per row).
    const out: MonthRow[] = [];
    const index = new Map<string, MonthRow>();
    for (let i = 0; i < span; i++) {
      const row = { month: new Date(Date.UTC(y, m - i, 1)).toISOString().slice(0, 7), saved: 0, input: 0, sessions: 0 };
      out.push(row);
      index.set(row.month, row);
    }
    for (const [d, r] of this.dayBuckets(
      q,
      Math.max(start, q.since ?? start),
      Math.min(Date.UTC(y, m + 1, 1), q.until ?? Infinity),
    )) {
      const row = index.get(isoDay(Math.max(start, q.since ?? start) + d * DAY_MS).slice(0, 7));
      if (!row) continue;
      row.saved += n(r.saved);
      row.input += n(r.input);
      row.sessions += n(r.sessions);
    }
    return out;
  }

  recent(q: Window & { limit: number }): RecentRow[] {
    const { limit, ...w } = q;
    return this.recentRows.rows(w, { limit: clampCount(limit, MAX_ROWS) }).map((r) => ({
      session_id: s(r.id),
      timestamp: isoSecond(n(r.started_at)),
      project_path: s(r.project_path),
      saved_tokens: n(r.saved),
      session_input: n(r.input_raw),
      session_sent: n(r.input_raw) - n(r.saved),
      session_output: n(r.input_raw) - n(r.saved),
      model_calls: n(r.model_calls),
      model: s(r.model),
      platform: s(r.platform),
      turns: n(r.turns),
      tool_calls: n(r.tool_calls),
      started_at: n(r.started_at),
      ended_at: nullable(r.ended_at),
    }));
  }

  /** Every project (whatever the window's project), by savings; `since`/`until` (and an owner) narrow the sessions. */
  byProject(q: Window & { limit: number }): ProjectRow[] {
    const w: Window = only(q, ['since', 'until', 'owner']);
    return this.projects.rows(w, { limit: clampCount(q.limit, MAX_ROWS) }).map((r) => ({
      project_path: s(r.project_path),
      saved_tokens: n(r.saved),
      input_tokens: n(r.input),
      sessions: n(r.sessions),
    }));
  }

  /** One page of sessions in the asked sort and order (searched when asked), and how many match. */
  sessions(q: SessionsQuery): { rows: SessionRow[]; total: number } {
    return this.sessionQ.sessions(q);
  }

  /** One session in full (null when there is none of that id). */
  session(id: string): SessionDetail | null {
    return this.sessionQ.session(id);
  }

  /** Tokens per model over the window (priced by pricing.ts). */
  byModel(q: Window = {}): ReturnType<ViewQueries['byModel']> {
    return this.views.byModel(q);
  }

  /** Tool outputs per tool, kind or shell program: what HMC took off them when they arrived. */
  byOutput(q: Parameters<ViewQueries['byOutput']>[0]): ReturnType<ViewQueries['byOutput']> {
    return this.views.byOutput({ ...q, limit: clampCount(q.limit, MAX_ROWS) });
  }

  /** What the providers reported per model over the window (context-engine hosts; empty otherwise). */
  providerByModel(q: Window = {}): ReturnType<ViewQueries['providerByModel']> {
    return this.views.providerByModel(q);
  }

  /** Lifetime provider usage per model, counted by HMC or not, and HMC's figures where none was measured (/metrics, OTLP). */
  measured(): ReturnType<ViewQueries['measured']> {
    return this.views.measured();
  }

  /** The provider usage rows of the window's sessions (a period's reconcile). */
  usageCalls(q: Window = {}): ReturnType<ViewQueries['usageCalls']> {
    return this.views.usageCalls(q);
  }

  /** The prices the host reported, by model. */
  hostPrices(): ReturnType<ViewQueries['hostPrices']> {
    return this.views.hostPrices();
  }

  /** Did compression cost the agent work: recalls and re-reads over the window. */
  work(q: Window = {}): ReturnType<ViewQueries['work']> {
    return this.views.work(q);
  }

  /** Day buckets (days after `start`) of the window's sessions (its project and owner) started in [start, end). */
  private dayBuckets(w: Window, start: number, end: number): Map<number, Row> {
    const found = new Map<number, Row>();
    if (end <= start) return found;
    for (const r of this.days.rows(only(w, ['project', 'owner']), { start, end })) found.set(n(r.d), r);
    return found;
  }

  /** The first unit's start and how many units: `count` ending now, or the units covering [since, until). */
  private calendar(
    q: Calendar,
    count: number,
    max: number,
    startOf: (t: number) => number,
    previous: (t: number) => number,
  ): { start: number; count: number } {
    const last = startOf(q.until !== undefined ? q.until - 1 : (q.now ?? this.clock()));
    if (q.since === undefined) {
      const units = clampCount(count, max);
      let start = last;
      for (let i = 1; i < units; i++) start = previous(start);
      return { start, count: units };
    }
    let start = last;
    let units = 1;
    const first = startOf(q.since);
    while (start > first && units < max) {
      start = previous(start);
      units++;
    }
    return { start, count: first > last ? 0 : units };
  }
}

/** The window names a date range or an owner: the running totals per project cannot answer it. */
function ranged(w: Window): boolean {
  return w.since !== undefined || w.until !== undefined || w.owner !== undefined;
}

function projectOnly(w: Window): Window {
  return w.project === undefined ? {} : { project: w.project };
}

/** The queries the store answers (the public methods of Queries). */
export type StoreQueries = Pick<Queries, keyof Queries>;

/** What each query answers while there is no database: the page shows zeros instead of failing. */
export const EMPTY_ANSWERS: StoreQueries = {
  summary: () => ({
    total_saved: 0,
    total_sessions: 0,
    total_input: 0,
    total_sent: 0,
    total_output: 0,
    savings_pct: 0,
    model_calls: 0,
    sessions_without_model_calls: 0,
    by_strategy: {},
    by_tool: {},
  }),
  byStrategy: () => [],
  byTool: () => [],
  byDay: () => [],
  byWeek: () => [],
  byMonth: () => [],
  recent: () => [],
  byProject: () => [],
  sessions: () => ({ rows: [], total: 0 }),
  session: () => null,
  byModel: () => [],
  byOutput: () => [],
  providerByModel: () => [],
  usageCalls: () => [],
  measured: () => ({ calls: [], unmeasured: [] }),
  hostPrices: () => new Map(),
  work: () => ({ ...EMPTY_WORK, top: [] }),
  usage: () => null,
};
