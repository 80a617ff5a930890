/**
 * What the engine hands the analytics store: one complete picture of a session, recorded again
 * (replacing the previous picture) whenever it changes, so nothing is ever counted twice.
 *
 * Savings are input tokens the model was not sent, summed over all model calls of the session;
 * `input_tokens_raw` is the same sum without HMC, so savings never exceed input.
 */
import type { SavingsBreakdown } from '../core/savings.js';
import type { UsageRecord } from './usage.js';

/** One user turn of a session, for the per-turn charts. */
export interface TurnPoint {
  turn: number;
  /** Milliseconds since the epoch when the turn started. */
  time: number;
  context_tokens: number;
  /** 0..1; 0 when the context window is unknown. */
  context_percent: number;
  /** Input tokens (over the turn's model calls) without and with HMC. */
  input_raw: number;
  input_hmc: number;
  /** Tool calls made in this turn. */
  tool_calls: number;
}

/** The breakdowns (SavingsBreakdown) sum to input_tokens_raw - input_tokens_hmc. */
export interface SessionRecord extends SavingsBreakdown {
  session_id: string;
  /** Real path of the working directory of the host process ('' when unknown). */
  project_path: string;
  /** Host platform: cli, telegram, demo, replay… ('' when unknown). */
  platform: string;
  model: string;
  /** Milliseconds since the epoch. */
  started_at: number;
  /** Milliseconds since the epoch; null while the session is live. */
  ended_at: number | null;
  turns: number;
  tool_calls: number;
  /** Input tokens over all model calls without HMC. */
  input_tokens_raw: number;
  /** Input tokens over all model calls with HMC. */
  input_tokens_hmc: number;
  /** Largest context (tokens, as sent) seen in the session. */
  context_peak: number;
  timeline: TurnPoint[];
}

/** Where the engine records sessions; the SQLite store implements it, tests may fake it. */
export interface SessionRecorder {
  /** Replaces everything recorded for `record.session_id`. Never throws; never blocks a hook. */
  record(record: SessionRecord): void;
  /** Records the provider usage of one model call (context-engine hosts). Never throws; never blocks a hook. */
  recordUsage?(row: UsageRecord): void;
}
