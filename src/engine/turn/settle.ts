/**
 * When the engine's queued work runs (accounting, the catch-up of a big first call): in slices
 * of SLICE_MS between hooks, all of it when asked (reports, tests, the end of a replay), and at a
 * session's end within END_BUDGET_MS before the record and the save go to the background.
 *
 * Invariant: a hook never waits for more than one slice; work that throws is logged once by the
 * guard and the rest still runs; a finalized session stays here until its work is done.
 */
import * as catchUp from './catch-up.js';
import type { Session } from '../session/session.js';

/** Background work runs in slices this long, so a hook never waits longer. */
const SLICE_MS = 15;
/** How long a session's end may work off a backlog before it records and saves in the background. */
export const END_BUDGET_MS = 300;

export interface SettlerOptions {
  /** The sessions held now (finalized ones still working are kept here, in `draining`). */
  sessions: () => Iterable<Session>;
  /** Run work right after each hook (default) or only when `settle()` is called (tests, replays). */
  autoSettle: boolean;
  /** True while background work should wait (the sidecar: an answer is still on its way out). */
  holdBackground?: () => boolean;
  endBudgetMs: number;
  /** What the catch-up of one session needs, until `deadline` (a performance.now() time). */
  catchUpDeps: (s: Session, deadline: number) => catchUp.AdvanceDeps;
  /** Runs `fn`, logging and answering `fallback` when it throws. */
  guard: <T>(what: string, fn: () => T, fallback: T) => T;
}

export class Settler {
  private scheduled = false;
  /** Finalized sessions whose accounting, record and save still run in the background. */
  readonly draining = new Set<Session>();

  constructor(private readonly opts: SettlerOptions) {}

  /** Background work in slices of SLICE_MS, yielding to the hooks in between. */
  schedule(): void {
    if (!this.opts.autoSettle || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      if (this.opts.holdBackground?.()) {
        setTimeout(() => {
          this.scheduled = false;
          this.schedule();
        }, 1);
        return;
      }
      this.scheduled = false;
      if (!this.opts.guard('accounting', () => this.settle(performance.now() + SLICE_MS), false)) this.schedule();
    });
  }

  /**
   * Runs the queued work: all of it, or until `deadline` (a performance.now() time). Returns true
   * when nothing is left.
   */
  settle(deadline = Number.POSITIVE_INFINITY): boolean {
    let done = true;
    for (const s of this.all()) {
      // A history still streaming in: its calls come first; the work waits for the real call.
      if (deadline !== Number.POSITIVE_INFINITY && catchUp.streaming(s)) continue;
      const caught = catchUp.advance(s, this.opts.catchUpDeps(s, deadline));
      const settled = s.ledger.settle(deadline);
      if (caught && settled) this.draining.delete(s);
      done &&= caught && settled;
      if (!done && performance.now() >= deadline) return false;
    }
    return done;
  }

  /**
   * Runs `then` once the session's queued work is done: now, when that takes under the end
   * budget (the usual case), else queued behind it in the background. True when it ran now.
   */
  whenSettled(s: Session, then: () => void): boolean {
    const deadline = this.opts.autoSettle ? performance.now() + this.opts.endBudgetMs : Number.POSITIVE_INFINITY;
    const caught = catchUp.advance(s, this.opts.catchUpDeps(s, deadline));
    if (caught && s.ledger.settle(deadline)) {
      then();
      return true;
    }
    s.ledger.defer(then);
    this.schedule();
    return false;
  }

  /** Sessions, held or draining, whose work is not done. */
  unsettled(): Session[] {
    return this.all().filter((s) => s.ledger.pending > 0 || catchUp.catchingUp(s));
  }

  private all(): Session[] {
    return [...this.opts.sessions(), ...this.draining];
  }
}
