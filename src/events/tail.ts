/**
 * Follows every process's event file in `<stateDir>/events/` so one dashboard shows all Hermes
 * processes live: on start it replays the recent past (the last N events of each recently written
 * file, oldest first), then reads what is appended to each file from its last offset.
 *
 * Invariant: every complete line is delivered once, in file order; a partial last line waits for
 * its newline; a file that shrinks (truncated by its writer's size cap) is read again from 0; a
 * bad line is skipped. chokidar drives the reads; a slow poll backs it up (missed notifications).
 */
import { readdirSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { HmcEvent } from './types.js';
import { isHmcEvent, parseLine } from './guards.js';
import { ensurePrivateDir } from './jsonl-appender.js';
import { eventsDir } from './state-dir-sink.js';
import { errorText } from '../core/errors.js';

export interface TailOptions {
  /** File names (e.g. this process's own `<source>.jsonl`) not to follow. */
  skipFiles?: string[];
  /** Still replay the skipped files' recent past on start (a restarted in-process dashboard). */
  replaySkipped?: boolean;
  /** Events replayed per file on start (default 200). */
  replayPerFile?: number;
  /** Only files written within this many ms are replayed (default 24 h). */
  replayWindowMs?: number;
  /** Safety poll interval (default 2000 ms). */
  pollMs?: number;
  log: (line: string) => void;
}

export interface Tail {
  close(): Promise<void>;
}

interface FileState {
  offset: number;
  partial: Buffer;
  busy: boolean;
  again: boolean;
  /** A follow-up read is scheduled (the file is being written). */
  hot: boolean;
}

/**
 * After a read that found new lines, the file is read again this soon: chokidar compares mtimes
 * and can coalesce or miss appends made within the same millisecond, and a writer that just
 * wrote usually writes again. Idle files cost nothing (no new data, no follow-up).
 */
const HOT_FOLLOW_MS = 20;

const REPLAY_WINDOW_BYTES = 1024 * 1024;
const READ_CHUNK = 4 * 1024 * 1024;

export async function tailStateDir(stateDir: string, onEvent: (e: HmcEvent) => void, opts: TailOptions): Promise<Tail> {
  const dir = eventsDir(stateDir);
  ensurePrivateDir(dir);
  const skip = new Set(opts.skipFiles ?? []);
  const files = new Map<string, FileState>();
  let closed = false;

  const deliver = (line: string): void => {
    if (line.trim() === '') return;
    const v = parseLine(line);
    if (!isHmcEvent(v)) return;
    try {
      onEvent(v);
    } catch (err) {
      opts.log(`hmc tail: handler failed: ${errorText(err)}`);
    }
  };

  const readMore = async (name: string): Promise<void> => {
    if (closed || skip.has(name) || !name.endsWith('.jsonl')) return;
    let st = files.get(name);
    if (!st) {
      st = { offset: 0, partial: Buffer.alloc(0), busy: false, again: false, hot: false };
      files.set(name, st);
    }
    if (st.busy) {
      st.again = true;
      return;
    }
    st.busy = true;
    const startOffset = st.offset;
    try {
      do {
        st.again = false;
        const fh = await open(join(dir, name), 'r').catch(() => null);
        if (!fh) break;
        try {
          const size = (await fh.stat()).size;
          if (size < st.offset) {
            st.offset = 0;
            st.partial = Buffer.alloc(0);
          }
          while (st.offset < size && !closed) {
            const len = Math.min(READ_CHUNK, size - st.offset);
            const buf = Buffer.alloc(len);
            const { bytesRead } = await fh.read(buf, 0, len, st.offset);
            if (bytesRead === 0) break;
            st.offset += bytesRead;
            let data = Buffer.concat([st.partial, buf.subarray(0, bytesRead)]);
            let nl = data.indexOf(10);
            while (nl !== -1) {
              deliver(data.subarray(0, nl).toString('utf8'));
              data = data.subarray(nl + 1);
              nl = data.indexOf(10);
            }
            st.partial = Buffer.from(data);
          }
        } finally {
          await fh.close().catch(() => undefined);
        }
      } while (st.again && !closed);
    } catch (err) {
      opts.log(`hmc tail: cannot read ${name}: ${errorText(err)}`);
    } finally {
      st.busy = false;
    }
    if (st.offset !== startOffset && !st.hot && !closed) {
      const hotState = st;
      hotState.hot = true;
      setTimeout(() => {
        hotState.hot = false;
        void readMore(name);
      }, HOT_FOLLOW_MS).unref();
    }
  };

  await replay(dir, skip, files, opts, deliver);

  const watcher: FSWatcher = watch(dir, { depth: 0, ignoreInitial: true, persistent: true });
  const onPath = (path: string): void => {
    const name = path.slice(path.lastIndexOf('/') + 1);
    void readMore(name);
  };
  watcher
    .on('add', onPath)
    .on('change', onPath)
    .on('unlink', (path: string) => {
      files.delete(path.slice(path.lastIndexOf('/') + 1));
    });
  watcher.on('error', (err: unknown) => opts.log(`hmc tail: watch error: ${errorText(err)}`));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));

  const sweep = (): void => {
    for (const name of listJsonl(dir)) void readMore(name);
  };
  // Catch up on anything written between the replay and the watcher being ready.
  sweep();
  const timer = setInterval(sweep, opts.pollMs ?? 2000);
  timer.unref();

  return {
    async close() {
      closed = true;
      clearInterval(timer);
      await watcher.close();
    },
  };
}

function listJsonl(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return [];
  }
}

/** Reads the tail window of each recent file, sets its offset to the end, replays oldest first. */
async function replay(
  dir: string,
  skip: Set<string>,
  files: Map<string, FileState>,
  opts: TailOptions,
  deliver: (line: string) => void,
): Promise<void> {
  const perFile = opts.replayPerFile ?? 200;
  const windowMs = opts.replayWindowMs ?? 24 * 60 * 60 * 1000;
  const now = Date.now();
  const lines: { time: number; line: string }[] = [];
  for (const name of listJsonl(dir)) {
    const skipped = skip.has(name);
    if (skipped && !opts.replaySkipped) continue;
    try {
      const stat = statSync(join(dir, name));
      if (!skipped)
        files.set(name, { offset: stat.size, partial: Buffer.alloc(0), busy: false, again: false, hot: false });
      if (now - stat.mtimeMs > windowMs || perFile <= 0 || stat.size === 0) continue;
      const start = Math.max(0, stat.size - REPLAY_WINDOW_BYTES);
      const fh = await open(join(dir, name), 'r');
      try {
        const buf = Buffer.alloc(stat.size - start);
        const { bytesRead } = await fh.read(buf, 0, buf.length, start);
        let text = buf.subarray(0, bytesRead).toString('utf8');
        const lastNl = text.lastIndexOf('\n');
        // A partial last line stays for readMore to finish once its newline arrives.
        if (!skipped)
          files.set(name, {
            offset: start + Buffer.byteLength(text.slice(0, lastNl + 1)),
            partial: Buffer.alloc(0),
            busy: false,
            again: false,
            hot: false,
          });
        text = text.slice(0, lastNl + 1);
        const all = text.split('\n');
        if (start > 0) all.shift();
        for (const line of all.filter((l) => l.trim() !== '').slice(-perFile)) {
          const v = parseLine(line);
          lines.push({ time: isHmcEvent(v) ? v.time : 0, line });
        }
      } finally {
        await fh.close();
      }
    } catch (err) {
      opts.log(`hmc tail: cannot replay ${name}: ${errorText(err)}`);
    }
  }
  lines.sort((a, b) => a.time - b.time);
  for (const l of lines) deliver(l.line);
}
