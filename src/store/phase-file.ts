/**
 * The per-session index file, `<state dir>/sessions/<safe session id>_index.jsonl`: one phase
 * entry per line, the source of truth for a session's phases (SQLite mirrors it).
 *
 * Invariants: the file is 0600 in a 0700 folder; a new phase is one appended line, an updated one
 * rewrites the file through a temporary file and a rename (never two entries for one phase_id, a
 * reader never sees half a rewrite); a torn last line (a crash mid-append) is skipped when read
 * and dropped by the next write; a line that is not a complete entry is skipped, never cast.
 * Read errors answer what could be read; write errors are thrown to the caller (phase-index.ts).
 */
import {
  appendFileSync,
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { safeFileName } from '../config/paths.js';
import { isPhaseEntry, replacePhase } from './phase-record.js';
import type { PhaseEntry } from './phase-types.js';

const SUFFIX = '_index.jsonl';

export function sessionsDir(stateDir: string): string {
  return join(stateDir, 'sessions');
}

export function phaseFilePath(stateDir: string, sessionId: string): string {
  return join(sessionsDir(stateDir), `${safeFileName(sessionId)}${SUFFIX}`);
}

/** What a file holds: its phases by phase_id, and whether a line had to be skipped. */
export interface PhaseFile {
  entries: PhaseEntry[];
  /** A line was torn or foreign: the next write rewrites the file without it. */
  damaged: boolean;
}

/** Parses a file's text: the last line per phase_id wins (an older writer's append-on-update). */
export function parsePhaseLines(text: string, sessionId?: string): PhaseFile {
  const byId = new Map<number, PhaseEntry>();
  let damaged = text.length > 0 && !text.endsWith('\n');
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      damaged = true;
      continue;
    }
    // An index file belongs to one session; a line of another (a copied file) is not this session's.
    if (!isPhaseEntry(value) || (sessionId !== undefined && value.session_id !== sessionId)) {
      damaged = true;
      continue;
    }
    byId.set(value.phase_id, replacePhase(byId.get(value.phase_id), value));
  }
  return { entries: [...byId.values()].sort((a, b) => a.phase_id - b.phase_id), damaged };
}

/** The session's phases; an empty list when the file is missing or unreadable. */
export function readPhaseFile(path: string, sessionId?: string): PhaseFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { entries: [], damaged: false };
  }
  return parsePhaseLines(text, sessionId);
}

/**
 * Writes `entries` (already merged and cleaned) for one session: appends the new ones when the
 * file holds every other entry unchanged and no torn line, else rewrites it atomically.
 */
export function writePhaseFile(path: string, dir: string, current: PhaseFile, changed: PhaseEntry[]): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const known = new Set(current.entries.map((e) => e.phase_id));
  const onlyNew = !current.damaged && changed.every((e) => !known.has(e.phase_id));
  if (onlyNew) {
    // One write call per batch: a crash leaves whole lines plus at most one torn one.
    appendFileSync(path, changed.map((e) => `${JSON.stringify(e)}\n`).join(''), { mode: 0o600 });
    chmodSync(path, 0o600);
    return;
  }
  const merged = new Map(current.entries.map((e) => [e.phase_id, e]));
  for (const e of changed) merged.set(e.phase_id, replacePhase(merged.get(e.phase_id), e));
  const body = [...merged.values()]
    .sort((a, b) => a.phase_id - b.phase_id)
    .map((e) => `${JSON.stringify(e)}\n`)
    .join('');
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeAll(fd, body);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // Nothing to clean.
    }
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, path);
}

function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}

/** Every index file of the state dir with its modification time (newest first). */
export function listPhaseFiles(stateDir: string): { path: string; mtime: number }[] {
  const dir = sessionsDir(stateDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: { path: string; mtime: number }[] = [];
  for (const name of names) {
    if (!name.endsWith(SUFFIX)) continue;
    try {
      out.push({ path: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs });
    } catch {
      // Removed meanwhile.
    }
  }
  return out.sort((a, b) => b.mtime - a.mtime);
}
