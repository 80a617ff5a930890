/**
 * The sidecar's log file (`<state dir>/sidecar.log`, 0600, rotated once past 5 MiB at start).
 *
 * Invariant: writing a line never throws and never blocks on a broken disk (the stream queues);
 * when the file was deleted or replaced at its path (the state dir removed and made again), the
 * next line goes to a new file there, after one line saying so, instead of into the void (issue
 * 19, finding 6).
 */
import { createWriteStream, fstatSync, mkdirSync, openSync, renameSync, statSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';

const ROTATE_BYTES = 5 * 1024 * 1024;

export class LogFile {
  readonly path: string;
  private stream: WriteStream | null = null;
  private ino = 0;
  private dev = 0;

  constructor(private readonly stateDir: string) {
    this.path = join(stateDir, 'sidecar.log');
    try {
      if (statSync(this.path).size > ROTATE_BYTES) renameSync(this.path, `${this.path}.1`);
    } catch {
      // No log yet.
    }
    this.open();
  }

  /** Writes one line (with its newline), reopening the file first when it is gone or replaced. */
  write(text: string): void {
    try {
      let stream = this.stream;
      if (stream && !this.stillThere()) {
        stream.end();
        stream = this.open();
        stream?.write(
          `${new Date().toISOString()} [${process.pid}] ${this.path} was deleted or replaced (the state dir removed?); logging to a new file\n`,
        );
      }
      stream?.write(text);
    } catch {
      // A log line is never worth a failure.
    }
  }

  /** Resolves once the lines written so far are handed to the disk. */
  end(): Promise<void> {
    const s = this.stream;
    this.stream = null;
    return new Promise((resolve) => (s ? s.end(resolve) : resolve()));
  }

  private stillThere(): boolean {
    try {
      const st = statSync(this.path);
      return st.ino === this.ino && st.dev === this.dev;
    } catch {
      return false;
    }
  }

  private open(): WriteStream | null {
    this.stream = null;
    try {
      mkdirSync(this.stateDir, { recursive: true, mode: 0o700 });
      const fd = openSync(this.path, 'a', 0o600);
      const st = fstatSync(fd);
      this.ino = st.ino;
      this.dev = st.dev;
      const stream = createWriteStream(this.path, { fd, flags: 'a' });
      stream.on('error', () => undefined);
      this.stream = stream;
      return stream;
    } catch {
      return null;
    }
  }
}
