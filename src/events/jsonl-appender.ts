/**
 * An append-only JSON-lines file written in the background: callers hand over a line and return
 * at once; a single flush loop writes batches in order.
 *
 * Invariant: `append` never blocks, never throws and never waits on the disk. The queue is bounded
 * (`maxPendingBytes`); when the disk cannot keep up, lines are dropped and that is logged once per
 * episode. The file is created 0600 in a 0700 directory; when it grows past `maxFileBytes` it is
 * truncated and starts again (readers treat a shrinking file as new, see tail.ts).
 */
import { mkdirSync, chmodSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface AppenderOptions {
  path: string;
  /** Lines waiting for the disk, in bytes; above this new lines are dropped. */
  maxPendingBytes?: number;
  /** The file is truncated when a write would take it past this size. */
  maxFileBytes?: number;
  log: (line: string) => void;
}

export const DEFAULT_MAX_PENDING_BYTES = 8 * 1024 * 1024;
export const DEFAULT_MAX_FILE_BYTES = 32 * 1024 * 1024;

export class JsonlAppender {
  readonly path: string;
  private readonly maxPending: number;
  private readonly maxFile: number;
  private readonly log: (line: string) => void;
  private queue: string[] = [];
  private pendingBytes = 0;
  private dropped = 0;
  private handle: FileHandle | null = null;
  private size = 0;
  private flushing: Promise<void> | null = null;
  private failed = false;
  private closed = false;

  constructor(opts: AppenderOptions) {
    this.path = opts.path;
    this.maxPending = opts.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES;
    this.maxFile = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.log = opts.log;
  }

  /** Queues one line (without its newline). */
  append(line: string): void {
    if (this.closed || this.failed) return;
    const bytes = Buffer.byteLength(line) + 1;
    if (this.pendingBytes + bytes > this.maxPending) {
      if (this.dropped === 0) this.log(`hmc events: disk too slow for ${this.path}; dropping lines until it catches up`);
      this.dropped++;
      return;
    }
    this.queue.push(line);
    this.pendingBytes += bytes;
    if (!this.flushing) this.flushing = this.flushLoop();
  }

  /** Resolves when everything queued so far is on disk (or dropped after an error). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    const h = this.handle;
    this.handle = null;
    if (h) await h.close().catch(() => undefined);
  }

  private async flushLoop(): Promise<void> {
    try {
      // Let the caller's synchronous burst accumulate into one write.
      await new Promise<void>((r) => setImmediate(r));
      while (this.queue.length > 0) {
        const batch = this.queue.join('\n') + '\n';
        this.queue = [];
        this.pendingBytes = 0;
        const h = await this.open();
        const buf = Buffer.from(batch);
        if (this.size > 0 && this.size + buf.length > this.maxFile) {
          await h.truncate(0);
          this.size = 0;
        }
        await h.write(buf);
        this.size += buf.length;
        if (this.dropped > 0) {
          this.log(`hmc events: ${this.dropped} line(s) dropped for ${this.path} while the disk was slow`);
          this.dropped = 0;
        }
      }
    } catch (err) {
      this.failed = true;
      this.queue = [];
      this.pendingBytes = 0;
      this.log(`hmc events: cannot write ${this.path}: ${err instanceof Error ? err.message : String(err)}; events are no longer saved`);
    } finally {
      this.flushing = null;
    }
  }

  private async open(): Promise<FileHandle> {
    if (this.handle) return this.handle;
    ensurePrivateDir(dirname(this.path));
    const h = await open(this.path, 'a', 0o600);
    await h.chmod(0o600).catch(() => undefined);
    this.size = (await h.stat()).size;
    this.handle = h;
    return h;
  }
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
