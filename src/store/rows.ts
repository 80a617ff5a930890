/**
 * The shapes the analytics store answers with (queries, the `analytics` action, the CLI and the
 * dashboard's JSON API all use these).
 *
 * Invariant: every `saved` is input tokens the model was not sent and is never above the matching
 * `input`; percentages are round(saved / input * 100, 2), 0 when input is 0.
 */
import type { SavingsBreakdown } from '../core/savings.js';
import type { SessionRecord } from './types.js';

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
}

/** One UTC calendar day (by session start). */
export interface DayRow {
  day: string;
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
  session_output: number;
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
export interface SessionRow extends Omit<SessionRecord, 'timeline' | 'by_strategy' | 'by_tool'> {
  saved: number;
  savings_pct: number;
}

/** A session as recorded (after clamping), with its totals. */
export interface SessionDetail extends SessionRecord {
  saved: number;
  savings_pct: number;
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
