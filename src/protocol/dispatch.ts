/**
 * The sidecar's request loop: one checked request → one `HmcHostApi` call → one response record,
 * plus the connection object that classifies incoming lines (host requests, or the host's answers
 * to our `llm.complete` calls).
 *
 * Invariant: every request with an id gets exactly one response; malformed lines, unknown methods,
 * bad params and engine exceptions become `{"id","error":{code,message}}`, never a crash.
 * Synchronous API methods complete in arrival order (they run to completion before the next line
 * is read); `hmc_control` and `command` may finish later, answered by id.
 */
import type { HmcHostApi } from '../core/host-api.js';
import { parseIncoming } from './guards.js';
import { HostCalls } from './host-calls.js';
import type { HostRequest, ProtocolError, RequestId, Response } from './types.js';
import { errorText } from '../core/errors.js';

/** Calls the engine for one request; never throws. */
export async function dispatch(request: HostRequest, api: HmcHostApi): Promise<Response> {
  const { id } = request;
  try {
    return { id, result: await call(request, api) };
  } catch (err) {
    return { id, error: errorFor(err) };
  }
}

function call(request: HostRequest, api: HmcHostApi): unknown {
  switch (request.method) {
    case 'hello':
      return api.hello(request.params);
    case 'pre_tool_call':
      return api.preToolCall(request.params);
    case 'post_tool_call':
      return api.postToolCall(request.params);
    case 'pre_llm_call':
      return api.preLlmCall(request.params);
    case 'pre_model_call':
      return api.preModelCall(request.params);
    case 'on_session_end':
      return api.onSessionEnd(request.params);
    case 'on_session_finalize':
      return api.onSessionFinalize(request.params);
    case 'hmc_control':
      return api.control(request.params);
    case 'command':
      return api.command(request.params);
    // The context engine's methods (core/context-engine.ts), when this API is one.
    case 'should_compress':
      return api.shouldCompress ? api.shouldCompress(request.params) : noEngine();
    case 'compress':
      return api.compress ? api.compress(request.params) : noEngine();
    case 'update_from_response':
      return api.updateFromResponse ? api.updateFromResponse(request.params) : noEngine();
    case 'engine_session':
      return api.engineSession ? api.engineSession(request.params) : noEngine();
    case 'ping':
      return {};
  }
}

function noEngine(): never {
  throw new Error('this sidecar is no context engine (it lists no capability "context_engine")');
}

/** A ResyncError (matched by its `code`, so a copy from another module instance counts too). */
function errorFor(err: unknown): ProtocolError {
  const message = errorText(err);
  if (typeof err === 'object' && err !== null && 'code' in err && err.code === 'resync') {
    return { code: 'resync', message: message || 'the sidecar does not hold that base; send "messages"' };
  }
  return { code: 'internal', message: message.slice(0, 500) || 'internal error' };
}

export interface ConnectionOptions {
  /** Writes one record as a line to the host. */
  write: (record: unknown) => void;
  /** One diagnostic line (stderr / log file); never stdout. */
  log: (line: string) => void;
  /** Wait for the host's answers to our requests. */
  hostCallTimeoutMs?: number;
  /** The framing's line limit, told to the host in the `hello` answer (`max_line_bytes`). */
  maxLineBytes?: number;
}

/**
 * One host connection. Create it before the engine (the engine needs `hostCalls`), then `attach`
 * the API; lines that arrive before that are answered as soon as it is attached.
 */
export class Connection {
  readonly hostCalls: HostCalls;
  private api: HmcHostApi | undefined;
  private queued: string[] = [];
  private inFlight = new Set<Promise<void>>();

  constructor(private readonly options: ConnectionOptions) {
    this.hostCalls = new HostCalls((record) => options.write(record), options.hostCallTimeoutMs);
  }

  attach(api: HmcHostApi): void {
    this.api = api;
    const queued = this.queued;
    this.queued = [];
    for (const line of queued) this.handleLine(line);
  }

  /** Handles one line from the host. */
  handleLine(line: string): void {
    const incoming = parseIncoming(line);
    if (incoming.kind === 'response') {
      if (!this.hostCalls.settle(incoming.response))
        this.options.log(`ignored a response to unknown id ${JSON.stringify(incoming.response.id)}`);
      return;
    }
    if (incoming.kind === 'invalid') {
      this.options.log(`bad request: ${incoming.error.message}`);
      this.reply({ id: incoming.id, error: incoming.error });
      return;
    }
    const api = this.api;
    if (!api) {
      this.queued.push(line);
      return;
    }
    const done = dispatch(incoming.request, api).then((response) => {
      if ('error' in response && response.error.code !== 'resync') {
        this.options.log(`${incoming.request.method} failed: ${response.error.message}`);
      }
      // The host learns the line limit, so it never sends a line the framing would skip.
      if (
        incoming.request.method === 'hello' &&
        'result' in response &&
        isObject(response.result) &&
        this.options.maxLineBytes
      ) {
        response = { id: response.id, result: { ...response.result, max_line_bytes: this.options.maxLineBytes } };
      }
      this.reply(response);
    });
    this.inFlight.add(done);
    void done.finally(() => this.inFlight.delete(done));
  }

  /**
   * A line longer than the framing allows: answered with an error under the request's own id (read
   * from the line's first bytes), so the host's call ends now instead of timing out and restarting
   * the sidecar (issue 11: an `id: null` answer did that on every try).
   */
  oversize(bytes: number, head = ''): void {
    const limit = this.options.maxLineBytes;
    this.reply({
      id: requestIdOf(head),
      error: {
        code: 'line_too_long',
        message: `line of ${bytes} bytes exceeds the limit${limit ? ` of ${limit} bytes` : ''}; skipped, send less`,
      },
    });
  }

  /** Input closed: the host cannot answer any more, so fail its pending calls, then let answers finish. */
  async drain(): Promise<void> {
    this.hostCalls.close();
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private reply(response: Response): void {
    try {
      this.options.write(response);
    } catch (err) {
      this.options.log(`could not write response ${describeId(response.id)}: ${errorText(err)}`);
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `"id"` a request line starts with (`{"id":12,` or `{"id":"a"`), else null. */
export function requestIdOf(head: string): RequestId | null {
  const m = /^\s*\{\s*"id"\s*:\s*(-?\d+(?![\d.eE])|"(?:[^"\\]|\\.)*")/.exec(head);
  if (!m?.[1]) return null;
  try {
    const id: unknown = JSON.parse(m[1]);
    return typeof id === 'number' || typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

function describeId(id: RequestId | null): string {
  return id === null ? '(no id)' : JSON.stringify(id);
}
