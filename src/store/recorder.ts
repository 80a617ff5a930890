/**
 * The engine's SessionRecorder over SQLite: `record()` only queues (latest picture per session
 * wins) and returns at once; writes happen off the hook path in short batches.
 *
 * Invariants: a hook never waits on SQLite (busy_timeout 0; SQLITE_BUSY is retried with backoff
 * on a timer); a full disk or read-only file is logged once and retried later, the queue kept;
 * a corrupt file is moved aside to `<name>.corrupt-<timestamp>` (with its -wal/-shm) and a fresh
 * one created; nothing here throws into the caller. Retention runs at open and hourly, never per
 * insert.
 */
import { existsSync, renameSync, statSync } from 'node:fs';
import { classify, type Fault } from './errors.js';
import { openStore, type AnalyticsStore } from './db.js';
import { recordProblem } from './record.js';
import type { SessionRecord, SessionRecorder } from './types.js';

const BATCH = 500;
const HOUR_MS = 3_600_000;
const FLUSH_DEADLINE_MS = 5_000;

export interface RecorderOptions {
  path: string;
  retentionDays: number;
  log: (line: string) => void;
  /** Retention timer period (default one hour). */
  retentionIntervalMs?: number;
  /** How long flush() keeps retrying a busy database (default 5 s). */
  flushDeadlineMs?: number;
  /** Opens the store (tests inject faults here); default openStore. */
  open?: typeof openStore;
}

export interface Recorder extends SessionRecorder {
  /** Writes everything queued, retrying a busy database for up to 5 s; never rejects. */
  flush(): Promise<void>;
  /** Flushes, stops the timers and closes the database; later records are ignored. */
  close(): Promise<void>;
  /** Sessions waiting to be written (for status and tests). */
  readonly pending: number;
}

/** Delay before retry number `attempt` (1-based) of a fault. */
function backoff(fault: Fault, attempt: number): number {
  const jitter = Math.random() * 0.5 + 0.75;
  if (fault === 'busy') return Math.min(1000, 2 * 2 ** Math.min(attempt, 10)) * jitter;
  return Math.min(60_000, 1000 * 2 ** Math.min(attempt - 1, 6)) * jitter;
}

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

export function createRecorder(opts: RecorderOptions): Recorder {
  const { path, retentionDays, log } = opts;
  const queue = new Map<string, SessionRecord>();
  const reported = new Set<string>();
  let store: AnalyticsStore | null = null;
  let inode = -1;
  let timer: NodeJS.Timeout | null = null;
  let immediate: NodeJS.Immediate | null = null;
  let attempt = 0;
  let closed = false;

  const logOnce = (key: string, line: string): void => {
    if (reported.has(key)) return;
    reported.add(key);
    log(line);
  };

  const closeStore = (): void => {
    try {
      store?.close();
    } catch {
      // Closing a broken handle has nothing left to lose.
    }
    store = null;
  };

  const open = (): AnalyticsStore => {
    // Another process may have moved a corrupt file aside: never keep writing into the old inode.
    const current = existsSync(path) ? statSync(path).ino : -1;
    if (store && current === inode) return store;
    closeStore();
    store = (opts.open ?? openStore)(path, { retentionDays, log, busyTimeoutMs: 0 });
    inode = statSync(path).ino;
    return store;
  };

  const moveAside = (err: unknown): void => {
    closeStore();
    const target = `${path}.corrupt-${stamp()}`;
    try {
      renameSync(path, target);
      for (const ext of ['-wal', '-shm']) if (existsSync(path + ext)) renameSync(path + ext, target + ext);
      log(`analytics: ${path} is not a readable SQLite database (${String((err as Error).message ?? err)}); moved it to ${target} and started a fresh one`);
    } catch (moveErr) {
      logOnce('move', `analytics: ${path} is corrupt and could not be moved aside (${(moveErr as Error).message}); analytics paused`);
    }
  };

  /** One batch; returns the fault that stopped it, or null when the batch was written. */
  const writeBatch = (): Fault | null => {
    const batch: SessionRecord[] = [];
    for (const rec of queue.values()) {
      batch.push(rec);
      if (batch.length >= BATCH) break;
    }
    try {
      open().recordSessions(batch);
    } catch (err) {
      const fault = classify(err);
      const message = err instanceof Error ? err.message : String(err);
      if (fault === 'corrupt') {
        if (reported.has('corrupt')) {
          logOnce('corrupt-again', `analytics: ${path} is still unreadable after a fresh start (${message}); will keep retrying`);
        } else {
          reported.add('corrupt');
          moveAside(err);
        }
      } else if (fault === 'full') {
        logOnce('full', `analytics: disk full writing ${path}; ${queue.size} session(s) kept in memory, retrying later`);
      } else if (fault === 'readonly') {
        closeStore();
        logOnce('readonly', `analytics: cannot write ${path} (read-only: ${message}); ${queue.size} session(s) kept in memory, retrying later`);
      } else if (fault === 'other') {
        closeStore();
        logOnce(`other:${message}`, `analytics: write failed: ${message}; retrying later`);
      }
      return fault;
    }
    for (const rec of batch) if (queue.get(rec.session_id) === rec) queue.delete(rec.session_id);
    if (reported.size > 0) {
      log(`analytics: writing to ${path} again`);
      reported.clear();
    }
    attempt = 0;
    return null;
  };

  const cancel = (): void => {
    if (timer) clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
    timer = null;
    immediate = null;
  };

  /** Runs on the event loop: one batch per tick so a big queue never blocks for long. */
  const tick = (): void => {
    timer = null;
    immediate = null;
    if (queue.size === 0 || closed) return;
    const fault = writeBatch();
    if (fault === null) {
      if (queue.size > 0) immediate = setImmediate(tick);
      return;
    }
    attempt++;
    timer = setTimeout(tick, fault === 'corrupt' && attempt === 1 ? 0 : backoff(fault, attempt));
    timer.unref(); // a broken disk must not keep the process alive
  };

  const retention = setInterval(() => {
    try {
      store?.applyRetention();
    } catch (err) {
      if (classify(err) !== 'busy') log(`analytics: retention failed: ${(err as Error).message}`);
    }
  }, opts.retentionIntervalMs ?? HOUR_MS);
  retention.unref();

  // Open (and so run retention) soon after start, off the caller's path; a failure here is
  // handled like any write failure when the first session is written.
  let warm: NodeJS.Immediate | null = setImmediate(() => {
    warm = null;
    if (closed || store) return;
    try {
      open();
    } catch (err) {
      if (classify(err) === 'corrupt' && !reported.has('corrupt')) {
        reported.add('corrupt');
        moveAside(err);
      }
    }
  });

  const flush = async (): Promise<void> => {
    const deadline = Date.now() + (opts.flushDeadlineMs ?? FLUSH_DEADLINE_MS);
    cancel();
    let tries = 0;
    while (queue.size > 0) {
      const fault = writeBatch();
      if (fault === null) continue;
      if ((fault !== 'busy' && fault !== 'corrupt') || Date.now() > deadline) break;
      tries++;
      await new Promise((r) => setTimeout(r, fault === 'corrupt' ? 0 : backoff('busy', tries)));
    }
    if (queue.size > 0 && !closed && !timer) {
      attempt++;
      timer = setTimeout(tick, backoff('full', attempt));
      timer.unref();
    }
  };

  return {
    record(rec: SessionRecord): void {
      if (closed) return;
      const problem = recordProblem(rec);
      if (problem) {
        logOnce(`bad:${problem}`, `analytics: session not recorded: ${problem}`);
        return;
      }
      queue.set(rec.session_id, rec);
      if (!timer && !immediate) immediate = setImmediate(tick);
    },
    flush,
    async close(): Promise<void> {
      if (closed) return;
      await flush();
      closed = true;
      cancel();
      if (warm) clearImmediate(warm);
      clearInterval(retention);
      if (queue.size > 0) log(`analytics: closing with ${queue.size} session(s) not written to ${path}`);
      closeStore();
    },
    get pending(): number {
      return queue.size;
    },
  };
}
