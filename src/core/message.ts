/**
 * A conversation message as hosts hand it over (OpenAI chat format), the one shape every layer
 * passes around: the engine holds them, the protocol checks them, the summariser reads them.
 *
 * Invariant: hosts add fields of their own and those pass through untouched; HMC writes nothing
 * but `content`, and only in the view it answers (never in what the host stores).
 */

/** One tool call inside an assistant message. */
export interface ToolCall {
  /** The call id the tool result answers with `tool_call_id`. */
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
  [key: string]: unknown;
}

/**
 * A conversation message. Hosts add fields of their own (Hermes: `tool_name`, `reasoning`,
 * `timestamp`…); the engine reads only the ones named here and never writes anything but `content`.
 */
export interface Message {
  role: string;
  /** A string, a list of content parts (multimodal), null, or anything a host puts there. */
  content?: unknown;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
  [key: string]: unknown;
}
