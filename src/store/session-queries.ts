/**
 * The sessions table as the dashboard's Sessions tab reads it: one page of sessions in any sort
 * and order, optionally searched, with the count of all that match; and one session in full (its
 * strategies, tools, turns and outputs).
 *
 * Invariant: a page's order is total (ties broken by start time, then id, in the sort's
 * direction), so pages never overlap or skip; a search matches its text literally (`%`, `_` and
 * `\` are escaped).
 */
import type Database from 'better-sqlite3';
import { clampCount, MAX_ROWS, n, nullable, s, toObject } from './cells.js';
import type { StoredTurn } from './record.js';
import {
  pct,
  SESSION_SORTS,
  type SessionDetail,
  type SessionRow,
  type SessionSort,
  type SessionsQuery,
} from './rows.js';
import type { OutputTally } from './types.js';
import { Filtered, type Params, type Row, type Window } from './window.js';

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

export const SESSION_COLUMNS = `id, project_path, platform, model, started_at, ended_at, turns, tool_calls, input_raw, input_hmc, saved,
  context_peak, model_calls, context_tokens, context_raw, recalls, rereads, elided`;
const SEARCH = `(id LIKE @q ESCAPE '\\' OR project_path LIKE @q ESCAPE '\\' OR model LIKE @q ESCAPE '\\' OR platform LIKE @q ESCAPE '\\')`;

export class SessionQueries {
  private readonly sessionCount: Filtered;
  private readonly sessionCountSearch: Filtered;
  private readonly sessionPages = new Map<string, Filtered>();
  private readonly one: Database.Statement;
  private readonly oneStrategies: Database.Statement;
  private readonly oneTools: Database.Statement;
  private readonly oneTurns: Database.Statement;
  private readonly oneOutputs: Database.Statement;

  constructor(db: Database.Database) {
    this.sessionCount = new Filtered(db, (w) => `SELECT COUNT(*) AS c FROM sessions${w(false)}`);
    this.sessionCountSearch = new Filtered(db, (w) => `SELECT COUNT(*) AS c FROM sessions WHERE ${SEARCH}${w(true)}`);
    for (const sort of SESSION_SORTS) {
      for (const order of ['ASC', 'DESC']) {
        for (const search of [false, true]) {
          this.sessionPages.set(
            `${sort} ${order} ${search}`,
            new Filtered(db, (w) => {
              const where = search ? ` WHERE ${SEARCH}${w(true)}` : w(false);
              // Ties broken in the same direction as the sort, so one index walk serves the whole order;
              // the page's rowids come from the index alone, then only those rows are read.
              const orderBy = `ORDER BY ${SORT_SQL[sort]} ${order}, started_at ${order}, id ${order}`;
              return `SELECT ${SESSION_COLUMNS} FROM sessions WHERE rowid IN (
                SELECT rowid FROM sessions${where} ${orderBy} LIMIT @limit OFFSET @offset)
              ${orderBy}`;
            }),
          );
        }
      }
    }
    this.one = db.prepare(
      `SELECT ${SESSION_COLUMNS}, cached_raw, cached_hmc, plain_raw, plain_hmc FROM sessions WHERE id = ?`,
    );
    this.oneStrategies = db.prepare(
      'SELECT strategy, saved FROM session_strategy WHERE session_id = ? ORDER BY saved DESC, strategy',
    );
    this.oneTools = db.prepare('SELECT tool, saved FROM session_tool WHERE session_id = ? ORDER BY saved DESC, tool');
    this.oneTurns =
      db.prepare(`SELECT turn, time, context_tokens, context_raw, context_percent, input_raw, input_hmc, model_calls, tool_calls,
      cached_raw, cached_hmc FROM session_turn WHERE session_id = ? ORDER BY turn`);
    this.oneOutputs = db.prepare(`SELECT tool, program, kind, outputs, tokens_raw, tokens_sent FROM session_output
      WHERE session_id = ? ORDER BY tokens_raw - tokens_sent DESC, tool, program`);
  }

  sessions(q: SessionsQuery): { rows: SessionRow[]; total: number } {
    const sort: SessionSort = SESSION_SORTS.includes(q.sort as SessionSort) ? (q.sort as SessionSort) : 'started_at';
    const order = q.order === 'asc' ? 'ASC' : 'DESC';
    const search = typeof q.search === 'string' && q.search.trim() !== '' ? q.search.trim() : undefined;
    const w: Window = {
      ...(q.project !== undefined ? { project: q.project } : {}),
      ...(q.since !== undefined ? { since: q.since } : {}),
      ...(q.until !== undefined ? { until: q.until } : {}),
    };
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
      outputs: (this.oneOutputs.all(id) as Row[]).map(
        (o): OutputTally => ({
          tool: s(o.tool),
          program: s(o.program),
          kind: s(o.kind),
          outputs: n(o.outputs),
          tokens_raw: n(o.tokens_raw),
          tokens_sent: n(o.tokens_sent),
        }),
      ),
    };
  }
}

export function sessionRow(r: Row): SessionRow {
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
