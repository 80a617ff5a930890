/**
 * Requests from the sidecar to the host (DESIGN §3: `llm.complete`): numbered ids `h1`, `h2`…, a
 * pending table matched by the host's responses, and a timeout per call.
 *
 * Invariant: every call settles exactly once: with the host's result, with its error, on timeout,
 * or when the connection closes; a late or unknown response is ignored, never thrown.
 */
import { isErrorResponse, llmCompleteResult } from './guards.js';
import type { LlmCompleteResult, Response, SidecarMethod, SidecarMethodParams } from './types.js';
import { errorText } from '../core/errors.js';

/** Default wait for the host: the auxiliary model may be slow, the sidecar never blocks on it. */
export const DEFAULT_HOST_CALL_TIMEOUT_MS = 120_000;

/** A host call that failed; `code` is the host's error code, `timeout` or `closed`. */
export class HostCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HostCallError';
  }
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: HostCallError) => void;
  timer: NodeJS.Timeout;
}

export class HostCalls {
  private next = 1;
  private readonly pending = new Map<string, Pending>();
  private closed = false;

  /** `send` writes one record to the host (a protocol line). */
  constructor(
    private readonly send: (record: unknown) => void,
    private readonly timeoutMs = DEFAULT_HOST_CALL_TIMEOUT_MS,
  ) {}

  /** Sends a request to the host and waits for its result. */
  call<M extends SidecarMethod>(
    method: M,
    params: SidecarMethodParams[M],
    timeoutMs = this.timeoutMs,
  ): Promise<unknown> {
    if (this.closed) return Promise.reject(new HostCallError('closed', 'the host connection is closed'));
    const id = `h${this.next++}`;
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new HostCallError('timeout', `host did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref();
      this.pending.set(id, { resolve, reject, timer });
      try {
        this.send({ id, method, params });
      } catch (err) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(new HostCallError('closed', `could not write to the host: ${errorText(err)}`));
      }
    });
  }

  /** `llm.complete` with its result checked. */
  async llmComplete(params: SidecarMethodParams['llm.complete'], timeoutMs?: number): Promise<LlmCompleteResult> {
    const raw = await this.call('llm.complete', params, timeoutMs);
    const result = llmCompleteResult(raw);
    if (!result) throw new HostCallError('invalid_result', 'host answered llm.complete without a "text" string');
    return result;
  }

  /** Settles the matching call; returns false for an id we are not waiting for. */
  settle(response: Response): boolean {
    const id = typeof response.id === 'string' ? response.id : String(response.id);
    const entry = this.pending.get(id);
    if (!entry) return false;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    if (isErrorResponse(response)) entry.reject(new HostCallError(response.error.code, response.error.message));
    else entry.resolve(response.result);
    return true;
  }

  /** The host went away: fail everything still waiting, refuse new calls. */
  close(): void {
    this.closed = true;
    for (const [id, entry] of this.pending) {
      clearTimeout(entry.timer);
      entry.reject(new HostCallError('closed', `host closed the connection before answering ${id}`));
    }
    this.pending.clear();
  }

  get waiting(): number {
    return this.pending.size;
  }
}
