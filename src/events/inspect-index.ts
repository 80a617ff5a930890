/**
 * An index of the inspector files (`<stateDir>/inspect/*.jsonl`): record id → file, offset and
 * length, so `/api/inspect/<id>` reads one record instead of every file (issue 11: an unknown id
 * read all of them, 1.4 s over 192 MB, on every request).
 *
 * The index is built by reading each file once, and then only what was appended since (a file
 * that shrank or was replaced is read again from 0). Building finds line ends and the id at the
 * start of each line (`{"id":"…"`, as the sink writes it) without parsing the records; a record
 * is parsed and checked only when it is asked for. The latest copy of an id wins (a session may
 * compress the same output again), newest file first.
 *
 * Invariants: read-only; a missing folder, unreadable file or corrupt line means "not found",
 * never an exception; memory is one small entry per record (the folder is capped at 256 MiB).
 */
import { readdirSync, statSync, type Stats } from 'node:fs';
import { open as openFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { InspectRecord } from './types.js';
import { isInspectRecord, parseLine } from './guards.js';
import { inspectDir } from './state-dir-sink.js';

interface Entry {
  offset: number;
  length: number;
}

interface FileIndex {
  ino: number;
  /** Bytes indexed: the end of the last complete line read. */
  size: number;
  mtime: number;
  entries: Map<string, Entry>;
}

const CHUNK = 8 * 1024 * 1024;
const ID_PREFIX = Buffer.from('{"id":"');

export interface InspectIndex {
  /** The record with this id, from the files as they are now; null when there is none. */
  find(id: string): Promise<InspectRecord | null>;
  /** Brings the index up to date with the files (also what `find` does first). */
  refresh(): Promise<void>;
  /** Records indexed (for tests and /metrics). */
  readonly size: number;
}

export interface InspectIndexOptions {
  /** Opens a file for reading (tests count the reads here). */
  open?: (path: string) => Promise<FileHandle>;
}

export function createInspectIndex(stateDir: string, opts: InspectIndexOptions = {}): InspectIndex {
  const dir = inspectDir(stateDir);
  const open = opts.open ?? ((path: string) => openFile(path, 'r'));
  const files = new Map<string, FileIndex>();
  let refreshing: Promise<void> | null = null;

  const refreshNow = async (): Promise<void> => {
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
    } catch {
      files.clear();
      return;
    }
    const present = new Set(names);
    for (const name of [...files.keys()]) if (!present.has(name)) files.delete(name);
    for (const name of names) {
      const path = join(dir, name);
      let st: Stats;
      try {
        st = statSync(path);
      } catch {
        files.delete(name);
        continue;
      }
      let f = files.get(name);
      if (!f || f.ino !== st.ino || st.size < f.size) {
        f = { ino: st.ino, size: 0, mtime: st.mtimeMs, entries: new Map() };
        files.set(name, f);
      }
      f.mtime = st.mtimeMs;
      if (st.size > f.size) await indexFrom(open, path, f, st.size);
    }
  };

  const refresh = (): Promise<void> => {
    // Concurrent requests share one pass over the files.
    refreshing ??= refreshNow().finally(() => {
      refreshing = null;
    });
    return refreshing;
  };

  return {
    refresh,
    async find(id) {
      for (let attempt = 0; attempt < 2; attempt++) {
        await refresh();
        let stale = false;
        const newestFirst = [...files].sort((a, b) => b[1].mtime - a[1].mtime);
        for (const [name, f] of newestFirst) {
          const entry = f.entries.get(id);
          if (!entry) continue;
          const record = await readRecord(open, join(dir, name), entry);
          if (record && record.id === id) return record;
          // The file was truncated and rewritten past its old size since it was indexed.
          files.delete(name);
          stale = true;
        }
        if (!stale) break;
      }
      return null;
    },
    get size() {
      let n = 0;
      for (const f of files.values()) n += f.entries.size;
      return n;
    },
  };
}

/** Indexes the complete lines of `path` from `f.size` up to `end`. */
async function indexFrom(
  open: (path: string) => Promise<FileHandle>,
  path: string,
  f: FileIndex,
  end: number,
): Promise<void> {
  let fh: FileHandle;
  try {
    fh = await open(path);
  } catch {
    return;
  }
  try {
    let carry = Buffer.alloc(0);
    let carryStart = f.size;
    let position = f.size;
    while (position < end) {
      const len = Math.min(CHUNK, end - position);
      const buf = Buffer.alloc(len);
      const { bytesRead } = await fh.read(buf, 0, len, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      const data = carry.length > 0 ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
      let start = 0;
      let nl = data.indexOf(10, start);
      while (nl !== -1) {
        addLine(f, data, start, nl, carryStart + start);
        start = nl + 1;
        nl = data.indexOf(10, start);
      }
      // A partial last line waits for its newline (the writer is still writing it).
      carry = Buffer.from(data.subarray(start));
      carryStart += start;
      f.size = carryStart;
    }
  } catch {
    // An unreadable stretch: what was indexed stays; the next refresh tries again from there.
  } finally {
    await fh.close().catch(() => undefined);
  }
}

function addLine(f: FileIndex, data: Buffer, start: number, end: number, offset: number): void {
  const id = lineId(data, start, end);
  if (id !== null) f.entries.set(id, { offset, length: end - start });
}

/** The id of a record line: read from its `{"id":"…"` start; other shapes are parsed whole. */
function lineId(data: Buffer, start: number, end: number): string | null {
  if (
    end - start >= ID_PREFIX.length &&
    data.compare(ID_PREFIX, 0, ID_PREFIX.length, start, start + ID_PREFIX.length) === 0
  ) {
    let i = start + ID_PREFIX.length;
    while (i < end) {
      const c = data[i];
      if (c === 0x5c)
        i += 2; // a backslash escapes the next byte
      else if (c === 0x22) break;
      else i++;
    }
    if (i < end) {
      try {
        const id: unknown = JSON.parse(data.toString('utf8', start + ID_PREFIX.length - 1, i + 1));
        return typeof id === 'string' ? id : null;
      } catch {
        return null;
      }
    }
    return null;
  }
  const v = parseLine(data.toString('utf8', start, end));
  return isInspectRecord(v) ? v.id : null;
}

async function readRecord(
  open: (path: string) => Promise<FileHandle>,
  path: string,
  entry: Entry,
): Promise<InspectRecord | null> {
  try {
    const fh = await open(path);
    try {
      const buf = Buffer.alloc(entry.length);
      const { bytesRead } = await fh.read(buf, 0, entry.length, entry.offset);
      const v = parseLine(buf.toString('utf8', 0, bytesRead));
      return isInspectRecord(v) ? v : null;
    } finally {
      await fh.close();
    }
  } catch {
    return null;
  }
}
