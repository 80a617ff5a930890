/**
 * Session files in the state dir (`<state dir>/sessions/<safe id>.json`, DESIGN §8): read when a
 * process first meets a session, written after every turn so a new process carries on.
 *
 * Invariants: a write is atomic and private (a 0600 temp file renamed over the old one), off the
 * hook path, and the saves of one session land in order (an older picture never lands last). A
 * failing disk is logged once per episode, not once per save (issue 11: a full disk logged "could
 * not save session" on every hook), and its end once, with how many saves failed. The latest
 * picture of every session whose save failed is kept and written again on a backoff timer (and
 * at close), so a session that ended while the disk was full still reaches it. A torn or foreign
 * file reads as "no saved session" (said once per file), never an exception. Temp files left by a
 * process killed in the middle of a save are removed by the next one (once their process is gone).
 */
import { existsSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { safeFileName } from '../../config/paths.js';
import { parsePersisted, type PersistedSession } from '../session/persisted.js';
import { errorText } from '../../core/errors.js';

/** The file operations a save uses (tests inject a full or read-only disk here). */
export interface SaveFs {
  mkdir(dir: string): Promise<unknown>;
  writeFile(path: string, body: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
}

const realFs: SaveFs = {
  mkdir: (dir) => mkdir(dir, { recursive: true, mode: 0o700 }),
  writeFile: (path, body) => writeFile(path, body, { mode: 0o600 }),
  rename,
  unlink,
};

export class SessionFiles {
  private readonly saving = new Map<string, Promise<void>>();
  private counter = 0;
  /** The failure episode in progress: its first error, when it began, saves failed since. */
  private failure: { reason: string; since: number; failed: number } | null = null;
  /** The latest picture of each session whose save failed, written again when the disk recovers. */
  private readonly unsaved = new Map<string, string>();
  private retryTimer: NodeJS.Timeout | null = null;
  private retryDelay = 0;
  private swept = false;
  /** Files already reported unreadable (one line each). */
  private readonly unreadable = new Set<string>();

  constructor(
    readonly stateDir: string,
    private readonly log: (line: string) => void,
    private readonly fs: SaveFs = realFs,
    /** First retry delay after a failed save, doubled up to 30 s. */
    private readonly retryMs = 500,
  ) {}

  get dir(): string {
    return join(this.stateDir, 'sessions');
  }

  fileOf(id: string): string {
    return join(this.dir, `${safeFileName(id)}.json`);
  }

  /** The session saved under `id`, or null (none, torn, or another session's file). */
  load(id: string): PersistedSession | null {
    const file = this.fileOf(id);
    if (!existsSync(file)) return null;
    let reason: string;
    try {
      const saved = parsePersisted(JSON.parse(readFileSync(file, 'utf8')));
      if (saved && saved.session_id === id) return saved;
      reason = saved ? `it holds session ${JSON.stringify(saved.session_id.slice(0, 80))}` : 'it is not a session file';
    } catch (err) {
      reason = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
    }
    if (!this.unreadable.has(file)) {
      this.unreadable.add(file);
      this.log(
        `hmc: cannot use the saved session ${file} (${reason}); the session starts afresh here and its next save replaces the file`,
      );
    }
    return null;
  }

  /** Queues a save of a session's JSON; returns at once. */
  save(id: string, body: string): void {
    this.sweepTemps();
    this.unsaved.delete(id);
    const file = this.fileOf(id);
    const tmp = `${file}.${process.pid}.${++this.counter}.tmp`;
    const previous = this.saving.get(id) ?? Promise.resolve();
    const next: Promise<void> = previous
      .then(async () => {
        try {
          await this.fs.mkdir(this.dir);
          await this.fs.writeFile(tmp, body);
          await this.fs.rename(tmp, file);
        } catch (err) {
          // A half-written temp file must not fill what little space is left.
          await this.fs.unlink(tmp).catch(() => undefined);
          throw err;
        }
      })
      .then(
        () => this.succeeded(),
        (err: unknown) => this.failed(id, file, this.saving.get(id) === next ? body : null, err),
      )
      .finally((): void => {
        if (this.saving.get(id) === next) this.saving.delete(id);
      });
    this.saving.set(id, next);
  }

  /** Waits until every save in flight has reached the disk (or failed). */
  async flush(): Promise<void> {
    await Promise.all([...this.saving.values()]);
  }

  /** A last try for the saves that failed, then stops retrying. */
  async close(): Promise<void> {
    await this.flush();
    this.retryUnsaved();
    await this.flush();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.unsaved.size > 0)
      this.log(`hmc: ${this.unsaved.size} session(s) could not be saved to ${this.dir} before exit`);
  }

  /** True while saves fail (for status and tests). */
  get failing(): boolean {
    return this.failure !== null;
  }

  /** `body` is null when a newer picture of the session is already on its way. */
  private failed(id: string, file: string, body: string | null, err: unknown): void {
    if (body !== null) this.unsaved.set(id, body);
    this.scheduleRetry();
    if (this.failure) {
      this.failure.failed++;
      return;
    }
    const reason = errorText(err);
    this.failure = { reason, since: Date.now(), failed: 1 };
    this.log(
      `hmc: could not save session ${id} to ${file}: ${reason}; sessions stay in memory and are saved again once the disk accepts writes`,
    );
  }

  private succeeded(): void {
    if (!this.failure) return;
    const { since, failed } = this.failure;
    this.failure = null;
    this.retryDelay = 0;
    this.log(
      `hmc: saving sessions to ${this.dir} again after ${Date.now() - since} ms (${failed} save(s) had failed; each is written again now)`,
    );
    this.retryUnsaved();
  }

  /** Removes the temp files of saves that a killed process left behind (once per process). */
  private sweepTemps(): void {
    if (this.swept) return;
    this.swept = true;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      const m = /\.json\.(\d+)\.\d+\.tmp$/.exec(name);
      const pid = m ? Number(m[1]) : 0;
      if (!pid || pid === process.pid || alive(pid)) continue;
      try {
        unlinkSync(join(this.dir, name));
      } catch {
        // Gone already, or not ours to remove.
      }
    }
  }

  private retryUnsaved(): void {
    const pending = [...this.unsaved];
    this.unsaved.clear();
    for (const [id, body] of pending) if (!this.saving.has(id)) this.save(id, body);
  }

  private scheduleRetry(): void {
    if (this.retryTimer) return;
    this.retryDelay = this.retryDelay === 0 ? this.retryMs : Math.min(30_000, this.retryDelay * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.retryUnsaved();
    }, this.retryDelay);
    // A broken disk must never keep the process alive.
    this.retryTimer.unref();
  }
}

/** Whether a process with this id still runs (EPERM: it does, as another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
