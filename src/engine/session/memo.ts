/**
 * What is worked out once per held output (its raw text never changes once held): the parsed
 * envelope, whether the text reports a failure, and the edit-echo answers. Lives on the message
 * state (`m.memo`, held.ts), so it goes when the message goes; nothing per message is kept in a
 * module-level map.
 *
 * Invariant: a memo answers exactly what computing again would; only the first computation is
 * kept. Keys that change the answer (the host's failure flag, the echo's style and recall id) are
 * part of what is kept.
 */
import { parseEnvelope, type Envelope } from '../../hosts/outputs/envelope.js';
import { reportsFailure } from '../../strategies/shared/signals.js';

export class OutputMemo {
  /** The envelope parsed without and with the host's failure flag. */
  private readonly envelopes: [Envelope | undefined, Envelope | undefined] = [undefined, undefined];
  private _failed: boolean | undefined;
  private _echoFails: boolean | undefined;
  private echo: { key: string; words: string | null } | undefined;

  constructor(
    private readonly raw: unknown,
    private readonly tool: string,
    private readonly args: unknown,
  ) {}

  /**
   * The output's envelope (`parseEnvelope` of the raw text with the message's tool and arguments),
   * parsed on the first question. Only for a string output.
   */
  envelope(hostError = false): Envelope {
    const slot = hostError ? 1 : 0;
    let env = this.envelopes[slot];
    if (!env) {
      env = parseEnvelope(this.raw as string, { tool: this.tool, args: this.args, ...(hostError ? { hostError } : {}) });
      this.envelopes[slot] = env;
    }
    return env;
  }

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
