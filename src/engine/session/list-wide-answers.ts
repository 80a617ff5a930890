/**
 * The list-wide strategies' per-session answers (`ListWideContext.cached`, e.g. dedup's groups),
 * kept from one pass to the next on the session and written only here.
 *
 * Invariant: an answer is reused only for the same slot, key, rewrite-index version, config object
 * and manual mode it was computed for; anything else computes it again.
 */
import type { HmcConfig } from '../../config/keys.js';

/** What an answer holds for. */
export interface AnswerStamp {
  version: number;
  config: HmcConfig;
  manual: boolean;
  key: string;
}

export class ListWideAnswers {
  private readonly bySlot = new Map<string, AnswerStamp & { value: unknown }>();

  /** The answer kept for `slot` when it holds for `stamp`, else `compute()`'s, kept. */
  answer<T>(slot: string, stamp: AnswerStamp, compute: () => T): T {
    const known = this.bySlot.get(slot);
    if (
      known &&
      known.version === stamp.version &&
      known.config === stamp.config &&
      known.manual === stamp.manual &&
      known.key === stamp.key
    )
      return known.value as T;
    const value = compute();
    this.bySlot.set(slot, { ...stamp, value });
    return value;
  }
}
