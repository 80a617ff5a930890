/**
 * What outlives the process: each session's file in the state dir (session-files.ts), its
 * picture in analytics (an upsert: re-recording never double counts), and the exact copies kept
 * for recall (recall.ts, whose expired copies go at start-up).
 *
 * Invariant: nothing is written while HMC is off (`enabled: false`) or when there is no state dir
 * or recorder; writes are atomic and off the hook path, and a failure is logged, never thrown.
 */
import type { HmcConfig } from '../../config/keys.js';
import type { SessionRecorder } from '../../store/types.js';
import { sessionRecord } from '../turn/events.js';
import type { PersistedSession } from '../session/persisted.js';
import { cleanupRecall, type RecallStore } from '../session/recall.js';
import type { Session } from '../session/session.js';
import { SessionFiles } from './session-files.js';
import { contextBreakdown } from '../control/context-breakdown.js';

export interface PersistenceOptions {
  /** Where sessions are saved; null keeps everything in memory. */
  stateDir: string | null;
  config: () => HmcConfig;
  recorder: SessionRecorder | null;
  recall: RecallStore;
  log: (line: string) => void;
}

export class Persistence {
  private readonly files: SessionFiles | null;

  constructor(private readonly opts: PersistenceOptions) {
    const stateDir = opts.stateDir;
    // Expired copies go at start-up, off the first hook's path.
    if (stateDir) setTimeout(() => cleanupRecall(stateDir), 2000).unref();
    this.files = stateDir ? new SessionFiles(stateDir, opts.log) : null;
  }

  /** What an earlier process saved of the session, if anything. */
  load(id: string): PersistedSession | null {
    return this.files?.load(id) ?? null;
  }

  /** Hands the session's picture to analytics, when it did something. */
  record(s: Session): void {
    const config = this.opts.config();
    if (!this.opts.recorder || !config.analytics.enabled || !config.enabled) return;
    if (s.counts.toolCalls === 0 && s.ledger.totals().modelCalls === 0) return;
    this.opts.recorder.record(sessionRecord(s));
  }

  /**
   * Saves the session file (atomic, private, off the hook path), with the context view's breakdown
   * of the latest request (made now, from counts the ledger holds; the one an earlier process saved
   * while this one has none, or while its accounting is still queued).
   */
  save(s: Session): void {
    if (!this.files || !this.opts.config().enabled) return;
    const context = (s.ledger.pending === 0 ? contextBreakdown(s, Date.now()) : null) ?? s.view.savedContext;
    this.files.save(s.id, JSON.stringify({ ...s.persist(), ...(context ? { context } : {}) }));
  }

  /** Waits until every save in flight has reached the disk. */
  async flush(): Promise<void> {
    await Promise.all([this.files?.flush(), this.opts.recall.flush()]);
  }

  /** Flushes the saves and gives the failed ones a last try (process exit). */
  async close(): Promise<void> {
    await Promise.all([this.files?.close(), this.opts.recall.flush()]);
  }
}
