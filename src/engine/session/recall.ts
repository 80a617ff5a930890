/**
 * Recall (DESIGN §6): every tool output HMC shortens or replaces is kept, exactly, under an id that
 * its marker prints, so `hmc_control action=recall id=…` can give it back, whole or a line range,
 * in this process or a later one (Hermes `-q` runs one process per turn).
 *
 * Files: `<state dir>/recall/<session>/<id>.json` (folders 0700, files 0600, atomic writes off the
 * hook path). Each file names its session, and a lookup checks it: two session ids that map to the
 * same folder name never see each other's outputs. Without a state dir, a bounded in-memory copy.
 *
 * Invariant: `put` never throws and never blocks a hook on the disk; `get` returns the very bytes
 * that were put, or null.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { safeFileName } from '../../config/paths.js';
import { errorText } from '../../core/errors.js';

/** Session folders not written for this long are deleted (the state dir's retention). */
export const RECALL_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** Above this, the least recently written session folders go first. */
export const RECALL_CAP_BYTES = 512 * 1024 * 1024;
/** The in-memory copy (no state dir) keeps at most this many characters. */
const MEMORY_CAP_CHARS = 64 * 1024 * 1024;

/** The id of one tool output in one session: stable, so a marker reads the same in every process. */
export function recallId(sessionId: string, key: string): string {
  return `r${createHash('sha1').update(`${sessionId}\u0000${key}`).digest('hex').slice(0, 10)}`;
}

/** The recall id of a call's arguments (input clearing): a digest of the session and the call. */
export function inputRecallId(sessionId: string, callId: string): string {
  return recallId(sessionId, `args:${callId}`);
}

/** A recall entry of a call's arguments names its tool after this prefix (recall answers them as `arguments`). */
export const ARGUMENTS_TOOL_PREFIX = '(arguments) ';

export interface RecallEntry {
  session_id: string;
  id: string;
  /** The tool that produced the output. */
  tool: string;
  /** The output exactly as the tool returned it. */
  content: string;
  /** When it was kept (ms since the epoch). */
  time: number;
}

export interface RecallStoreOptions {
  /** The state dir; null keeps copies in memory only. */
  stateDir: string | null;
  log: (line: string) => void;
  now?: () => number;
}

export class RecallStore {
  private readonly pending = new Map<string, RecallEntry>();
  private readonly memory = new Map<string, RecallEntry>();
  private memoryChars = 0;
  private readonly written = new Set<string>();
  private writes: Promise<void> = Promise.resolve();
  private failing = false;
  private readonly now: () => number;

  constructor(private readonly opts: RecallStoreOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Keeps `content` under `id` for `sessionId` (once per id and process). */
  put(sessionId: string, id: string, tool: string, content: string): void {
    const key = `${sessionId}\u0000${id}`;
    if (this.written.has(key) || this.pending.has(key) || this.memory.has(key)) return;
    const entry: RecallEntry = { session_id: sessionId, id, tool, content, time: this.now() };
    if (!this.opts.stateDir) {
      this.remember(key, entry);
      return;
    }
    this.pending.set(key, entry);
    const dir = join(this.opts.stateDir, 'recall', safeFileName(sessionId));
    const file = join(dir, `${id}.json`);
    const tmp = `${file}.${process.pid}.tmp`;
    this.writes = this.writes
      .then(() => mkdir(dir, { recursive: true, mode: 0o700 }))
      .then(() => writeFile(tmp, JSON.stringify(entry), { mode: 0o600 }))
      .then(() => rename(tmp, file))
      .then(() => {
        this.written.add(key);
        if (this.failing) this.opts.log('hmc: recall copies are being saved again');
        this.failing = false;
      })
      .catch((err: unknown) => {
        // One line per episode; the copy stays in memory so this process can still answer.
        if (!this.failing) this.opts.log(`hmc: could not save a recall copy in ${dir}: ${errorText(err)}`);
        this.failing = true;
        this.remember(key, entry);
      })
      .finally(() => this.pending.delete(key));
  }

  /** The output kept under `id` for this session, or null (unknown id, another session's, expired). */
  get(sessionId: string, id: string): RecallEntry | null {
    if (!/^r[0-9a-f]{10}$/.test(id)) return null;
    const key = `${sessionId}\u0000${id}`;
    const held = this.pending.get(key) ?? this.memory.get(key);
    if (held) return held;
    if (!this.opts.stateDir) return null;
    try {
      const value: unknown = JSON.parse(
        readFileSync(join(this.opts.stateDir, 'recall', safeFileName(sessionId), `${id}.json`), 'utf8'),
      );
      return isEntry(value) && value.session_id === sessionId && value.id === id ? value : null;
    } catch {
      return null;
    }
  }

  /** Waits until every copy in flight is on disk (or has failed). */
  async flush(): Promise<void> {
    await this.writes;
  }

  private remember(key: string, entry: RecallEntry): void {
    this.memory.set(key, entry);
    this.memoryChars += entry.content.length;
    for (const [k, e] of this.memory) {
      if (this.memoryChars <= MEMORY_CAP_CHARS) break;
      this.memory.delete(k);
      this.memoryChars -= e.content.length;
    }
  }
}

/** Deletes expired session folders, then the oldest ones while the folder is over its cap. Never throws. */
export function cleanupRecall(
  stateDir: string,
  now = Date.now(),
  maxAgeMs = RECALL_RETENTION_MS,
  maxBytes = RECALL_CAP_BYTES,
): void {
  const root = join(stateDir, 'recall');
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return;
  }
  const folders: { path: string; mtime: number; size: number }[] = [];
  for (const name of names) {
    const path = join(root, name);
    try {
      const st = statSync(path);
      if (!st.isDirectory()) continue;
      let size = 0;
      for (const file of readdirSync(path)) size += statSync(join(path, file)).size;
      folders.push({ path, mtime: st.mtimeMs, size });
    } catch {
      // Vanished meanwhile.
    }
  }
  let total = folders.reduce((n, f) => n + f.size, 0);
  for (const f of folders.sort((a, b) => a.mtime - b.mtime)) {
    if (now - f.mtime <= maxAgeMs && total <= maxBytes) continue;
    try {
      rmSync(f.path, { recursive: true, force: true });
      total -= f.size;
    } catch {
      // Left for the next run.
    }
  }
}

/** Lines `from`..`to` (1-based, inclusive) of a text; the range is clamped to the text. */
export function lineRange(
  text: string,
  from: number,
  to: number,
): { text: string; from: number; to: number; total: number } {
  const lines = text.split('\n');
  const start = Math.max(1, Math.min(from, lines.length));
  const end = Math.max(start, Math.min(to, lines.length));
  return { text: lines.slice(start - 1, end).join('\n'), from: start, to: end, total: lines.length };
}

function isEntry(value: unknown): value is RecallEntry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.session_id === 'string' &&
    typeof v.id === 'string' &&
    typeof v.tool === 'string' &&
    typeof v.content === 'string' &&
    typeof v.time === 'number'
  );
}
