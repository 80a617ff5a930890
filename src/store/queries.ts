/**
 * The read side of the analytics store: every statement prepared once (with and without the
 * project filter), the small amount of shaping the answers need, and what each query answers
 * while there is no database. The store (db.ts) is these queries plus the writes; the dashboard
 * reads them as they are (server/store-reader.ts), so a new chart's query is written here once.
 *
 * Invariant: windows are exact UTC calendar days/months ending at `now` (no N+1); a project
 * filter matches the exact path or anything under it, compared as a byte range, so `*`, `?`, `[`,
 * `%` and `_` in paths are ordinary characters.
 */
import type Database from 'better-sqlite3';
import type { TurnPoint } from './types.js';
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
} from './rows.js';

const DAY_MS = 86_400_000;
export const MAX_DAYS = 36_600;
export const MAX_MONTHS = 1_200;
export const MAX_ROWS = 10_000;

// better-sqlite3 binds JS numbers as REAL, so integer arithmetic on them is CAST explicitly.
type Params = Record<string, string | number>;
type Row = Record<string, unknown>;

/** Named parameters for the project filter `(project_path = @p OR @lo <= project_path < @hi)`. */
export function projectParams(project: string): Params {
  const p = project.length > 1 ? project.replace(/[/\\]+$/, '') : project;
  const sep = p.includes('\\') && !p.includes('/') ? '\\' : '/';
  // An empty project (unknown cwd) matches only sessions with an unknown cwd.
  const lo = p === '' ? '' : p.endsWith(sep) ? p : p + sep;
  const hi = p === '' ? '' : lo.slice(0, -1) + String.fromCharCode(sep.charCodeAt(0) + 1);
  return { p, lo, hi };
}

const PROJECT = '(project_path = @p OR (project_path >= @lo AND project_path < @hi))';

/** A statement prepared twice: for everything, and filtered by project. */
class Pair {
  private readonly all: Database.Statement;
  private readonly filtered: Database.Statement;

  constructor(db: Database.Database, sql: (where: (and: boolean) => string) => string) {
    this.all = db.prepare(sql(() => ''));
    this.filtered = db.prepare(sql((and) => (and ? ` AND ${PROJECT}` : ` WHERE ${PROJECT}`)));
  }

  rows(project: string | undefined, params: Params = {}): Row[] {
    if (project === undefined) return this.all.all(params) as Row[];
    return this.filtered.all({ ...params, ...projectParams(project) }) as Row[];
  }
}

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

const SESSION_COLUMNS =
  'id, project_path, platform, model, started_at, ended_at, turns, tool_calls, input_raw, input_hmc, saved, context_peak';

/** A query's window may end at a pinned time (tests); else the store's clock. */
interface Clocked {
  now?: number;
}

export class Queries {
  private readonly totals: Pair;
  private readonly strategies: Pair;
  private readonly tools: Pair;
  private readonly days: Pair;
  private readonly recentRows: Pair;
  private readonly projects: Database.Statement;
  private readonly sessionCount: Pair;
  private readonly sessionCountSearch: Pair;
  private readonly sessionPages = new Map<string, Pair>();
  private readonly one: Database.Statement;
  private readonly oneStrategies: Database.Statement;
  private readonly oneTools: Database.Statement;
  private readonly oneTurns: Database.Statement;
  private readonly usageQ: UsageQueries;

  constructor(db: Database.Database, protected readonly clock: () => number = Date.now) {
    this.totals = new Pair(db, (w) => `SELECT COUNT(*) AS sessions, COALESCE(SUM(saved), 0) AS saved,
      COALESCE(SUM(input_raw), 0) AS input FROM sessions${w(false)}`);
    this.strategies = new Pair(db, (w) => `SELECT strategy, SUM(saved) AS saved FROM strategy_totals${w(false)}
      GROUP BY strategy HAVING SUM(saved) > 0 ORDER BY saved DESC, strategy`);
    this.tools = new Pair(db, (w) => `SELECT tool, SUM(saved) AS saved FROM tool_totals${w(false)}
      GROUP BY tool HAVING SUM(saved) > 0 ORDER BY saved DESC, tool LIMIT @limit`);
    this.days = new Pair(db, (w) => `SELECT CAST((started_at - @start) / ${DAY_MS} AS INTEGER) AS d, SUM(saved) AS saved,
      SUM(input_raw) AS input, COUNT(*) AS sessions FROM sessions
      WHERE started_at >= @start AND started_at < @end${w(true)} GROUP BY d`);
    this.recentRows = new Pair(db, (w) => `SELECT ${SESSION_COLUMNS} FROM sessions${w(false)}
      ORDER BY started_at DESC, id LIMIT @limit`);
    this.projects = db.prepare(`SELECT project_path, SUM(saved) AS saved, SUM(input_raw) AS input,
      COUNT(*) AS sessions FROM sessions GROUP BY project_path ORDER BY saved DESC, project_path LIMIT @limit`);
    this.sessionCount = new Pair(db, (w) => `SELECT COUNT(*) AS c FROM sessions${w(false)}`);
    this.sessionCountSearch = new Pair(db, (w) => `SELECT COUNT(*) AS c FROM sessions
      WHERE (id LIKE @q ESCAPE '\\' OR project_path LIKE @q ESCAPE '\\' OR model LIKE @q ESCAPE '\\'
        OR platform LIKE @q ESCAPE '\\')${w(true)}`);
    for (const sort of SESSION_SORTS) {
      for (const order of ['ASC', 'DESC']) {
        for (const search of [false, true]) {
          const key = `${sort} ${order} ${search}`;
          this.sessionPages.set(key, new Pair(db, (w) => {
            const where = search
              ? ` WHERE (id LIKE @q ESCAPE '\\' OR project_path LIKE @q ESCAPE '\\' OR model LIKE @q ESCAPE '\\'
                  OR platform LIKE @q ESCAPE '\\')${w(true)}`
              : w(false);
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
    this.one = db.prepare(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`);
    this.oneStrategies = db.prepare('SELECT strategy, saved FROM session_strategy WHERE session_id = ? ORDER BY saved DESC, strategy');
    this.oneTools = db.prepare('SELECT tool, saved FROM session_tool WHERE session_id = ? ORDER BY saved DESC, tool');
    this.oneTurns = db.prepare(`SELECT turn, time, context_tokens, context_percent, input_raw, input_hmc, tool_calls
      FROM session_turn WHERE session_id = ? ORDER BY turn`);
    this.usageQ = new UsageQueries(db);
  }

  /** The provider's usage of the session's model calls (context-engine hosts; null when none was reported). */
  usage(sessionId: string): SessionUsage | null {
    return this.usageQ.usage(sessionId);
  }

  summary(q: { project?: string } = {}): Summary {
    const project = q.project;
    const t = this.totals.rows(project)[0] ?? {};
    const saved = n(t.saved);
    const input = n(t.input);
    return {
      total_saved: saved,
      total_sessions: n(t.sessions),
      total_input: input,
      total_sent: input - saved,
      total_output: input - saved,
      savings_pct: pct(saved, input),
      by_strategy: toObject(this.byStrategy({ ...(project === undefined ? {} : { project }) }), 'strategy'),
      by_tool: toObject(this.byTool({ ...(project === undefined ? {} : { project }), limit: MAX_ROWS }), 'tool'),
    };
  }

  byStrategy(q: { project?: string } = {}): { strategy: string; saved: number }[] {
    return this.strategies.rows(q.project).map((r) => ({ strategy: s(r.strategy), saved: n(r.saved) }));
  }

  byTool(q: { project?: string; limit?: number } = {}): { tool: string; saved: number }[] {
    return this.tools.rows(q.project, { limit: clampCount(q.limit ?? MAX_ROWS, MAX_ROWS) }).map((r) => ({ tool: s(r.tool), saved: n(r.saved) }));
  }

  byDay(q: { days: number; project?: string } & Clocked): DayRow[] {
    const { project } = q;
    const now = q.now ?? this.clock();
    const count = clampCount(q.days, MAX_DAYS);
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const start = today - (count - 1) * DAY_MS;
    const found = new Map<number, Row>();
    for (const r of this.days.rows(project, { start, end: today + DAY_MS })) found.set(n(r.d), r);
    const out: DayRow[] = [];
    for (let i = count - 1; i >= 0; i--) {
      const r = found.get(i);
      out.push({ day: new Date(start + i * DAY_MS).toISOString().slice(0, 10), saved: n(r?.saved), input: n(r?.input), sessions: n(r?.sessions) });
    }
    return out;
  }

  byMonth(q: { months: number; project?: string } & Clocked): MonthRow[] {
    const { project } = q;
    const now = q.now ?? this.clock();
    const count = clampCount(q.months, MAX_MONTHS);
    const d = new Date(now);
    const y = d.getUTCFullYear();
    const m = d.getUTCMonth();
    const start = Date.UTC(y, m - (count - 1), 1);
    // Day buckets from the covering index, folded into months here (cheaper than strftime per row).
    const out: MonthRow[] = [];
    const index = new Map<string, MonthRow>();
    for (let i = 0; i < count; i++) {
      const row = { month: new Date(Date.UTC(y, m - i, 1)).toISOString().slice(0, 7), saved: 0, input: 0, sessions: 0 };
      out.push(row);
      index.set(row.month, row);
    }
    for (const r of this.days.rows(project, { start, end: Date.UTC(y, m + 1, 1) })) {
      const row = index.get(new Date(start + n(r.d) * DAY_MS).toISOString().slice(0, 7));
      if (!row) continue;
      row.saved += n(r.saved);
      row.input += n(r.input);
      row.sessions += n(r.sessions);
    }
    return out;
  }

  recent(q: { limit: number; project?: string }): RecentRow[] {
    return this.recentRows.rows(q.project, { limit: clampCount(q.limit, MAX_ROWS) }).map((r) => ({
      session_id: s(r.id),
      timestamp: isoSecond(n(r.started_at)),
      project_path: s(r.project_path),
      saved_tokens: n(r.saved),
      session_input: n(r.input_raw),
      session_output: n(r.input_raw) - n(r.saved),
      model: s(r.model),
      platform: s(r.platform),
      turns: n(r.turns),
      tool_calls: n(r.tool_calls),
      started_at: n(r.started_at),
      ended_at: nullable(r.ended_at),
    }));
  }

  byProject(q: { limit: number }): ProjectRow[] {
    return (this.projects.all({ limit: clampCount(q.limit, MAX_ROWS) }) as Row[]).map((r) => ({
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
    const params: Params = {
      limit: clampCount(q.limit, MAX_ROWS),
      offset: clampCount(q.offset ?? 0, Number.MAX_SAFE_INTEGER),
    };
    if (search !== undefined) params.q = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const page = this.sessionPages.get(`${sort} ${order} ${search !== undefined}`)!;
    const rows = page.rows(q.project, params).map(sessionRow);
    const counter = search !== undefined ? this.sessionCountSearch : this.sessionCount;
    const total = n(counter.rows(q.project, search !== undefined ? { q: params.q! } : {})[0]?.c);
    return { rows, total };
  }

  session(id: string): SessionDetail | null {
    const r = this.one.get(id) as Row | undefined;
    if (!r) return null;
    const row = sessionRow(r);
    const parts = (rows: Row[], key: string): Record<string, number> => toObject(rows, key);
    return {
      session_id: row.session_id,
      project_path: row.project_path,
      platform: row.platform,
      model: row.model,
      started_at: row.started_at,
      ended_at: row.ended_at,
      turns: row.turns,
      tool_calls: row.tool_calls,
      input_tokens_raw: row.input_tokens_raw,
      input_tokens_hmc: row.input_tokens_hmc,
      context_peak: row.context_peak,
      by_strategy: parts(this.oneStrategies.all(id) as Row[], 'strategy'),
      by_tool: parts(this.oneTools.all(id) as Row[], 'tool'),
      timeline: (this.oneTurns.all(id) as Row[]).map(
        (t): TurnPoint => ({
          turn: n(t.turn),
          time: n(t.time),
          context_tokens: n(t.context_tokens),
          context_percent: n(t.context_percent),
          input_raw: n(t.input_raw),
          input_hmc: n(t.input_hmc),
          tool_calls: n(t.tool_calls),
        }),
      ),
      saved: row.saved,
      savings_pct: row.savings_pct,
    };
  }
}

/** The queries the store answers (the public methods of Queries). */
export type StoreQueries = Pick<Queries, keyof Queries>;

/** What each query answers while there is no database: the page shows zeros instead of failing. */
export const EMPTY_ANSWERS: StoreQueries = {
  summary: () => ({ total_saved: 0, total_sessions: 0, total_input: 0, total_sent: 0, total_output: 0, savings_pct: 0, by_strategy: {}, by_tool: {} }),
  byStrategy: () => [],
  byTool: () => [],
  byDay: () => [],
  byMonth: () => [],
  recent: () => [],
  byProject: () => [],
  sessions: () => ({ rows: [], total: 0 }),
  session: () => null,
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
  };
}

/** A whole number in 0..max (bad input → 0). */
export function clampCount(x: number, max: number): number {
  return Number.isFinite(x) && x > 0 ? Math.min(Math.floor(x), max) : 0;
}
