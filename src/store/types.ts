/**
 * What the engine hands the analytics store: one complete picture of a session, recorded again
 * (replacing the previous picture) whenever it changes, so nothing is ever counted twice.
 *
 * Savings are input tokens the model was not sent, summed over all model calls of the session;
 * `input_tokens_raw` is the same sum without HMC, so savings never exceed input.
 */
import type { SavingsBreakdown } from '../core/savings.js';
import type { HostPrice } from '../core/context-engine.js';
import type { UsageRecord } from './usage.js';

/**
 * One user turn of a session, for the per-turn charts (docs/glossary.md). The context figures are
 * the context at the turn's end, as the next model call would send it: the same figure the live
 * turn event carries, so the live chart and the stored one agree (issue 17, finding 3).
 */
export interface TurnPoint {
  turn: number;
  /** Milliseconds since the epoch when the turn started. */
  time: number;
  /** The context at the turn's end as sent (system prompt and tool schemas included). */
  context_tokens: number;
  /**
   * The same context without HMC; context saved = context_raw_tokens - context_tokens. Optional
   * here and below for records made before it was kept: stored as context_tokens (and 0 calls).
   */
  context_raw_tokens?: number;
  /** context_tokens of the context window, 0..1; 0 when the window is unknown. */
  context_percent: number;
  /** Input tokens over the turn's model calls, without and with HMC (input saved over N calls). */
  input_raw: number;
  input_hmc: number;
  /** Model calls made in this turn (the N of "input saved over N model calls"). */
  model_calls?: number;
  /** Tool calls made in this turn. */
  tool_calls: number;
  /** HMC's cache model for the turn's calls: of input_raw and input_hmc, the tokens read from the cache. */
  cached_raw?: number;
  cached_hmc?: number;
}

/** The breakdowns (SavingsBreakdown) sum to input_tokens_raw - input_tokens_hmc. */
export interface SessionRecord extends SavingsBreakdown {
  session_id: string;
  /** Real path of the working directory of the host process ('' when unknown). */
  project_path: string;
  /** Host platform: cli, telegram, demo, replay… ('' when unknown). */
  platform: string;
  /**
   * Whose the session is (engine/session/owner.ts): `platform:user` for a user the host names (a gateway's
   * sender), '' (or absent) for the machine's own. A gateway user's analytics show only their rows.
   */
  owner?: string;
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
  /**
   * The figures below came with issue 17 (docs/glossary.md); a record without them (an older
   * engine, a test) stores 0. Model calls: the N of "input saved over N model calls".
   */
  model_calls?: number;
  /** The context as the session's next model call would send it, and without HMC ("context saved"). */
  context_tokens?: number;
  context_raw_tokens?: number;
  /**
   * HMC's model of the provider's prompt cache (docs/glossary.md "cache model"): of input_tokens_raw
   * and of input_tokens_hmc, the tokens a provider could read from its cache (the rest is written).
   */
  cached_raw?: number;
  cached_hmc?: number;
  /** Input of the calls counted without a cache model (a host that reports replies only, a catch-up): priced as plain input. */
  plain_raw?: number;
  plain_hmc?: number;
  /** Did compression cost the agent work? Recalls, re-reads and the outputs HMC shortened. */
  work?: WorkFigures;
}

/** What the agent did with what HMC elided, and what each kind of tool output saved. */
export interface WorkFigures {
  /** The agent's `hmc_control action=recall` calls. */
  recalls: number;
  /** Reads of a file part whose earlier read HMC had shortened (nothing written to it between). */
  rereads: number;
  /** Tool outputs HMC shortened (when they arrived or later). */
  elided: number;
  /** Per tool and, for shell commands, per program: outputs and their tokens as they arrived and as first sent. */
  outputs: OutputTally[];
}

/** Tool outputs of one tool (and program, for a shell tool): the rows of "average saved per tool". */
export interface OutputTally {
  tool: string;
  /** The program a shell command ran (`pytest`, `git status`), '' for other tools. */
  program: string;
  /** The tool's kind in the hosts' vocabulary (read, shell, search…; '' when unknown). */
  kind: string;
  outputs: number;
  /** o200k tokens of the outputs as the tools returned them, and as HMC first sent them. */
  tokens_raw: number;
  tokens_sent: number;
}

/** Where the engine records sessions; the SQLite store implements it, tests may fake it. */
export interface SessionRecorder {
  /** Replaces everything recorded for `record.session_id`. Never throws; never blocks a hook. */
  record(record: SessionRecord): void;
  /** Records the provider usage of one model call (context-engine hosts). Never throws; never blocks a hook. */
  recordUsage?(row: UsageRecord): void;
  /** Keeps the host's price of a model (its pricing data), newest wins. Never throws. */
  recordHostPrice?(model: string, price: HostPrice, at: number): void;
}
