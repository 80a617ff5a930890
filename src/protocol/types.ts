/**
 * The sidecar protocol v1 (DESIGN §3) as one discriminated union of records: requests from the
 * host keyed on `method`, the sidecar's requests to the host (`llm.complete`), and responses.
 *
 * Invariant: these types describe lines only after a guard (`guards.ts`) has checked them; nothing
 * here is ever produced by casting parsed JSON.
 */
import type {
  CommandParams,
  ControlParams,
  HelloParams,
  PostToolCallParams,
  PreLlmCallParams,
  PreModelCallParams,
  PreToolCallParams,
  SessionEndParams,
  SessionFinalizeParams,
} from '../core/host-api.js';
import type {
  CompressParams,
  EngineSessionParams,
  ShouldCompressParams,
  UpdateFromResponseParams,
} from '../core/context-engine.js';
import type { Message } from '../core/message.js';

/** A request id: the host's (any string or number) or the sidecar's own (`h1`, `h2`…). */
export type RequestId = string | number;

/** Error codes the sidecar answers with; `resync` asks the host to send the whole conversation. */
export type ErrorCode =
  | 'parse_error'
  | 'invalid_request'
  | 'unknown_method'
  | 'invalid_params'
  | 'resync'
  | 'internal'
  | 'timeout'
  | 'closed';

export interface ProtocolError {
  /** Machine-readable reason. */
  code: ErrorCode | string;
  /** One sentence naming what is wrong (a field, a method, a line). */
  message: string;
}

/** The protocol methods a host may call, mapped to their params. */
export interface HostMethodParams {
  hello: HelloParams;
  pre_tool_call: PreToolCallParams;
  post_tool_call: PostToolCallParams;
  pre_llm_call: PreLlmCallParams;
  pre_model_call: PreModelCallParams;
  on_session_end: SessionEndParams;
  on_session_finalize: SessionFinalizeParams;
  hmc_control: ControlParams;
  command: CommandParams;
  /** The context engine (core/context-engine.ts): hosts that let HMC own compaction. */
  should_compress: ShouldCompressParams;
  compress: CompressParams;
  update_from_response: UpdateFromResponseParams;
  engine_session: EngineSessionParams;
  /** Liveness (issue 26, finding 7): answered at once with `{}`, even while a compaction waits for its summaries. */
  ping: Record<string, never>;
}

export type HostMethod = keyof HostMethodParams;

/** A request from the host, checked: one member per method. */
export type HostRequest = {
  [M in HostMethod]: { id: RequestId; method: M; params: HostMethodParams[M] };
}[HostMethod];

/** `llm.complete`: the sidecar asks the host's auxiliary model for a completion. */
export interface LlmCompleteParams {
  messages: Message[];
  max_tokens: number;
}

/** What the host answers to `llm.complete`. */
export interface LlmCompleteResult {
  /** The completion text. */
  text: string;
  /** The model that answered, when the host says. */
  model?: string;
  /**
   * What that model's tokens cost, as multiples of the main model's input token price (read
   * `input`, written `output`), when the host knows both models' prices (Hermes' price table).
   */
  price?: { input: number; output: number };
}

/** The sidecar's requests to the host. */
export interface SidecarMethodParams {
  'llm.complete': LlmCompleteParams;
}

export type SidecarMethod = keyof SidecarMethodParams;

export type SidecarRequest = {
  [M in SidecarMethod]: { id: string; method: M; params: SidecarMethodParams[M] };
}[SidecarMethod];

/** A response, either way: exactly one of `result` or `error`. `id` is null when the line had none. */
export type Response = { id: RequestId | null; result: unknown } | { id: RequestId | null; error: ProtocolError };

/** Any record that may cross the wire. */
export type ProtocolRecord = HostRequest | SidecarRequest | Response;

/** One incoming line from the host, classified by `guards.parseIncoming`. */
export type Incoming =
  | { kind: 'request'; request: HostRequest }
  | { kind: 'response'; response: Response }
  | { kind: 'invalid'; id: RequestId | null; error: ProtocolError };

export const HOST_METHODS: readonly HostMethod[] = [
  'hello',
  'pre_tool_call',
  'post_tool_call',
  'pre_llm_call',
  'pre_model_call',
  'on_session_end',
  'on_session_finalize',
  'hmc_control',
  'command',
  'should_compress',
  'compress',
  'update_from_response',
  'engine_session',
  'ping',
];
