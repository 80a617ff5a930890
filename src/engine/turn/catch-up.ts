/**
 * Big first calls (issue 11, fault 4; docs/engine.md "Big first calls"). The first call of a
 * session this process does not hold yet (a resumed session, a new `hermes -q` process, a sidecar
 * restart) brings the whole history at once; compressing and indexing 100 K messages took 7.4 s,
 * over the bridge's 2 s limit, so the bridge killed the sidecar on every try.
 *
 * The work per call is bounded: a call compresses at most `budget` bytes of tool output,
 * oldest first (so the prefix the provider may have cached stays as it was sent before); the
 * newer outputs wait here and go out raw on that call. Between hooks, in slices of a few
 * milliseconds, the engine compresses what waits, then indexes the history for the list-wide
 * rewrites, which stay off until that is done (they would judge a half-read history). The
 * caught-up outputs reach the model at the next call as ordinary edits (one counted cache break).
 *
 * Invariants: a waiting message is compressed exactly as it would have been at once; a message
 * the host rewrote meanwhile is never touched (checked by identity); nothing here throws.
 */
import type { HmcConfig } from '../../config/keys.js';
import type { Compression } from '../session/held.js';
import { indexUpTo } from '../list-wide/list-wide.js';
import type { MessageState } from '../session/held.js';
import type { Session } from '../session/session.js';

/** Bytes of tool output one call compresses before the rest waits (about 0.1–0.25 s of work). */
export const CALL_BUDGET_BYTES = 8 * 1024 * 1024;
/**
 * Past UNTIMED_BYTES, a call also stops compressing after this long. Bytes alone bounded the work,
 * not the time: on a loaded machine (2 cores, other processes) one 4 MB stretch of a resumed
 * history took 1.6 s in the sidecar, and the bridge's 2 s limit killed it (issue 19). The rest
 * waits, as beyond the byte budget.
 */
export const CALL_BUDGET_MS = 50;
/** A call's first bytes of compression are never cut by the clock (an ordinary call stays the same on any machine). */
export const UNTIMED_BYTES = 256 * 1024;
/** Messages indexed per step of the background work (the rewrite index hashes each output). */
const INDEX_STEP = 256;

/** A per-call allowance of bytes (and, past UNTIMED_BYTES, of time) to compress synchronously. */
export class CompressBudget {
  private used = 0;
  private readonly deadline: number;

  constructor(
    private left: number,
    ms = CALL_BUDGET_MS,
  ) {
    this.deadline = performance.now() + ms;
  }

  /** True while the call may still compress an output of `bytes`. */
  allows(bytes: number): boolean {
    if (this.left <= 0) return false;
    if (this.used >= UNTIMED_BYTES && performance.now() >= this.deadline) return false;
    this.left -= bytes;
    this.used += bytes;
    return true;
  }
}

/** Leaves a tool output for later: it is sent raw until the engine compresses it. */
export function wait(s: Session, index: number, message: MessageState, args: unknown): void {
  s.catchUp.leave({ index, message, args }, s.held.previousCallLength);
}

/**
 * A stretch of a streamed history was held (a `partial` call): the session catches up like after
 * a big call, so the indexing of the whole history happens between hooks, and the list-wide
 * rewrites wait for it, not in the real call that follows.
 */
export function held(s: Session): void {
  s.catchUp.streamHeld(s.held.previousCallLength);
}

/**
 * True while a history streams in: background work for the session waits, so the stream's calls
 * have the process to themselves and the whole first turn ends sooner. The real call ends it.
 */
export function streaming(s: Session, realCall = false): boolean {
  if (realCall) return s.catchUp.endStream();
  return s.catchUp.streaming;
}

/** True while outputs wait or the history is not indexed yet: list-wide rewrites stay off. */
export function catchingUp(s: Session): boolean {
  return s.catchUp.active;
}

/** True once after catch-up edits changed messages the model had already been sent. */
export function takeCacheBreak(s: Session): boolean {
  return s.catchUp.takeBreak();
}

/**
 * Once after the session caught up: the messages sent before the big call. The list-wide rewrites
 * that call could not make (they were free then) are made at this call, from there on, whatever
 * the price rule would say of a later change; null when nothing was caught up.
 */
export function takeLanding(s: Session): number | null {
  return s.catchUp.takeLanding();
}

/** The host rewrote its history from `from` on: what waited there is gone with it. */
export function truncate(s: Session, from: number): void {
  s.catchUp.cutFrom(from);
}

export interface AdvanceDeps {
  config: HmcConfig;
  /** Compresses one waiting output as the engine would have at once (recall copy included). */
  compress: (message: MessageState, args: unknown, hostError: boolean) => Compression;
  /** Called for each message whose view changed (the engine updates its edits and the ledger). */
  changed: (index: number, message: MessageState) => void;
  /** performance.now() time to stop at. */
  deadline: number;
  /** Messages the model was sent at the latest call (changes below it are a cache break). */
  sentLength: number;
}

/**
 * Does waiting work until the deadline: indexes the compressed history up to the first output
 * that waits, compresses what waits (oldest first), then indexes the rest. Returns true when
 * nothing is left (the session is caught up).
 */
export function advance(s: Session, deps: AdvanceDeps): boolean {
  const c = s.catchUp;
  if (!c.active) return true;
  const { config } = deps;
  for (;;) {
    if (performance.now() >= deps.deadline) return false;
    const w = c.nextWaiting;
    const indexTo = w ? w.index : s.held.messages.length;
    if (s.rewriteIndex.length < indexTo) {
      indexUpTo(s, config, Math.min(indexTo, s.rewriteIndex.length + INDEX_STEP), true);
      continue;
    }
    if (!w) break;
    c.taken();
    const m = w.message;
    if (s.held.messages[w.index] !== m || m.single !== null || typeof m.raw !== 'string') continue;
    const record = s.held.records.get(m.key);
    m.single = deps.compress(m, w.args, record?.isError === true);
    if (record && m.single.isError) record.isError = true;
    if (m.single.content !== m.raw) {
      deps.changed(w.index, m);
      if (w.index < deps.sentLength) c.broke();
    }
  }
  c.caughtUp();
  return true;
}
