/**
 * The host contract's second way in (issue 16, DESIGN §2): HMC as the host's context engine. A
 * host that lets one engine own compaction (Hermes' `ContextEngine`, chosen by `context.engine:
 * hmc`) asks the sidecar whether to compact, has it compact, and hands it the provider's usage of
 * each model call. The sidecar lists the capability `context_engine` in its `hello` answer.
 *
 * Invariant: the host decides nothing with these answers but what they say; every method answers,
 * and an answer that cannot be given is an error the host meets by handing over to its own
 * compressor (a session must always be able to compact).
 */
import type { Message } from './message.js';

/**
 * Which measure of the context a host asks about: `provider`, the prompt tokens the provider
 * reported for the last request (what HMC sent); `host`, the host's own rough measure of its
 * history (Hermes: characters / 4), which does not see the per-call view.
 */
export type ContextMeasure = 'provider' | 'host';

export interface ShouldCompressParams {
  session_id: string;
  /** The figure the host decides on, in its own units. */
  tokens: number;
  measure: ContextMeasure;
  /** Where the host compacts (its own threshold, in the same units). */
  threshold_tokens: number;
  /**
   * Host units the turn's in-place edits already took off a `host` measure (the host measured its
   * live history while they were applied), so they are not taken off twice.
   */
  in_place_tokens?: number;
  /** The host compacted and has had no provider figure since: its rough measure does not decide. */
  awaiting_usage?: boolean;
}

export interface ShouldCompressResult {
  compress: boolean;
  /** The context as HMC sends it, in the host's units (what was compared with the threshold). */
  tokens: number;
  /** One phrase: why (for logs and status). */
  reason: string;
}

export interface CompressParams {
  session_id: string;
  /** The host's conversation as it sends it (no system prompt), oldest first. */
  messages: Message[];
  /** Where the host compacts: the compacted list should come well under it. */
  threshold_tokens?: number;
  /** What the user asked to keep (`/compress <topic>`): the summary keeps it in full. */
  focus_topic?: string;
  /** A memory provider's notes for the handoff (redacted like everything the summariser reads). */
  memory_context?: string;
  /** A manual compaction: compact even what is small. */
  force?: boolean;
}

/** One item of a compacted conversation: the host's message `keep` as it is, or a new message. */
export type PlanItem = { keep: number } | { message: { role: 'user' | 'assistant'; content: string } };

export interface CompressResult {
  /** The compacted conversation, in order; null when HMC has nothing to compact (the host hands over). */
  plan: PlanItem[] | null;
  /** One phrase: what was done, or why nothing was. */
  reason: string;
  /** Summaries made now, and reused from layer 1 (no model call). */
  summarised?: number;
  reused?: number;
  /** The summariser's tokens spent by this compaction (its requests and answers). */
  summariser_tokens?: { in: number; out: number };
  /** The recall ids of the phases the summaries stand for. */
  recall_ids?: string[];
}

/** Usage as a provider reported it for one model call (Hermes' normalised keys). */
export interface ProviderUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Of the prompt: read from the provider's cache, and written to it. */
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
}

export interface UpdateFromResponseParams {
  session_id: string;
  /** The model that answered ('' when unknown). */
  model: string;
  /** The host's provider name ('' when unknown). */
  provider: string;
  usage: ProviderUsage;
  /**
   * Which call it was, as the host names it (issue 24): Hermes' `api_request_id` (the `call_id` its
   * pre_model_call carried), its turn id and call count. Without `call_id` the row is the latest
   * call HMC counted (the engine's `update_from_response`, which names none).
   */
  call_id?: string;
  turn_id?: string;
  call_count?: number;
  /** Where the figures came from: the `post_api_request` hook, or the engine's `update_from_response`. */
  source?: 'hook' | 'engine';
  /** When the response came (ms since the epoch); the sidecar's clock when absent. */
  at?: number;
  /** The host's own price of the model (Hermes' pricing data), per million tokens. */
  price?: HostPrice;
}

/** A model's price as the host knows it, per million tokens, and where the host has it from. */
export interface HostPrice {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  /** The host's name for its source (Hermes: `official_docs_snapshot`, `provider_models_api`…). */
  source: string;
}

/** The engine's session boundaries as the host announces them (none of them ends HMC's session). */
export interface EngineSessionParams {
  session_id: string;
  /** start (an agent began, a compaction rotated the id), end (exit, compaction: not the session's end), reset (/new). */
  event: 'start' | 'end' | 'reset';
  /** At a compaction boundary: the id the conversation had before (the same when compacted in place). */
  old_session_id?: string;
  boundary_reason?: string;
}

/** What a context-engine host calls, beside the hooks (HmcHostApi). */
export interface ContextEngineApi {
  shouldCompress(params: ShouldCompressParams): ShouldCompressResult;
  compress(params: CompressParams): Promise<CompressResult>;
  updateFromResponse(params: UpdateFromResponseParams): Record<string, never>;
  engineSession(params: EngineSessionParams): Record<string, never>;
}
