/**
 * Paces layer 1's background work (issue 25: replays must give the same figures on every run).
 * The summariser prepares its request in steps and waits here between them; a step is given right
 * after each hook has answered (a setImmediate queued by the hook runs before the host's next line
 * is read), so in a replay the request goes out at the same hook on an idle and on a busy machine.
 * When the host sends no hook for IDLE_STEP_MS (the model is thinking), the next step is given
 * anyway, so a summary is never stuck waiting for a hook.
 *
 * Invariant: every waiter is released, at the latest IDLE_STEP_MS after it started waiting; the
 * timer never keeps the process alive.
 */

/** Without a hook for this long, the waiting work takes its next step anyway. */
export const IDLE_STEP_MS = 1000;

export class Pacer {
  private waiting: (() => void)[] = [];
  private stepQueued = false;
  private timer: ReturnType<typeof setTimeout> | null = null;

  /** Resolves at the next step. */
  wait(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.timer) {
        this.timer = setTimeout(() => this.release(), IDLE_STEP_MS);
        this.timer.unref?.();
      }
    });
  }

  /** A hook has answered: the waiting work takes one step right after it. */
  afterHook(): void {
    if (this.waiting.length === 0 || this.stepQueued) return;
    this.stepQueued = true;
    setImmediate(() => this.release());
  }

  private release(): void {
    this.stepQueued = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}
