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
import type { StoredTurn } from './record.js';
import { UsageQueries, type SessionUsage } from './usage.js';
import {
  pct,
  SESSION_SORTS,
  type DayRow,
  type MonthRow,
  type ProjectRow,
  type RecentRow,
  type SessionDetail,
  type SessionRow,
  type SessionSort,
  type SessionsQuery,
  type Summary,
  type WeekRow,
} from './rows.js';
import type { OutputTally } from './types.js';
import { EMPTY_WORK, ViewQueries } from './views.js';
import { DAY_MS, dayStart, Filtered, isoDay, only, weekStart, type Params, type Row, type Window } from './window.js';

export { projectParams } from './window.js';
export const MAX_DAYS = 36_600;
export const MAX_WEEKS = 5_300;
export const MAX_MONTHS = 1_200;
export const MAX_ROWS = 10_000;

// better-sqlite3 binds JS numbers as REAL, so integer arithmetic on them is CAST explicitly.

const n = (x: unknown): number => (typeof x === 'number' ? x : typeof x === 'bigint' ? Number(x) : 0);
const s = (x: unknown): string => (typeof x === 'string' ? x : '');
const nullable = (x: unknown): number | null => (x === null || x === undefined ? null : n(x));

/** UTC `YYYY-MM-DDTHH:MM:SSZ`, the original's timestamp format. */
export function isoSecond(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + 'Z';
}

function toObject(rows: Row[], key: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) out[s(r[key])] = n(r.saved);
  return out;
}

const SORT_SQL: Record<SessionSort, string> = {
  started_at: 'started_at',
  saved: 'saved',
  input: 'input_raw',
  turns: 'turns',
  tool_calls: 'tool_calls',
  savings_pct: 'CASE WHEN input_raw > 0 THEN CAST(saved AS REAL) / input_raw ELSE 0 END',
  project_path: 'project_path',
  model: 'model',
};

const SESSION_COLUMNS = `id, project_path, platform, model, started_at, ended_at, turns, tool_calls, input_raw, input_hmc, saved,
  context_peak, model_calls, context_tokens, context_raw, recalls, rereads, elided`;
const SEARCH = `(id LIKE @q ESCAPE '\\' OR project_path LIKE @q ESCAPE '\\' OR model LIKE @q ESCAPE '\\' OR platform LIKE @q ESCAPE '\\')`;

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
  private readonly sessionCount: Filtered;
  private readonly sessionCountSearch: Filtered;
  private readonly sessionPages = new Map<string, Filtered>();
  private readonly one: Database.Statement;
  private readonly oneStrategies: Database.Statement;
  private readonly oneTools: Database.Statement;
  private readonly oneTurns: Database.Statement;
  private readonly oneOutputs: Database.Statement;
  private readonly views: ViewQueries;
  private readonly usageQ: UsageQueries;

  constructor(db: Database.Database, protected readonly clock: () => number = Date.now) {
    this.totals = new Filtered(db, (w) => `SELECT COUNT(*) AS sessions, COALESCE(SUM(saved), 0) AS saved,
      COALESCE(SUM(input_raw), 0) AS input, COALESCE(SUM(model_calls), 0) AS calls,
      COALESCE(SUM(CASE WHEN model_calls = 0 AND input_raw > 0 THEN 1 ELSE 0 END), 0) AS uncounted FROM sessions${w(false)}`);
    // The running totals answer per project without scanning history; a date range sums the sessions in it.
    this.strategies = new Filtered(db, (w) => `SELECT strategy, SUM(saved) AS saved FROM strategy_totals${w(false)}
      GROUP BY strategy HAVING SUM(saved) > 0 ORDER BY saved DESC, strategy`);
    this.tools = new Filtered(db, (w) => `SELECT tool, SUM(saved) AS saved FROM tool_totals${w(false)}
      GROUP BY tool HAVING SUM(saved) > 0 ORDER BY saved DESC, tool LIMIT @limit`);
    this.rangedStrategies = new Filtered(db, (w) => `SELECT x.strategy AS strategy, SUM(x.saved) AS saved FROM session_strategy x
      JOIN sessions s ON s.id = x.session_id${w(false, 's')} GROUP BY x.strategy HAVING SUM(x.saved) > 0 ORDER BY saved DESC, strategy`);
    this.rangedTools = new Filtered(db, (w) => `SELECT x.tool AS tool, SUM(x.saved) AS saved FROM session_tool x
      JOIN sessions s ON s.id = x.session_id${w(false, 's')} GROUP BY x.tool HAVING SUM(x.saved) > 0 ORDER BY saved DESC, tool LIMIT @limit`);
    this.days = new Filtered(db, (w) => `SELECT CAST((started_at - @start) / ${DAY_MS} AS INTEGER) AS d, SUM(saved) AS saved,
      SUM(input_raw) AS input, COUNT(*) AS sessions FROM sessions
      WHERE started_at >= @start AND started_at < @end${w(true)} GROUP BY d`);
    this.recentRows = new Filtered(db, (w) => `SELECT ${SESSION_COLUMNS} FROM sessions${w(false)}
      ORDER BY started_at DESC, id LIMIT @limit`);
    this.projects = new Filtered(db, (w) => `SELECT project_path, SUM(saved) AS saved, SUM(input_raw) AS input,
      COUNT(*) AS sessions FROM sessions${w(false)} GROUP BY project_path ORDER BY saved DESC, project_path LIMIT @limit`);
    this.sessionCount = new Filtered(db, (w) => `SELECT COUNT(*) AS c FROM sessions${w(false)}`);
    this.sessionCountSearch = new Filtered(db, (w) => `SELECT COUNT(*) AS c FROM sessions WHERE ${SEARCH}${w(true)}`);
    for (const sort of SESSION_SORTS) {
      for (const order of ['ASC', 'DESC']) {
        for (const search of [false, true]) {
          this.sessionPages.set(`${sort} ${order} ${search}`, new Filtered(db, (w) => {
            const where = search ? ` WHERE ${SEARCH}${w(true)}` : w(false);
            // Ties broken in the same direction as the sort, so one index walk serves the whole order;
            // the page's rowids come from the index alone, then only those rows are read.
            const orderBy = `ORDER BY ${SORT_SQL[sort]} ${order}, started_at ${order}, id ${order}`;
            return `SELECT ${SESSION_COLUMNS} FROM sessions WHERE rowid IN (
                SELECT rowid FROM sessions${where} ${orderBy} LIMIT @limit OFFSET @offset)
              ${orderBy}`;
          }));
        }
      }
    }
    this.one = db.prepare(`SELECT ${SESSION_COLUMNS}, cached_raw, cached_hmc, plain_raw, plain_hmc FROM sessions WHERE id = ?`);
    this.oneStrategies = db.prepare('SELECT strategy, saved FROM session_strategy WHERE session_id = ? ORDER BY saved DESC, strategy');
    this.oneTools = db.prepare('SELECT tool, saved FROM session_tool WHERE session_id = ? ORDER BY saved DESC, tool');
    this.oneTurns = db.prepare(`SELECT turn, time, context_tokens, context_raw, context_percent, input_raw, input_hmc, model_calls, tool_calls,
      cached_raw, cached_hmc FROM session_turn WHERE session_id = ? ORDER BY turn`);
    this.oneOutputs = db.prepare(`SELECT tool, program, kind, outputs, tokens_raw, tokens_sent FROM session_output
      WHERE session_id = ? ORDER BY tokens_raw - tokens_sent DESC, tool, program`);
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
    const span = first === undefined ? clampCount(q.months ?? 12, MAX_MONTHS)
      : Math.min(MAX_MONTHS, Math.max(1, (y - new Date(first).getUTCFullYear()) * 12 + m - new Date(first).getUTCMonth() + 1));
    const start = Date.UTC(y, m - (span - 1), 1);
    // Day buckets from the covering index, folded into months here (cheaper than strftime per row).
    const out: MonthRow[] = [];
    const index = new Map<string, MonthRow>();
    for (let i = 0; i < span; i++) {
      const row = { month: new Date(Date.UTC(y, m - i, 1)).toISOString().slice(0, 7), saved: 0, input: 0, sessions: 0 };
      out.push(row);
      index.set(row.month, row);
    }
    for (const [d, r] of this.dayBuckets(q, Math.max(start, q.since ?? start), Math.min(Date.UTC(y, m + 1, 1), q.until ?? Infinity))) {
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

  sessions(q: SessionsQuery): { rows: SessionRow[]; total: number } {
    const sort: SessionSort = SESSION_SORTS.includes(q.sort as SessionSort) ? (q.sort as SessionSort) : 'started_at';
    const order = q.order === 'asc' ? 'ASC' : 'DESC';
    const search = typeof q.search === 'string' && q.search.trim() !== '' ? q.search.trim() : undefined;
    const w: Window = { ...(q.project !== undefined ? { project: q.project } : {}), ...(q.since !== undefined ? { since: q.since } : {}), ...(q.until !== undefined ? { until: q.until } : {}) };
    const params: Params = {
      limit: clampCount(q.limit, MAX_ROWS),
      offset: clampCount(q.offset ?? 0, Number.MAX_SAFE_INTEGER),
    };
    if (search !== undefined) params.q = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const page = this.sessionPages.get(`${sort} ${order} ${search !== undefined}`)!;
    const rows = page.rows(w, params).map(sessionRow);
    const counter = search !== undefined ? this.sessionCountSearch : this.sessionCount;
    const total = n(counter.rows(w, search !== undefined ? { q: params.q! } : {})[0]?.c);
    return { rows, total };
  }

  session(id: string): SessionDetail | null {
    const r = this.one.get(id) as Row | undefined;
    if (!r) return null;
    return {
      ...sessionRow(r),
      cached_raw: n(r.cached_raw),
      cached_hmc: n(r.cached_hmc),
      plain_raw: n(r.plain_raw),
      plain_hmc: n(r.plain_hmc),
      by_strategy: toObject(this.oneStrategies.all(id) as Row[], 'strategy'),
      by_tool: toObject(this.oneTools.all(id) as Row[], 'tool'),
      timeline: (this.oneTurns.all(id) as Row[]).map(
        (t): StoredTurn => ({
          turn: n(t.turn),
          time: n(t.time),
          context_tokens: n(t.context_tokens),
          context_raw_tokens: Math.max(n(t.context_raw), n(t.context_tokens)),
          context_percent: n(t.context_percent),
          input_raw: n(t.input_raw),
          input_hmc: n(t.input_hmc),
          model_calls: n(t.model_calls),
          tool_calls: n(t.tool_calls),
          cached_raw: n(t.cached_raw),
          cached_hmc: n(t.cached_hmc),
        }),
      ),
      outputs: (this.oneOutputs.all(id) as Row[]).map((o): OutputTally => ({
        tool: s(o.tool), program: s(o.program), kind: s(o.kind), outputs: n(o.outputs), tokens_raw: n(o.tokens_raw), tokens_sent: n(o.tokens_sent),
      })),
    };
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
  private calendar(q: Calendar, count: number, max: number, startOf: (t: number) => number, previous: (t: number) => number): { start: number; count: number } {
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
  summary: () => ({ total_saved: 0, total_sessions: 0, total_input: 0, total_sent: 0, total_output: 0, savings_pct: 0, model_calls: 0, sessions_without_model_calls: 0, by_strategy: {}, by_tool: {} }),
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

function sessionRow(r: Row): SessionRow {
  return {
    session_id: s(r.id),
    project_path: s(r.project_path),
    platform: s(r.platform),
    model: s(r.model),
    started_at: n(r.started_at),
    ended_at: nullable(r.ended_at),
    turns: n(r.turns),
    tool_calls: n(r.tool_calls),
    input_tokens_raw: n(r.input_raw),
    input_tokens_hmc: n(r.input_hmc),
    saved: n(r.saved),
    savings_pct: pct(n(r.saved), n(r.input_raw)),
    context_peak: n(r.context_peak),
    model_calls: n(r.model_calls),
    context_tokens: n(r.context_tokens),
    context_raw_tokens: Math.max(n(r.context_raw), n(r.context_tokens)),
    recalls: n(r.recalls),
    rereads: n(r.rereads),
    elided: n(r.elided),
  };
}

/** A whole number in 0..max (bad input → 0). */
export function clampCount(x: number, max: number): number {
  return Number.isFinite(x) && x > 0 ? Math.min(Math.floor(x), max) : 0;
}
