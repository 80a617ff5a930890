/**
 * The host contract (DESIGN §3) as TypeScript: one method per sidecar protocol method, with the
 * hook kwargs Hermes passes. The sidecar's dispatcher and in-process hosts call these; the engine
 * implements them.
 *
 * Invariant: no method throws into the host; bad params get a pass-through answer (DESIGN §4.6).
 * Params reach these methods checked (src/protocol/guards.ts for the sidecar, the types for a
 * TypeScript host), so implementations trust the types and check only what the values mean.
 */
import type { ContextEngineApi } from './context-engine.js';
import type { Message, ToolCall } from './message.js';

/** A tool's JSON schema as hosts register it (OpenAI function format). */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: {
    type: 'object';
    properties: Record<string, { type: string; description: string }>;
    required: string[];
  };
}

/** What the sidecar read in the host's own config file: figures a host sends back with each call. */
export interface HostConfigFacts {
  /** The model's window, when the host's config names a positive whole number. */
  context_length?: number;
  /** Where the host's own compressor fires (0 < share <= 1); absent when it is off. */
  compression_threshold?: number;
}

export interface HelloParams {
  host?: string;
  protocol?: number;
  capabilities?: string[];
  /**
   * The path of the host's own config file (Hermes: its config.yaml): the answer's `host_config`
   * is read from it by the reader of the host `host` names (hosts/index.ts). An older Hermes
   * bridge sends it as `hermes_config`, still read (docs/hermes.md, "The hello").
   */
  host_config_file?: string;
  [key: string]: unknown;
}

export interface HelloResult {
  version: string;
  protocol: 1;
  capabilities: string[];
  /** The `hmc_control` tool schema, for a host to register (the Hermes bridge updates its copy). */
  control_schema?: ToolSchema;
  /** The size of one stretch of a long history sent ahead with `partial` (capability "partial"). */
  stream_bytes?: number;
  /** What the sidecar read in the host config file the hello named (`host_config_file`): send these with each call. */
  host_config?: HostConfigFacts;
}

export interface PreToolCallParams {
  session_id: string;
  tool_name: string;
  args: unknown;
  tool_call_id?: string;
  task_id?: string;
  [key: string]: unknown;
}

export interface PostToolCallParams {
  session_id: string;
  tool_name: string;
  args: unknown;
  /** Usually a JSON string; may be anything (a multimodal dict). */
  result: unknown;
  tool_call_id?: string;
  task_id?: string;
  /** Hermes: ok / error / blocked. */
  status?: string;
  is_error?: boolean;
  [key: string]: unknown;
}

export interface PostToolCallResult {
  /** The compressed output, when HMC would change it; hosts that can substitute a result use it. */
  replace?: string;
}

export interface PreLlmCallParams {
  session_id: string;
  /** The whole conversation, raw. Either this or base + append. */
  messages?: Message[];
  /** How many messages of the conversation the engine already holds (unchanged, raw). */
  base?: number;
  /** The raw messages after `base`. */
  append?: Message[];
  /**
   * More of this history follows in the next call (capability `partial`): hold these messages and
   * answer no edits; no model call happens now. A host streams a long history this way, so no
   * call carries more than a bounded stretch of it (docs/engine.md, "Big first calls").
   */
  partial?: boolean;
  model?: string;
  platform?: string;
  /**
   * The user the host serves this turn for (Hermes' gateway: the sender's id on `platform`; its
   * CLI sends none). Sessions of different users never read each other's index (engine/session/owner.ts).
   */
  sender_id?: string;
  /** The model's context window in tokens, when the host knows it. */
  context_length?: number;
  /** The host process' project (its working directory), when the host says. */
  project_path?: string;
  /** The host's own compression threshold (0..1 of the window), when it has one. */
  compression_threshold?: number;
  user_message?: unknown;
  [key: string]: unknown;
}

/** One in-place edit: message `index` of the raw list gets `content`. */
export interface Edit {
  index: number;
  content: string;
}

/**
 * One entry of `pre_model_call`'s view: message `index` is sent with `content` and, for an
 * assistant message, with `tool_calls`: its whole list of calls, the same ids, types, names and
 * order, some with shorter `arguments` (a JSON object string). A field left out is sent raw. Only
 * a host whose `hello` said it applies `tool_calls` edits (hosts/capabilities.ts) gets them, and
 * only from `pre_model_call`: they change one request, never the stored history.
 */
export interface ModelCallEdit {
  index: number;
  content?: string;
  tool_calls?: ToolCall[];
}

export interface PreLlmCallResult {
  /** The complete view for this call, relative to the raw messages sent. */
  edits: Edit[];
  /** A one-line hint for the model, only when it changed (hosts append it to the user message). */
  context?: string;
}

/**
 * `pre_model_call`: sent before every model call (the tool loop included) by hosts that can change
 * one request without changing their stored history (Hermes: `llm_request` middleware). The same
 * conversation as `pre_llm_call`, whole or as `base` + `append`; `base` counts what the engine holds
 * from either method.
 */
export interface PreModelCallParams extends PreLlmCallParams {
  /** The host's id of this request: a retry sent with the same id is not counted again. */
  call_id?: string;
  /**
   * The system prompt sent ahead of the messages (null: none). Omitted when unchanged since the
   * previous call of this session; counted as input of every call, never edited.
   */
  system?: string | null;
  /** The tool schemas sent with the request; omitted when unchanged. Counted as input, never edited. */
  tools?: unknown[];
  /** The `view` of the previous answer, when the host still holds it: the answer is then a delta. */
  view?: number;
  /**
   * The host's own measure of this request, raw (before HMC's edits), in the units its compressor
   * decides on (Hermes: characters / 4 of every message and the tool schemas). Layer 1 then fires
   * at its share of the host's threshold in the host's own units (docs/engine.md, "Layer 1").
   */
  host_tokens?: number;
}

export interface PreModelCallResult {
  /**
   * The view for this one call, relative to the raw messages sent: complete, or (when `since` is
   * set) only the entries that changed since the host's view `since` (an entry replaces the
   * host's whole entry for its index).
   */
  edits: ModelCallEdit[];
  /** This view's id; a host that keeps it sends it back as `view`. */
  view?: number;
  /** Set when `edits` is a delta against the host's view `since`; `removed` lists indices no longer edited. */
  since?: number;
  removed?: number[];
}

export interface SessionEndParams {
  session_id: string;
  completed?: boolean;
  interrupted?: boolean;
  /**
   * The conversation at the turn's end, for hosts that do not call `pre_model_call`: its replies
   * are counted as model calls now rather than at the next turn.
   */
  messages?: Message[];
  [key: string]: unknown;
}

export interface SessionFinalizeParams {
  /** '' (or, from Hermes, None): every session this process touched. */
  session_id: string;
  /**
   * Why: `shutdown` (or no reason) means the host process is going away and the session may be
   * resumed later, so it becomes idle; any other reason (a new session, an expiry, a reset, the
   * end of a replay) means it is finished: ended (`finishesSession`).
   */
  reason?: string;
  /** The conversation at the end, so the last replies count as model calls (hosts without `pre_model_call`). */
  messages?: Message[];
  [key: string]: unknown;
}

/**
 * Reasons of `on_session_finalize` that end the host process, not the session (Hermes sends
 * `shutdown` when its CLI, a `-q` run or its gateway exits; its TUI sends no reason on close).
 */
const PROCESS_EXITS: ReadonlySet<string> = new Set(['shutdown', '']);

/** True when a finalize with this reason finishes the session; false when it only goes idle. */
export function finishesSession(reason: unknown): boolean {
  return typeof reason === 'string' && !PROCESS_EXITS.has(reason.trim().toLowerCase());
}

export interface ControlParams {
  session_id?: string;
  /** The hmc_control tool's arguments. */
  args: Record<string, unknown>;
}

export interface CommandParams {
  session_id?: string;
  /** Text after `/hmc`. */
  raw_args: string;
}

/**
 * What a host calls. Every method answers; none throws. The context engine's methods
 * (core/context-engine.ts) are there when the implementation is one (capability `context_engine`).
 */
export interface HmcHostApi extends Partial<ContextEngineApi> {
  hello(params: HelloParams): HelloResult;
  preToolCall(params: PreToolCallParams): Record<string, never>;
  postToolCall(params: PostToolCallParams): PostToolCallResult;
  /** Throws `ResyncError` only when `base` does not match what the engine holds. */
  preLlmCall(params: PreLlmCallParams): PreLlmCallResult;
  /** Throws `ResyncError` only when `base` does not match what the engine holds. */
  preModelCall(params: PreModelCallParams): PreModelCallResult;
  onSessionEnd(params: SessionEndParams): Record<string, never>;
  onSessionFinalize(params: SessionFinalizeParams): Record<string, never>;
  control(params: ControlParams): Promise<Record<string, unknown>>;
  command(params: CommandParams): Promise<string>;
}

/** The host sent `base` + `append` but the engine does not hold that base: send `messages`. */
export class ResyncError extends Error {
  readonly code = 'resync';
  constructor(message: string) {
    super(message);
    this.name = 'ResyncError';
  }
}
