/**
 * A session's catch-up after a big first call (turn/catch-up.ts has the work and its rules): the
 * outputs waiting to be compressed, oldest first, how far the work got, the messages sent before
 * the big call, whether caught-up edits broke the prompt cache, where the left-over list-wide
 * rewrites may land, and whether a history is still streaming in.
 *
 * Invariant: read-only to the outside; written only by turn/catch-up.ts through these methods.
 * Not saved: a new process catches up again from what the host sends.
 */
import type { MessageState } from './held.js';

export interface WaitingOutput {
  index: number;
  message: MessageState;
  args: unknown;
}

export class CatchUpState {
  /** Outputs that wait, oldest first; null when the session is not catching up. */
  private waiting: WaitingOutput[] | null = null;
  /** Position in `waiting` of the next one to compress. */
  private next = 0;
  /**
   * Messages the model had been sent before the big call. The list-wide rewrites that call left
   * for later were free then, and go out with the caught-up outputs' own cache break.
   */
  private startSent = 0;
  /** Catch-up edits changed messages already sent: a cache break to count once. */
  private breaking = false;
  /** Just caught up: what the list-wide rewrites left for later may go from this index on. */
  private landing: number | null = null;
  /** A history is still arriving in `partial` calls. */
  private streams = false;

  /** True while outputs wait or the history is not indexed yet. */
  get active(): boolean {
    return this.waiting !== null;
  }

  get streaming(): boolean {
    return this.streams;
  }

  /** The next output to compress (undefined when none waits). */
  get nextWaiting(): WaitingOutput | undefined {
    return this.waiting?.[this.next];
  }

  /** An output waits (catch-up opens if it was not, with `sent` messages sent before). */
  leave(output: WaitingOutput, sent: number): void {
    this.open(sent);
    (this.waiting as WaitingOutput[]).push(output);
  }

  /** A stretch of a streamed history was held: catch-up opens if it was not, the stream goes on. */
  streamHeld(sent: number): void {
    this.open(sent);
    this.streams = true;
  }

  /** The real call came: the stream is over. True when one was streaming. */
  endStream(): boolean {
    const was = this.streams;
    this.streams = false;
    return was;
  }

  /** The next waiting output was taken for compression. */
  taken(): void {
    this.next++;
  }

  /** A caught-up output changed a message already sent. */
  broke(): void {
    this.breaking = true;
  }

  /** Nothing waits and the history is indexed: the left-over rewrites may land from `startSent`. */
  caughtUp(): void {
    this.landing = this.startSent;
    this.waiting = null;
  }

  /** Once: the cache break the caught-up edits made. */
  takeBreak(): boolean {
    const was = this.breaking;
    this.breaking = false;
    return was;
  }

  /** Once after catching up: where the left-over rewrites may go from (null when nothing was caught up). */
  takeLanding(): number | null {
    const at = this.landing;
    this.landing = null;
    return at;
  }

  /** The host rewrote its history from `from` on: what waited there is gone with it. */
  cutFrom(from: number): void {
    if (!this.waiting) return;
    this.waiting = this.waiting.slice(this.next).filter((w) => w.index < from);
    this.next = 0;
  }

  private open(sent: number): void {
    if (this.waiting !== null) return;
    this.waiting = [];
    this.next = 0;
    this.startSent = sent;
  }
}
