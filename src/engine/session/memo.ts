/**
 * What is worked out once per held output (its raw text never changes once held): whether the
 * text reports a failure, and the edit-echo answers. Lives on the message state (`m.memo`,
 * held.ts), so it goes when the message goes; nothing per message is kept in a module-level map.
 * Small answers only: the parsed envelope is not kept here (held for every output it took
 * 5.5 -> 25.6 MiB of heap per 1,000 outputs); a pass keeps what it derives from it.
 *
 * Invariant: a memo answers exactly what computing again would; only the first computation is
 * kept. Keys that change the answer (the echo's style and recall id) are part of what is kept.
 */
import { reportsFailure } from '../../strategies/shared/signals.js';

export class OutputMemo {
  private _failed: boolean | undefined;
  private _echoFails: boolean | undefined;
  private echo: { key: string; words: string | null } | undefined;

  constructor(private readonly raw: unknown) {}

  /**
   * The output's text reports a failure (`reportsFailure` of the raw text; false for a non-string).
   * One answer per message for every pass that asks (input clearing; list-wide's `failures` may
   * share it).
   */
  get failed(): boolean {
    this._failed ??= typeof this.raw === 'string' && reportsFailure(this.raw);
    return this._failed;
  }

  /** Edit echoes: whether this edit's output fails or echoes no snippet (`compute`: asked once). */
  echoFails(compute: () => boolean): boolean {
    this._echoFails ??= compute();
    return this._echoFails;
  }

  /** Edit echoes: the output's words without its snippet, for `key` (style and recall id; a new key computes again). */
  echoWords(key: string, compute: () => string | null): string | null {
    if (this.echo?.key !== key) this.echo = { key, words: compute() };
    return this.echo.words;
  }
}
