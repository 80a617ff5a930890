/**
 * Live events from the engine to the dashboard, and the before/after records behind the inspector.
 * Event names are the original's (`hello`, `turn`, `tool`, `session_end`), plus `phase` and
 * `session_idle`; payloads carry per-event deltas and running totals so a page that joins late
 * still shows the right figures.
 *
 * Invariant: emitting never blocks or throws into a hook (sinks buffer and drop, never wait).
 */
import type { InputTokens, Saved, SavingsBreakdown } from '../core/savings.js';

interface EventBase {
  /** Unique and increasing per source: `${source}:${seq}`; the SSE `id` (Last-Event-ID resume). */
  id: string;
  /** Which process emitted it (e.g. `sidecar-1234-1732200000000`). */
  source: string;
  /** Milliseconds since the epoch. */
  time: number;
  session_id: string;
}

/** Sent at the end of each user turn (on_session_end), once its model calls are counted. */
export interface TurnEvent extends EventBase, SavingsBreakdown {
  type: 'turn';
  turn: number;
  model: string;
  platform: string;
  project_path: string;
  /** The context at the turn's end as sent (docs/glossary.md "context"). */
  context_tokens: number;
  /**
   * The same context without HMC. This and the other figures marked new are absent from events
   * an older HMC wrote (readers fall back: docs/dashboard.md).
   */
  context_raw_tokens?: number;
  /** New. Context saved: context_raw_tokens - context_tokens. */
  context_saved?: number;
  context_window: number;
  /** 0..1 */
  context_percent: number;
  /** New. Model calls made in this turn. */
  turn_model_calls?: number;
  /** New. Input saved over this turn's model calls (turn_model_calls of them). */
  turn_input_saved?: number;
  /** New. Model calls of the session so far. */
  model_calls?: number;
  /** New. Input saved over the session's model calls so far. */
  input_saved?: number;
  /** Deprecated: turn_input_saved under its old name. */
  delta_saved: number;
  /** Deprecated: input_saved under its old name. */
  cumulative_saved: number;
  input_tokens: InputTokens;
  tool_calls: number;
  /** Prompt-cache breaks caused by rewrites of older messages so far. */
  cache_breaks: number;
  /**
   * New. The context use (0..1 of the window) past which HMC's layer 1 summarises older turns in
   * this session (engine/layer1/layer1-threshold.ts); absent when layer 1 is off or the session is manual.
   */
  summarise_at?: number;
  /** New. The host's own compression threshold (0..1 of the window), when the host sent it. */
  host_compress_at?: number;
}

/** Sent after each tool result the engine looked at. */
export interface ToolEvent extends EventBase {
  type: 'tool';
  turn: number;
  tool_name: string;
  tool_call_id: string;
  is_error: boolean;
  /** Tokens of the output as the tool returned it, and as the model sees it. */
  tokens_before: number;
  tokens_after: number;
  /** Strategies that changed this output, in order. */
  strategies: string[];
  /** Context tokens saved by this output now (tokens_before - tokens_after). */
  delta_saved: number;
  /** Input tokens saved over the session so far. */
  cumulative_saved: number;
  by_strategy: Saved;
  context_tokens: number;
  /** New: the context without HMC; context saved = context_raw_tokens - context_tokens. */
  context_raw_tokens?: number;
  context_saved?: number;
  context_percent: number;
  /** Key of the inspector record holding before/after, when one was kept. */
  inspect_id?: string;
}

/** The session's totals when it stops being live. */
interface SessionTotals extends SavingsBreakdown {
  turns: number;
  tool_calls: number;
  total_saved: number;
  input_tokens: InputTokens;
}

/**
 * Sent when a session really ends: finished, by the host's word (a new session, an expiry, a
 * reset, the end of a replay); once per end (issue 17, finding 4).
 */
export interface SessionEndEvent extends EventBase, SessionTotals {
  type: 'session_end';
}

/**
 * Sent when the process that held a session goes away (the host exits: Hermes' `-q` run, `/quit`,
 * a gateway restart; or the sidecar's host vanished) and the session may be resumed: idle, not
 * ended. Its next turn makes it live again.
 */
export interface SessionIdleEvent extends EventBase, SessionTotals {
  type: 'session_idle';
}

/**
 * Sent when layer 1 summarised a finished range of the conversation (a new phase of the session
 * index) or updated an existing phase's summary (`updated`: the same phase_id, its range grown).
 */
export interface PhaseEvent extends EventBase {
  type: 'phase';
  /** 1, 2, … per session (the index entry it announces). */
  phase_id: number;
  /** A short title of the phase. */
  topic: string;
  /** User turns the range covers (inclusive). */
  turn_from: number;
  turn_to: number;
  /** o200k tokens of the range raw, and as it is sent now. */
  tokens_before: number;
  tokens_after: number;
  /** The id `hmc_control action=recall` gives the raw range back with. */
  recall_id: string;
  /** True when an existing phase's summary was rewritten, false for a new phase. */
  updated: boolean;
}

export type HmcEvent = TurnEvent | ToolEvent | SessionEndEvent | SessionIdleEvent | PhaseEvent;
export type HmcEventType = HmcEvent['type'];

/** Distributive Omit, so each event keeps its own fields when the envelope is left out. */
export type EventPayload<E = HmcEvent> = E extends HmcEvent ? Omit<E, 'id' | 'source' | 'time'> : never;

/** A compressed tool output before and after, for the inspector. */
export interface InspectRecord {
  /** `${session_id}:${tool_call_id}` (unique per session). */
  id: string;
  session_id: string;
  tool_call_id: string;
  tool_name: string;
  time: number;
  strategies: string[];
  tokens_before: number;
  tokens_after: number;
  /** The output as the tool returned it (capped at 256 KiB; `before_truncated` says so). */
  before: string;
  /** The output as the model sees it. */
  after: string;
  before_truncated: boolean;
}

/** Where the engine sends events; implementations buffer and never block. */
export interface EventSink {
  emit(event: EventPayload): void;
  inspect(record: InspectRecord): void;
}

/** A sink that drops everything (tests, `hmc filter`). */
export const NULL_SINK: EventSink = { emit() {}, inspect() {} };
