/**
 * The engine's SessionRecorder over SQLite: `record()` only queues (latest picture per session
 * wins) and returns at once; writes happen off the hook path in short batches. The session
 * index's phases are mirrored the same way (`recordPhase`, latest entry per phase wins).
 *
 * Invariants: a hook never waits on SQLite (busy_timeout 0; SQLITE_BUSY is retried with backoff
 * on a timer); a full disk or read-only file is logged once and retried later, the queue kept;
 * a damaged file is moved aside to `<name>.corrupt-<timestamp>` (with its -wal/-shm), a fresh one
 * created and every session (and phase) that still reads back from the damaged one copied into it, with one
 * log line; nothing here throws into the caller. Damage is looked for at open, on any statement
 * (SQLITE_CORRUPT / SQLITE_NOTADB), every `checkIntervalMs` while writing and at close, by a check
 * on a fresh connection (a writer's page cache can hide a file damaged under it: issue 11).
 * Retention runs at open and hourly, never per insert.
 */
import { existsSync, renameSync, statSync } from 'node:fs';
import { classify, type Fault } from './errors.js';
import { openStore, type AnalyticsStore, type HostPriceRow } from './db.js';
import type { HostPrice } from '../core/context-engine.js';
import {
  CHECK_MAX_BYTES,
  checkFile,
  fileSize,
  headerProblem,
  isCorruption,
  salvagePhases,
  salvageSessions,
} from './integrity.js';
import { cleanPhase, phaseProblem, replacePhase } from './phase-record.js';
import type { PhaseEntry } from './phase-types.js';
import { recordProblem } from './record.js';
import type { SessionRecord, SessionRecorder } from './types.js';
import { usageProblem, type UsageRecord } from './usage.js';
import { errorText } from '../core/errors.js';

const BATCH = 500;
const HOUR_MS = 3_600_000;
const FLUSH_DEADLINE_MS = 5_000;
const CHECK_INTERVAL_MS = 5 * 60_000;

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
  /** How often, while writing, the file is checked for damage on a fresh connection (default 5 min). */
  checkIntervalMs?: number;
}

export interface Recorder extends SessionRecorder {
  /** Queues a phase of the session index for the phases table; never throws, never waits. */
  recordPhase(entry: PhaseEntry): void;
  /** Queues the provider usage of one model call; never throws, never waits. */
  recordUsage(row: UsageRecord): void;
  /** Writes everything queued, retrying a busy database for up to 5 s; never rejects. */
  flush(): Promise<void>;
  /** Flushes, stops the timers and closes the database; later records are ignored. */
  close(): Promise<void>;
  /** Sessions waiting to be written (for status and tests). */
  readonly pending: number;
  /** Phases waiting to be written. */
  readonly pendingPhases: number;
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
  const phases = new Map<string, PhaseEntry>();
  const phaseKey = (e: PhaseEntry): string => `${e.session_id}\u0000${e.phase_id}`;
  const usage = new Map<string, UsageRecord>();
  const usageKey = (r: UsageRecord): string => `${r.session_id}\u0000${r.seq}`;
  const prices = new Map<string, HostPriceRow>();
  /** The price last queued per model: the host reports it with every call, written once per change. */
  const lastPrice = new Map<string, string>();
  const waiting = (): number => queue.size + phases.size + usage.size + prices.size;
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

  /** Moves the damaged file aside, starts afresh and queues what still reads back from it. */
  const moveAside = (reason: string): void => {
    closeStore();
    const target = `${path}.corrupt-${stamp()}`;
    try {
      renameSync(path, target);
      for (const ext of ['-wal', '-shm']) if (existsSync(path + ext)) renameSync(path + ext, target + ext);
    } catch (moveErr) {
      logOnce(
        'move',
        `analytics: ${path} is damaged (${reason}) and could not be moved aside (${(moveErr as Error).message}); analytics paused`,
      );
      return;
    }
    const { sessions, total } = salvageSessions(target);
    // What this process queued meanwhile is newer than the damaged file's copy.
    for (const rec of sessions) if (!queue.has(rec.session_id)) queue.set(rec.session_id, rec);
    const saved = salvagePhases(target);
    for (const e of saved.phases) if (!phases.has(phaseKey(e))) phases.set(phaseKey(e), e);
    const phaseNote = saved.total > 0 ? ` and ${saved.phases.length} of ${saved.total} phase(s)` : '';
    log(
      `analytics: ${path} is damaged (${reason}); moved it to ${target}, started a fresh database and copied back ${sessions.length} of ${total} session(s)${phaseNote} that still read`,
    );
  };

  /** Looks for damage on a fresh connection; moves the file aside when there is some. */
  let lastCheck = Date.now();
  const checkNow = (): boolean => {
    lastCheck = Date.now();
    if (!existsSync(path)) return false;
    const problem = fileSize(path) <= CHECK_MAX_BYTES ? checkFile(path) : headerProblem(path);
    if (!problem || !isCorruption(problem)) return false;
    reported.add('corrupt');
    moveAside(problem);
    return true;
  };

  /** One batch; returns the fault that stopped it, or null when the batch was written. */
  const writeBatch = (): Fault | null => {
    try {
      if (queue.size > 0) {
        const batch: SessionRecord[] = [];
        for (const rec of queue.values()) {
          batch.push(rec);
          if (batch.length >= BATCH) break;
        }
        open().recordSessions(batch);
        for (const rec of batch) if (queue.get(rec.session_id) === rec) queue.delete(rec.session_id);
      }
      if (phases.size > 0) {
        const batch: PhaseEntry[] = [];
        for (const e of phases.values()) {
          batch.push(e);
          if (batch.length >= BATCH) break;
        }
        open().recordPhases(batch);
        for (const e of batch) if (phases.get(phaseKey(e)) === e) phases.delete(phaseKey(e));
      }
      if (usage.size > 0) {
        const batch = [...usage.values()].slice(0, BATCH);
        open().recordUsage(batch);
        for (const r of batch) if (usage.get(usageKey(r)) === r) usage.delete(usageKey(r));
      }
      if (prices.size > 0) {
        const batch = [...prices.values()];
        open().recordHostPrices(batch);
        for (const p of batch) if (prices.get(p.model) === p) prices.delete(p.model);
      }
    } catch (err) {
      const fault = classify(err);
      const message = errorText(err);
      if (fault === 'corrupt') {
        if (reported.has('corrupt')) {
          logOnce(
            'corrupt-again',
            `analytics: ${path} is still unreadable after a fresh start (${message}); will keep retrying`,
          );
        } else {
          reported.add('corrupt');
          moveAside(message);
        }
      } else if (fault === 'full') {
        logOnce('full', `analytics: disk full writing ${path}; ${waiting()} record(s) kept in memory, retrying later`);
      } else if (fault === 'readonly') {
        closeStore();
        logOnce(
          'readonly',
          `analytics: cannot write ${path} (read-only: ${message}); ${waiting()} record(s) kept in memory, retrying later`,
        );
      } else if (fault === 'other') {
        closeStore();
        logOnce(`other:${message}`, `analytics: write failed: ${message}; retrying later`);
      }
      return fault;
    }
    if (reported.size > 0) {
      log(`analytics: writing to ${path} again`);
      reported.clear();
    }
    attempt = 0;
    // Damage where no write goes is invisible to the writer: look for it now and then.
    if (Date.now() - lastCheck >= (opts.checkIntervalMs ?? CHECK_INTERVAL_MS) && checkNow()) return 'corrupt';
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
    if (waiting() === 0 || closed) return;
    const fault = writeBatch();
    if (fault === null) {
      if (waiting() > 0) immediate = setImmediate(tick);
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
        moveAside(errorText(err));
      }
    }
  });

  const flush = async (): Promise<void> => {
    const deadline = Date.now() + (opts.flushDeadlineMs ?? FLUSH_DEADLINE_MS);
    cancel();
    let tries = 0;
    while (waiting() > 0) {
      const fault = writeBatch();
      if (fault === null) continue;
      if ((fault !== 'busy' && fault !== 'corrupt') || Date.now() > deadline) break;
      tries++;
      await new Promise((r) => setTimeout(r, fault === 'corrupt' ? 0 : backoff('busy', tries)));
    }
    if (waiting() > 0 && !closed && !timer) {
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
    recordPhase(entry: PhaseEntry): void {
      if (closed) return;
      const problem = phaseProblem(entry);
      if (problem) {
        logOnce(`badphase:${problem}`, `analytics: phase not recorded: ${problem}`);
        return;
      }
      const clean = cleanPhase(entry);
      phases.set(phaseKey(clean), replacePhase(phases.get(phaseKey(clean)), clean));
      if (!timer && !immediate) immediate = setImmediate(tick);
    },
    recordUsage(row: UsageRecord): void {
      if (closed) return;
      const problem = usageProblem(row);
      if (problem) {
        logOnce(`badusage:${problem}`, `analytics: provider usage not recorded: ${problem}`);
        return;
      }
      usage.set(usageKey(row), row);
      if (!timer && !immediate) immediate = setImmediate(tick);
    },
    recordHostPrice(model: string, price: HostPrice, at: number): void {
      if (closed || model === '') return;
      const key = JSON.stringify(price);
      if (lastPrice.get(model) === key) return;
      lastPrice.set(model, key);
      prices.set(model, { model, price, at });
      if (!timer && !immediate) immediate = setImmediate(tick);
    },
    flush,
    async close(): Promise<void> {
      if (closed) return;
      await flush();
      // The last look before exit: a file damaged under this writer must not stay in place unnoticed.
      closeStore();
      if (checkNow()) await flush();
      closed = true;
      cancel();
      if (warm) clearImmediate(warm);
      clearInterval(retention);
      if (queue.size > 0) log(`analytics: closing with ${queue.size} session(s) not written to ${path}`);
      if (phases.size > 0)
        log(
          `analytics: closing with ${phases.size} phase(s) not written to ${path} (the session index files keep them)`,
        );
      if (usage.size > 0) log(`analytics: closing with ${usage.size} provider usage row(s) not written to ${path}`);
      closeStore();
    },
    get pending(): number {
      return queue.size;
    },
    get pendingPhases(): number {
      return phases.size;
    },
  };
}
