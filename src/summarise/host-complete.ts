/**
 * `Complete` over the protocol's `llm.complete` (DESIGN §3): the host's auxiliary model (Hermes:
 * `ctx.llm`) answers through the bridge. `call` is the runtime's `hostCall` (src/cli/sidecar.ts),
 * which checks the params and goes through `HostCalls` with its own pending table and timeout.
 *
 * Invariants: settles when the signal fires even though the host cannot be told to stop (its late
 * answer is dropped by HostCalls' pending table or here); every failure is a CompleteError naming
 * the host's error code; the answer is checked before use, never cast.
 */
import { HostCallError } from '../protocol/host-calls.js';
import { llmCompleteResult } from '../protocol/guards.js';
import { CompleteError } from './errors.js';
import type { Complete } from './types.js';
import { errorText } from '../core/errors.js';

/** How the engine calls the host (RuntimeOptions.hostCall). */
export type HostCall = (method: string, params: Record<string, unknown>) => Promise<unknown>;

/** Host error codes after which a later call is pointless (the request itself is wrong). */
const FINAL_CODES = new Set(['invalid_params', 'method_not_found', 'unknown_method', 'invalid_request']);

export function hostComplete(call: HostCall): Complete {
  return (messages, maxTokens, signal) =>
    new Promise((resolve, reject) => {
      if (signal.aborted)
        return reject(new CompleteError("the host's llm.complete was cancelled before it started", true));
      const onAbort = (): void => reject(new CompleteError("the host's llm.complete was cancelled (timeout)", true));
      signal.addEventListener('abort', onAbort, { once: true });
      let pending: Promise<unknown>;
      try {
        pending = call('llm.complete', { messages, max_tokens: maxTokens });
      } catch (err) {
        pending = Promise.reject(err);
      }
      pending.then(
        (raw) => {
          signal.removeEventListener('abort', onAbort);
          const result = llmCompleteResult(raw);
          if (!result) return reject(new CompleteError('the host answered llm.complete without a "text" string', true));
          resolve({
            text: result.text,
            ...(result.model ? { model: result.model } : {}),
            ...(result.price ? { price: result.price } : {}),
          });
        },
        (err: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(asCompleteError(err));
        },
      );
    });
}

function asCompleteError(err: unknown): CompleteError {
  if (err instanceof HostCallError) {
    const what =
      err.code === 'timeout'
        ? 'timed out'
        : err.code === 'closed'
          ? 'lost the host connection'
          : `failed (${err.code})`;
    return new CompleteError(`the host's llm.complete ${what}: ${err.message}`, !FINAL_CODES.has(err.code));
  }
  return new CompleteError(`the host's llm.complete failed: ${errorText(err)}`, false);
}
