/**
 * The shapes the analytics store answers with (queries, the `analytics` action, the CLI and the
 * dashboard's JSON API all use these).
 *
 * Invariant: every `saved` is input tokens the model was not sent and is never above the matching
 * `input`; percentages are round(saved / input * 100, 2), 0 when input is 0.
 */
import type { SavingsBreakdown } from '../core/savings.js';
import type { StoredTurn } from './record.js';
import type { OutputTally, SessionRecord } from './types.js';

/** Lifetime (or per-project) totals; the original's `analytics` default form plus `by_tool` (each breakdown largest first). */
export interface Summary extends SavingsBreakdown {
  /** Input tokens saved, summed over every model call of every session. */
  total_saved: number;
  total_sessions: number;
  /** Input tokens that would have been sent without HMC. */
  total_input: number;
  /** Input tokens actually sent to the model (total_input - total_saved). */
  total_sent: number;
  /** The same figure under the original's misleading name (it is input, not output); kept so its readers still work. */
  total_output: number;
  savings_pct: number;
  /** Model calls the input was sent in: the N of "input saved over N model calls". */
  model_calls: number;
  /** Sessions with input recorded before HMC counted model calls (their calls are not in model_calls). */
  sessions_without_model_calls: number;
}

/** One UTC calendar day (by session start). */
export interface DayRow {
  day: string;
  saved: number;
  input: number;
  sessions: number;
}

/** One week, Monday to Sunday UTC (by session start); `week` is its Monday. */
export interface WeekRow {
  week: string;
  saved: number;
  input: number;
  sessions: number;
}

/** One UTC calendar month (by session start). */
export interface MonthRow {
  month: string;
  saved: number;
  input: number;
  sessions: number;
}

/** The original's `get_recent_sessions` row plus what we also know about the session. */
export interface RecentRow {
  session_id: string;
  /** Session start, UTC `YYYY-MM-DDTHH:MM:SSZ` (the original's format). */
  timestamp: string;
  project_path: string;
  saved_tokens: number;
  /** Input without HMC. */
  session_input: number;
  /** Input actually sent. */
  session_sent: number;
  /** Deprecated: session_sent under the original's name (it is input, not output). */
  session_output: number;
  /** Model calls the input was sent in. */
  model_calls: number;
  model: string;
  platform: string;
  turns: number;
  tool_calls: number;
  /** Milliseconds since the epoch. */
  started_at: number;
  /** Milliseconds since the epoch; null while the session is live. */
  ended_at: number | null;
}

export interface ProjectRow {
  project_path: string;
  saved_tokens: number;
  input_tokens: number;
  sessions: number;
}

/** One line of the sessions table: a SessionRecord without its series, plus its savings. */
export interface SessionRow
  extends Omit<
    SessionRecord,
    | 'timeline'
    | 'by_strategy'
    | 'by_tool'
    | 'work'
    | 'model_calls'
    | 'context_tokens'
    | 'context_raw_tokens'
    | 'cached_raw'
    | 'cached_hmc'
    | 'plain_raw'
    | 'plain_hmc'
  > {
  saved: number;
  savings_pct: number;
  model_calls: number;
  /** The context at the session's last record, as sent and without HMC (context saved = raw - sent). */
  context_tokens: number;
  context_raw_tokens: number;
  /** The agent's recalls and re-reads of what HMC elided, and the outputs HMC shortened. */
  recalls: number;
  rereads: number;
  elided: number;
}

/** A session as recorded (after clamping), with its totals. */
export interface SessionDetail extends SessionRow, SavingsBreakdown {
  timeline: StoredTurn[];
  cached_raw: number;
  cached_hmc: number;
  /** Input of its calls counted without a cache model (priced as plain input). */
  plain_raw: number;
  plain_hmc: number;
  /** Its tool outputs per tool and program. */
  outputs: OutputTally[];
}

export const SESSION_SORTS = [
  'started_at',
  'saved',
  'input',
  'turns',
  'tool_calls',
  'savings_pct',
  'project_path',
  'model',
] as const;
export type SessionSort = (typeof SESSION_SORTS)[number];

export interface SessionsQuery {
  limit: number;
  /** Sessions started in [since, until) (ms). */
  since?: number;
  until?: number;
  offset?: number;
  sort?: SessionSort;
  order?: 'asc' | 'desc';
  /** Case-insensitive substring of the id, project path, model or platform. */
  search?: string;
  project?: string;
}

/** round(saved / input * 100, 2); 0 when input is 0. */
export function pct(saved: number, input: number): number {
  return input > 0 ? Math.round((saved / input) * 10_000) / 100 : 0;
}
