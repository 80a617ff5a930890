/**
 * Layer 1's summariser as the engine sees it (DESIGN §6; issue 10): a finished range of the
 * conversation in, a structured handoff summary out, through the host's auxiliary model
 * (`llm.complete`) or an OpenAI-compatible endpoint from the config. Secrets never leave in a
 * request and never come back in a summary.
 *
 * Invariant: `summarise` never throws and never hangs past its timeout; a failure is a result
 * that says why (and whether trying again later may help), never a silent loss.
 */
import type { Message } from '../core/message.js';

/** One completion: the messages for the model and the most tokens it may write. */
export type Complete = (
  messages: Message[],
  maxTokens: number,
  signal: AbortSignal,
) => Promise<{ text: string; model?: string; price?: SummariserPrice }>;

/** The summariser's token prices as multiples of the main model's input token price. */
export interface SummariserPrice {
  input: number;
  output: number;
}

export interface SummaryRequest {
  sessionId: string;
  /** The range's messages exactly as the host sent them (raw tool outputs, assistant text, user text). */
  messages: readonly Message[];
  /** The summary this range already holds, when it is updated rather than written anew (iterative). */
  previous?: string;
  /** The most tokens the summary may take. */
  maxTokens: number;
  /** What the user asked the summary to keep in full (Hermes' `/compress <topic>`). */
  focus?: string;
  /** Notes a memory provider handed over for the summary (Hermes' `memory_context`). */
  notes?: string;
  /**
   * Waited for between steps of preparing the request (the engine: one step after each hook, so a
   * replay asks at the same hook on any machine; issue 25). Without it, a turn of the event loop.
   */
  pace?: () => Promise<void>;
}

export type SummaryResult =
  | {
      ok: true;
      /** The summary (handoff sections), secrets redacted. */
      text: string;
      /** A short title of the phase (its first goal line), secrets redacted. */
      topic: string;
      /** The model that answered, when known. */
      model: string;
      /** Tokens of the request and of the answer (a cost, reported, never hidden). */
      tokensIn: number;
      tokensOut: number;
      /** Secrets replaced before the call and in the answer. */
      redactions: number;
      /** What the model that answered costs, when the host knows (its price table). */
      price?: SummariserPrice;
    }
  | {
      ok: false;
      /** One sentence: what went wrong (timeout, HTTP 500, empty answer, host unavailable…). */
      reason: string;
      /** True when a later try may succeed (timeout, 5xx, host busy); false for a config error. */
      retryable: boolean;
      tokensIn: number;
    };

export interface Summariser {
  summarise(request: SummaryRequest): Promise<SummaryResult>;
}
