/**
 * An append-only JSON-lines file written in the background: callers hand over a line and return
 * at once; a single flush loop writes batches in order.
 *
 * Invariant: `append` never blocks, never throws and never waits on the disk. The queue is bounded
 * (`maxPendingBytes`); when the disk cannot keep up, lines are dropped and that is logged once per
 * episode. A write that fails (a full disk, a read-only mount, a vanished folder) starts a failure
 * episode: one log line; the lines wait in the (bounded) queue, and the file is retried on a
 * backoff timer until a write succeeds again, which is logged once with what was lost (only what
 * overflowed the queue). It never gives up for good (issue 11: one ENOSPC used to stop the events
 * of a process forever). After a failure the file is reopened and, when the disk kept a torn
 * line, the next write starts on a fresh line, so readers skip that piece and lose nothing else;
 * whole lines a cut-short write did land are written again (readers de-duplicate by event id,
 * and the latest inspector copy of an id wins). The file is created 0600
 * in a 0700 directory; past `maxFileBytes` it is truncated and starts again (readers treat a
 * shrinking file as new, see tail.ts). Before each batch the path is checked to still name the
 * open file: a file deleted or replaced under it (the state dir removed and made again) is
 * reopened at its path, with one log line, instead of written into the void (issue 19, finding 6).
 */
import { mkdirSync, chmodSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errorText } from '../core/errors.js';

/** The part of a file handle the appender uses (tests inject faults through `openFile`). */
export interface AppendHandle {
  /** One write; it may write fewer bytes than asked (a disk filling up does). */
  write(buffer: Buffer, offset: number, length: number): Promise<{ bytesWritten: number }>;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  truncate(length: number): Promise<void>;
  /** `ino` and `dev` (real files) let the appender see the file deleted or replaced at its path. */
  stat(): Promise<{ size: number; ino?: number; dev?: number }>;
  close(): Promise<void>;
}

export interface AppenderOptions {
  path: string;
  /** Lines waiting for the disk, in bytes; above this new lines are dropped. */
  maxPendingBytes?: number;
  /** The file is truncated when a write would take it past this size. */
  maxFileBytes?: number;
  /** First retry delay after a failed write, doubled up to `maxRetryMs` (default 100 ms). */
  retryMs?: number;
  /** Longest pause between retries (default 5 s). */
  maxRetryMs?: number;
  /** Opens the file for appending (default: fs/promises open, mode 0600). */
  openFile?: (path: string) => Promise<AppendHandle>;
  log: (line: string) => void;
}

export const DEFAULT_MAX_PENDING_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_FILE_BYTES = 32 * 1024 * 1024;

async function openPrivate(path: string): Promise<AppendHandle> {
  ensurePrivateDir(dirname(path));
  // a+: appends, and reads the last byte after a failure (a torn line?).
  const h: FileHandle = await open(path, 'a+', 0o600);
  await h.chmod(0o600).catch(() => undefined);
  return h;
}

export class JsonlAppender {
  readonly path: string;
  private readonly maxPending: number;
  private readonly maxFile: number;
  private readonly retryMs: number;
  private readonly maxRetryMs: number;
  private readonly openFile: (path: string) => Promise<AppendHandle>;
  private readonly log: (line: string) => void;
  private queue: string[] = [];
  private pendingBytes = 0;
  /** Lines dropped because the queue was full (the disk too slow). */
  private dropped = 0;
  private handle: AppendHandle | null = null;
  /** Which file the handle is (inode and device), when the handle says. */
  private identity: { ino: number; dev: number } | null = null;
  private size = 0;
  private flushing: Promise<void> | null = null;
  /** Set while a failure episode lasts: what failed first and how many lines were lost since. */
  private failure: { reason: string; lost: number; since: number } | null = null;
  private droppedBeforeFailure = 0;
  private retryDelay = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  /** The backoff elapsed with nothing queued: the next line is written at once. */
  private retryDue = false;
  private closed = false;

  constructor(opts: AppenderOptions) {
    this.path = opts.path;
    this.maxPending = opts.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES;
    this.maxFile = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.retryMs = opts.retryMs ?? 100;
    this.maxRetryMs = opts.maxRetryMs ?? 5000;
    this.openFile = opts.openFile ?? openPrivate;
    this.log = opts.log;
  }

  /** True while writes fail (a failure episode); lines queued meanwhile wait for the next retry. */
  get failing(): boolean {
    return this.failure !== null;
  }

  /** Queues one line (without its newline). */
  append(line: string): void {
    if (this.closed) return;
    const bytes = Buffer.byteLength(line) + 1;
    if (this.pendingBytes + bytes > this.maxPending) {
      if (this.failure) this.failure.lost++;
      else {
        if (this.dropped === 0)
          this.log(`hmc events: disk too slow for ${this.path}; dropping lines until it catches up`);
        this.dropped++;
      }
      return;
    }
    this.queue.push(line);
    this.pendingBytes += bytes;
    // During a failure episode the retry timer paces the writes: a burst of hooks must not hammer
    // a full disk.
    if (!this.flushing && (!this.failure || this.retryDue)) this.flushing = this.flushLoop();
  }

  /** Resolves when everything queued so far is on disk (or dropped after an error). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  async close(): Promise<void> {
    await this.flush();
    // A last try for what waited on a failing disk: it may have space again.
    if (this.failure && this.queue.length > 0) {
      this.flushing = this.flushLoop(false);
      await this.flush();
    }
    this.closed = true;
    this.cancelRetry();
    const h = this.handle;
    this.handle = null;
    if (h) await h.close().catch(() => undefined);
  }

  private async flushLoop(coalesce = true): Promise<void> {
    this.retryDue = false;
    try {
      // Let the caller's synchronous burst accumulate into one write.
      if (coalesce) await new Promise<void>((r) => setImmediate(r));
      while (this.queue.length > 0) {
        const lines = this.queue;
        this.queue = [];
        this.pendingBytes = 0;
        const written = await this.writeLines(lines);
        if (written.error !== null) {
          // Whole lines that landed stay written; the rest waits for the next try.
          this.requeue(lines.slice(written.lines));
          this.fail(written.error);
          return;
        }
        this.recovered();
      }
    } finally {
      this.flushing = null;
    }
  }

  /**
   * Writes the lines, looping over short writes; returns how many whole lines landed and the error
   * that stopped it, if any (a full disk writes part of a batch, then fails).
   */
  private async writeLines(lines: string[]): Promise<{ lines: number; error: unknown }> {
    let buf: Buffer;
    let lead = 0;
    let h: AppendHandle;
    try {
      if (this.handle && !(await this.stillThere())) {
        this.log(`hmc events: ${this.path} was deleted or replaced (the state dir removed?); writing a new file there`);
        const gone = this.handle;
        this.handle = null;
        this.size = 0;
        await gone.close().catch(() => undefined);
      }
      const reopened = this.handle === null;
      h = await this.open();
      // After a failure the disk may hold part of a line: start on a line of our own.
      lead = reopened && this.size > 0 && !(await endsWithNewline(h, this.size)) ? 1 : 0;
      buf = Buffer.from(`${lead ? '\n' : ''}${lines.join('\n')}\n`);
      if (this.size > 0 && this.size + buf.length > this.maxFile) {
        await h.truncate(0);
        this.size = 0;
      }
    } catch (error) {
      return { lines: 0, error };
    }
    let offset = 0;
    try {
      while (offset < buf.length) {
        const { bytesWritten } = await h.write(buf, offset, buf.length - offset);
        offset += bytesWritten;
        this.size += bytesWritten;
      }
      return { lines: lines.length, error: null };
    } catch (error) {
      // Count the lines whose newline is on disk.
      let done = 0;
      let end = lead;
      for (const line of lines) {
        end += Buffer.byteLength(line) + 1;
        if (end > offset) break;
        done++;
      }
      return { lines: done, error };
    }
  }

  /** Puts lines that could not be written back in front of the queue, oldest dropped past the bound. */
  private requeue(lines: string[]): void {
    const queued = lines.concat(this.queue);
    let bytes = queued.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
    let drop = 0;
    while (bytes > this.maxPending && drop < queued.length) bytes -= Buffer.byteLength(queued[drop++] as string) + 1;
    this.queue = queued.slice(drop);
    this.pendingBytes = bytes;
    if (this.failure) this.failure.lost += drop;
    else this.droppedBeforeFailure = drop;
  }

  private fail(err: unknown): void {
    const reason = errorText(err);
    // The handle may point at a file that is gone or half-written: reopen on the next try.
    const h = this.handle;
    this.handle = null;
    if (h) void h.close().catch(() => undefined);
    if (!this.failure) {
      this.failure = { reason, lost: this.droppedBeforeFailure, since: Date.now() };
      this.droppedBeforeFailure = 0;
      this.log(
        `hmc events: cannot write ${this.path}: ${reason}; events are dropped until it can write again (retrying)`,
      );
    }
    this.scheduleRetry();
  }

  private recovered(): void {
    if (this.failure) {
      const { lost, since } = this.failure;
      this.failure = null;
      this.retryDelay = 0;
      this.cancelRetry();
      this.log(
        `hmc events: writing ${this.path} again after ${Date.now() - since} ms; ${lost === 0 ? 'no line was lost' : `${lost} line(s) were lost (the queue was full)`}`,
      );
    }
    if (this.dropped > 0) {
      this.log(`hmc events: ${this.dropped} line(s) dropped for ${this.path} while the disk was slow`);
      this.dropped = 0;
    }
  }

  private scheduleRetry(): void {
    if (this.closed || this.retryTimer) return;
    this.retryDelay = this.retryDelay === 0 ? this.retryMs : Math.min(this.maxRetryMs, this.retryDelay * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.closed || this.flushing) return;
      if (this.queue.length === 0) this.retryDue = true;
      else this.flushing = this.flushLoop(false);
    }, this.retryDelay);
    // A broken disk must never keep the process alive.
    this.retryTimer.unref();
  }

  private cancelRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** Whether the path still names the open file (true when the handle cannot say which file it is). */
  private async stillThere(): Promise<boolean> {
    if (!this.identity) return true;
    try {
      const now = await stat(this.path);
      return now.ino === this.identity.ino && now.dev === this.identity.dev;
    } catch {
      return false;
    }
  }

  private async open(): Promise<AppendHandle> {
    if (this.handle) return this.handle;
    const h = await this.openFile(this.path);
    try {
      const st = await h.stat();
      this.size = st.size;
      this.identity =
        typeof st.ino === 'number' && typeof st.dev === 'number' && st.ino > 0 ? { ino: st.ino, dev: st.dev } : null;
    } catch (err) {
      await h.close().catch(() => undefined);
      throw err;
    }
    this.handle = h;
    return h;
  }
}

async function endsWithNewline(h: AppendHandle, size: number): Promise<boolean> {
  const last = Buffer.alloc(1);
  const { bytesRead } = await h.read(last, 0, 1, size - 1);
  return bytesRead === 1 && last[0] === 0x0a;
}

/** Creates `dir` (and parents) and makes it 0700. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dir, 0o700);
  } catch {
    // Not ours to change (e.g. a shared mount); the files themselves are still 0600.
  }
}
