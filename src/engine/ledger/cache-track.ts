/**
 * What the next counted model call's cache model knows (DESIGN §6, issue 24): every preparation
 * of a call (pre_llm_call at a turn's start, pre_model_call before each call) can change what the
 * previous *counted* call sent: the host rewrote its history (sync cut it), switched model, or an
 * HMC pass rewrote messages. Before, each preparation moved the "previously sent" mark, so a
 * rewrite seen at pre_llm_call was forgotten by the pre_model_call that followed (a real Hermes
 * 0.19 `/compress`: the next call's raw request modelled as read whole from the cache).
 *
 * Invariant: pure over its state; the prefixes it answers never exceed what the last counted call
 * sent, and a cause once noted stays until a call is counted (the host's own change first).
 */
import type { BreakCause } from './ledger.js';

export interface CacheTrack {
  /** Messages the last counted call sent (null: none counted in this process yet). */
  length: number | null;
  /** The shortest unchanged prefix since then, of the raw request and of the one sent. */
  raw: number;
  sent: number;
  /** A preparation could not say what it left unchanged (a catch-up): the sent side is unknown. */
  unknown: boolean;
  cause?: BreakCause;
}

export function newTrack(): CacheTrack {
  return { length: null, raw: Infinity, sent: Infinity, unknown: false };
}

/** One preparation of a call; what it changed since the last counted call. */
export interface Step {
  /** previousCallLength as the preparation began, and after the sync (less: the host cut there). */
  before: number;
  cutTo: number;
  /** Messages this preparation left as they were sent (-1: unknown). */
  stable: number;
  switched: boolean;
  cause?: BreakCause;
}

/**
 * Folds `step` in; when `counted` (a pre_model_call counted now, sending `length` messages) answers
 * the call's prefixes and cause and starts afresh, else null.
 */
export function trackCall(
  t: CacheTrack,
  step: Step,
  counted: boolean,
  length: number,
): { stable: number; rawStable: number; cause?: BreakCause } | null {
  t.length ??= step.before;
  if (step.switched) {
    t.raw = 0;
    t.sent = 0;
  }
  t.raw = Math.min(t.raw, step.cutTo);
  if (step.stable < 0) t.unknown = true;
  else t.sent = Math.min(t.sent, step.stable);
  // The host's change counts only where it touched what the last counted call sent (Hermes adds
  // context to this turn's own user message: a cut, but past what the provider has cached).
  const cause = step.cause === 'hermes' && !step.switched && step.cutTo >= t.length ? undefined : step.cause;
  if (cause === 'hermes' || (cause && !t.cause)) t.cause = cause;
  if (!counted) return null;
  const out = {
    stable: t.unknown ? -1 : Math.min(t.length, t.sent),
    rawStable: Math.min(t.length, t.raw),
    ...(t.cause ? { cause: t.cause } : {}),
  };
  Object.assign(t, newTrack(), { length });
  delete t.cause;
  return out;
}
