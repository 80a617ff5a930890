/**
 * What is worked out once per held output (its raw text never changes once held): whether the
 * text reports a failure (input clearing and the list-wide pass share it). Lives on the message state (`m.memo`,
 * held.ts), so it goes when the message goes; nothing per message is kept in a module-level map.
 * Small answers only: the parsed envelope is not kept here (held for every output it took
 * 5.5 -> 25.6 MiB of heap per 1,000 outputs); a pass keeps what it derives from it.
 *
 * Invariant: a memo answers exactly what computing again would; only the first computation is
 * kept.
 */
import { reportsFailure } from '../../strategies/shared/signals.js';

export class OutputMemo {
  private _failed: boolean | undefined;

  constructor(private readonly raw: unknown) {}

  /**
   * The output's text reports a failure (`reportsFailure` of the raw text; false for a non-string).
   * One answer per message for every pass that asks (input clearing, the list-wide pass's facts.ts).
   */
  get failed(): boolean {
    this._failed ??= typeof this.raw === 'string' && reportsFailure(this.raw);
    return this._failed;
  }
}
