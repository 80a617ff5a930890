/**
 * Guards for the sidecar protocol: turn one parsed JSON line into a checked `Incoming` record, or
 * an error that names the offending field.
 *
 * Invariant: nothing is cast; every field the dispatcher reads is checked here first, and a bad
 * line yields an `invalid` record (answered with an error), never an exception.
 */
import type { PreLlmCallParams } from '../core/host-api.js';
import type { Message } from '../core/message.js';
import type {
  HostMethod,
  HostMethodParams,
  HostRequest,
  Incoming,
  LlmCompleteParams,
  LlmCompleteResult,
  ProtocolError,
  RequestId,
  Response,
} from './types.js';
import { HOST_METHODS } from './types.js';
import {
  compressParams,
  engineSessionParams,
  shouldCompressParams,
  updateFromResponseParams,
} from './engine-guards.js';
import { errorText } from '../core/errors.js';

type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const bad = <T>(message: string): Checked<T> => ({ ok: false, message });

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRequestId(value: unknown): value is RequestId {
  return (typeof value === 'string' && value.length <= 200) || (typeof value === 'number' && Number.isFinite(value));
}

function isMethod(value: string): value is HostMethod {
  return (HOST_METHODS as readonly string[]).includes(value);
}

/** A session id: a string; null or missing (Hermes may finalize with `session_id=None`) become ''. */
function sessionId(params: Record<string, unknown>): Checked<string> {
  const value = params.session_id;
  if (value === undefined || value === null) return ok('');
  return typeof value === 'string' ? ok(value) : bad('params.session_id must be a string');
}

/**
 * The params with each optional hint of the wrong type left out, as if the host had not sent it
 * (a model name, a tool call id: a hint never fails a hook). Fields a method needs are checked
 * by its checker and refused with an error naming them. After this, the engine trusts the types.
 */
function withHints(
  params: Record<string, unknown>,
  hints: Record<string, 'string' | 'number'>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...params };
  for (const [key, type] of Object.entries(hints))
    if (out[key] !== undefined && typeof out[key] !== type) delete out[key];
  return out;
}

/** The hints of a tool call (pre_tool_call, post_tool_call). */
const CALL_HINTS = { tool_call_id: 'string', status: 'string' } as const;
/** The hints of a model call (pre_llm_call, pre_model_call). */
const CONVERSATION_HINTS = {
  model: 'string',
  platform: 'string',
  sender_id: 'string',
  project_path: 'string',
  compression_threshold: 'number',
} as const;

/** A message list: objects with a string `role` (anything else in them passes through untouched). */
function messages(value: unknown, field: string): Checked<Message[]> {
  if (!Array.isArray(value)) return bad(`params.${field} must be an array of messages`);
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (!isMessage(item)) return bad(`params.${field}[${i}] must be an object with a string "role"`);
  }
  // Every element was checked by isMessage above; the array itself is the checked value.
  return ok(value.filter(isMessage));
}

function isMessage(value: unknown): value is Message {
  return isRecord(value) && typeof value.role === 'string';
}

/** The params of `pre_llm_call` and `pre_model_call`: the conversation whole, or `base` + `append`. */
function conversation(params: Record<string, unknown>): Checked<PreLlmCallParams> {
  const p = withHints(params, CONVERSATION_HINTS);
  const sid = sessionId(p);
  if (!sid.ok) return sid;
  if (p.context_length !== undefined && typeof p.context_length !== 'number')
    return bad('params.context_length must be a number');
  if (
    p.host_tokens !== undefined &&
    !(typeof p.host_tokens === 'number' && Number.isFinite(p.host_tokens) && p.host_tokens >= 0)
  ) {
    return bad('params.host_tokens must be a non-negative number');
  }
  if (p.messages !== undefined) {
    const list = messages(p.messages, 'messages');
    if (!list.ok) return list;
    return ok({ ...p, session_id: sid.value, messages: list.value });
  }
  if (p.base === undefined && p.append === undefined) return bad('params needs "messages", or "base" and "append"');
  if (typeof p.base !== 'number' || !Number.isInteger(p.base) || p.base < 0)
    return bad('params.base must be a non-negative integer');
  const append = messages(p.append, 'append');
  if (!append.ok) return append;
  return ok({ ...p, session_id: sid.value, base: p.base, append: append.value });
}

/** The params of `on_session_end` and `on_session_finalize`: a session id, maybe the conversation. */
function ending(p: Record<string, unknown>): Checked<{ session_id: string; messages?: Message[] }> {
  const sid = sessionId(p);
  if (!sid.ok) return sid;
  if (p.messages === undefined) return ok({ ...p, session_id: sid.value });
  const list = messages(p.messages, 'messages');
  return list.ok ? ok({ ...p, session_id: sid.value, messages: list.value }) : list;
}

type ParamCheck<M extends HostMethod> = (params: Record<string, unknown>) => Checked<HostMethodParams[M]>;

/** One checker per method; each yields that method's params, fully typed. */
const CHECKS: { [M in HostMethod]: ParamCheck<M> } = {
  hello: (p) => {
    if (p.protocol !== undefined && p.protocol !== 1)
      return bad(`params.protocol ${JSON.stringify(p.protocol)} is not supported (this sidecar speaks 1)`);
    const caps = p.capabilities;
    if (caps !== undefined && !(Array.isArray(caps) && caps.every((c) => typeof c === 'string'))) {
      return bad('params.capabilities must be an array of strings');
    }
    return ok({ ...p });
  },
  pre_tool_call: (params) => {
    const p = withHints(params, CALL_HINTS);
    const sid = sessionId(p);
    if (!sid.ok) return sid;
    if (typeof p.tool_name !== 'string') return bad('params.tool_name must be a string');
    return ok({ ...p, session_id: sid.value, tool_name: p.tool_name, args: p.args ?? {} });
  },
  post_tool_call: (params) => {
    const p = withHints(params, CALL_HINTS);
    const sid = sessionId(p);
    if (!sid.ok) return sid;
    if (typeof p.tool_name !== 'string') return bad('params.tool_name must be a string');
    if (!('result' in p)) return bad('params.result is missing');
    return ok({ ...p, session_id: sid.value, tool_name: p.tool_name, args: p.args ?? {}, result: p.result });
  },
  pre_llm_call: (p) => conversation(p),
  pre_model_call: (p) => {
    if (p.call_id !== undefined && typeof p.call_id !== 'string') return bad('params.call_id must be a string');
    if (p.system !== undefined && p.system !== null && typeof p.system !== 'string')
      return bad('params.system must be a string or null');
    if (p.tools !== undefined && !Array.isArray(p.tools)) return bad('params.tools must be an array');
    if (p.view !== undefined && (typeof p.view !== 'number' || !Number.isInteger(p.view)))
      return bad('params.view must be an integer');
    return conversation(p);
  },
  on_session_end: (p) => ending(p),
  on_session_finalize: (p) => ending(p),
  hmc_control: (p) => {
    const sid = sessionId(p);
    if (!sid.ok) return sid;
    const args = p.args ?? {};
    if (!isRecord(args)) return bad('params.args must be an object (the hmc_control arguments)');
    return ok({ session_id: sid.value, args: normalizeControlArgs(args) });
  },
  command: (p) => {
    const sid = sessionId(p);
    if (!sid.ok) return sid;
    const raw = p.raw_args ?? '';
    if (typeof raw !== 'string') return bad('params.raw_args must be a string');
    return ok({ session_id: sid.value, raw_args: raw });
  },
  should_compress: (p) => shouldCompressParams(p),
  compress: (p) => compressParams(p, messages),
  update_from_response: (p) => updateFromResponseParams(p),
  engine_session: (p) => engineSessionParams(p),
  ping: () => ok({}),
};

/**
 * hmc_control accepts the dashboard's sub-action in three spellings (docs/hermes.md):
 * `{action:"dashboard", sub_action:"start"}` (the original's), `{action:"dashboard start"}` (the
 * `/hmc` text form) and `{action:"dashboard", dashboard:{action:"start"}}` (nested). All become the
 * first, so the engine sees one form.
 */
export function normalizeControlArgs(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...args };
  if (typeof out.action === 'string') {
    const words = out.action.trim().split(/\s+/);
    if (words.length === 2 && words[0] !== undefined && words[1] !== undefined && out.sub_action === undefined) {
      out.action = words[0];
      out.sub_action = words[1];
    }
  }
  const action = typeof out.action === 'string' ? out.action.trim().toLowerCase() : '';
  const nested = action ? out[action] : undefined;
  if (out.sub_action === undefined && isRecord(nested) && typeof nested.action === 'string') {
    out.sub_action = nested.action;
    delete out[action];
  }
  return out;
}

function errorOf(value: unknown): ProtocolError | undefined {
  if (!isRecord(value)) return undefined;
  const code = typeof value.code === 'string' ? value.code : 'internal';
  const message = typeof value.message === 'string' ? value.message : JSON.stringify(value);
  return { code, message };
}

/** Classifies one parsed line: a host request, a response to one of our requests, or invalid. */
export function classify(value: unknown): Incoming {
  if (!isRecord(value)) return invalid(null, 'invalid_request', 'a record must be a JSON object');
  const id = isRequestId(value.id) ? value.id : null;
  if (value.id === undefined || id === null) {
    return invalid(
      null,
      'invalid_request',
      value.id === undefined ? 'the record has no "id"' : '"id" must be a string or a number',
    );
  }
  if (value.method === undefined) {
    if ('result' in value) return { kind: 'response', response: { id, result: value.result } };
    const error = errorOf(value.error);
    if (error) return { kind: 'response', response: { id, error } };
    return invalid(id, 'invalid_request', 'the record has neither "method" nor "result"/"error"');
  }
  if (typeof value.method !== 'string') return invalid(id, 'invalid_request', '"method" must be a string');
  if (!isMethod(value.method)) return invalid(id, 'unknown_method', `unknown method "${value.method.slice(0, 80)}"`);
  const params = value.params ?? {};
  if (!isRecord(params)) return invalid(id, 'invalid_params', `"params" of ${value.method} must be an object`);
  const request = checkRequest(id, value.method, params);
  return request.ok
    ? { kind: 'request', request: request.value }
    : invalid(id, 'invalid_params', `${value.method}: ${request.message}`);
}

function checkRequest(id: RequestId, method: HostMethod, p: Record<string, unknown>): Checked<HostRequest> {
  // One case per method so each record is built with its literal `method` (no cast needed).
  switch (method) {
    case 'hello':
      return wrap(CHECKS.hello(p), (params) => ({ id, method, params }));
    case 'pre_tool_call':
      return wrap(CHECKS.pre_tool_call(p), (params) => ({ id, method, params }));
    case 'post_tool_call':
      return wrap(CHECKS.post_tool_call(p), (params) => ({ id, method, params }));
    case 'pre_llm_call':
      return wrap(CHECKS.pre_llm_call(p), (params) => ({ id, method, params }));
    case 'pre_model_call':
      return wrap(CHECKS.pre_model_call(p), (params) => ({ id, method, params }));
    case 'on_session_end':
      return wrap(CHECKS.on_session_end(p), (params) => ({ id, method, params }));
    case 'on_session_finalize':
      return wrap(CHECKS.on_session_finalize(p), (params) => ({ id, method, params }));
    case 'hmc_control':
      return wrap(CHECKS.hmc_control(p), (params) => ({ id, method, params }));
    case 'command':
      return wrap(CHECKS.command(p), (params) => ({ id, method, params }));
    case 'should_compress':
      return wrap(CHECKS.should_compress(p), (params) => ({ id, method, params }));
    case 'compress':
      return wrap(CHECKS.compress(p), (params) => ({ id, method, params }));
    case 'update_from_response':
      return wrap(CHECKS.update_from_response(p), (params) => ({ id, method, params }));
    case 'engine_session':
      return wrap(CHECKS.engine_session(p), (params) => ({ id, method, params }));
    case 'ping':
      return wrap(CHECKS.ping(p), (params) => ({ id, method, params }));
  }
}

function wrap<P>(checked: Checked<P>, build: (params: P) => HostRequest): Checked<HostRequest> {
  return checked.ok ? ok(build(checked.value)) : checked;
}

/** Parses one line of text; JSON syntax errors become an `invalid` record. */
export function parseIncoming(line: string): Incoming {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    const reason = errorText(err);
    return invalid(null, 'parse_error', `line is not valid JSON (${reason.slice(0, 120)})`);
  }
  return classify(value);
}

function invalid(id: RequestId | null, code: ProtocolError['code'], message: string): Incoming {
  return { kind: 'invalid', id, error: { code, message } };
}

/** Checks the host's answer to `llm.complete`: `{text}` or a bare string. */
export function llmCompleteResult(value: unknown): LlmCompleteResult | undefined {
  if (typeof value === 'string') return { text: value };
  if (!isRecord(value) || typeof value.text !== 'string') return undefined;
  const result: LlmCompleteResult =
    typeof value.model === 'string' ? { text: value.text, model: value.model } : { text: value.text };
  // A price the host cannot state as two finite, non-negative multiples is no price (the config's stays).
  const price = value.price;
  if (isRecord(price) && isPriceMultiple(price.input) && isPriceMultiple(price.output))
    result.price = { input: price.input, output: price.output };
  return result;
}

function isPriceMultiple(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

export function isErrorResponse(response: Response): response is { id: RequestId | null; error: ProtocolError } {
  return 'error' in response;
}

/** Checks params the engine passes for `llm.complete` before they go to the host. */
export function llmCompleteParams(params: Record<string, unknown>): LlmCompleteParams | undefined {
  const list = messages(params.messages, 'messages');
  if (!list.ok) return undefined;
  const maxTokens = params.max_tokens;
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens <= 0) return undefined;
  return { messages: list.value, max_tokens: maxTokens };
}
