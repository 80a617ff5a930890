/**
 * The ledger's queue of deferred work (ledger.ts): hooks only queue jobs, `settle()` runs them in
 * order, after the hook answered or when figures are read. A timed `settle()` first counts a job's
 * named texts ahead in slices, so one huge output never holds the event loop past the slice (issue 19).
 *
 * Invariant: jobs run once each, in the order queued (jobs a job queues run after its batch); a job that throws
 * is dropped and the rest stay queued; a timed run stops at its deadline with the rest kept.
 */
import { contentAhead } from '../../core/tokens.js';

export class JobQueue {
  private jobs: Job[] = [];

  /**
   * Queues work; it runs at the next `settle()`. `counts`: the contents the job counts tokens of
   * (strings, or non-string content as `contentTokens` takes it), counted ahead in slices.
   */
  defer(run: () => void, counts: readonly unknown[] = []): void {
    this.jobs.push({ run, counts, ahead: 0 });
  }

  get pending(): number {
    return this.jobs.length;
  }

  /**
   * Runs the queued jobs in order: all of them, or until `deadline` (a `performance.now()` time)
   * passes, so a big backlog (a resumed long session) is worked off in slices between hooks.
   * Returns true when nothing is left. A job that throws is dropped (the rest stay queued).
   */
  settle(deadline = Number.POSITIVE_INFINITY): boolean {
    const timed = deadline !== Number.POSITIVE_INFINITY;
    // Jobs may queue jobs; run until none is left.
    while (this.jobs.length > 0) {
      const batch = this.jobs;
      this.jobs = [];
      let next = 0;
      try {
        while (next < batch.length) {
          const job = batch[next] as Job;
          if (timed && !countedAhead(job, deadline)) break;
          next++;
          job.run();
          if (timed && performance.now() >= deadline) break;
        }
      } finally {
        if (next < batch.length) this.jobs = batch.slice(next).concat(this.jobs);
      }
      if (timed && performance.now() >= deadline) return this.jobs.length === 0;
    }
    return true;
  }
}

/** A queued job and the contents it counts. */
interface Job {
  run: () => void;
  counts: readonly unknown[];
  /** How many of `counts` are counted (each is then cached; a full cache may drop one again, which only costs a recount). */
  ahead: number;
}

/** Counts the job's contents ahead until `deadline`; true when all are. */
function countedAhead(job: Job, deadline: number): boolean {
  while (job.ahead < job.counts.length) {
    if (!contentAhead(job.counts[job.ahead], deadline)) return false;
    job.ahead++;
  }
  return true;
}
