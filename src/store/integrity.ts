/**
 * Is the analytics file a sound SQLite database? A header check (16 bytes, any size), SQLite's
 * own `quick_check` or `integrity_check` on a fresh read-only connection (never a writer's page
 * cache, which can hide what is on disk), and a salvage of the readable sessions of a corrupt
 * file, so a corruption costs the rows on the damaged pages and nothing else.
 *
 * Invariants: read-only (a check never writes the file it checks); nothing here throws: every
 * function answers with a problem sentence or null, and a salvage returns what it could read.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { classify } from './errors.js';
import { refusesOpen } from './shm-guard.js';
import { isPhaseEntry } from './phase-record.js';
import type { PhaseEntry } from './phase-types.js';
import type { SessionRecord, TurnPoint } from './types.js';
import { errorLine } from '../core/errors.js';

const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Files up to this size get SQLite's check at open, on a timer while a writer runs, and at
 * close; larger ones only the header check there (a quick_check of a large file would hold the
 * event loop), and `hmc doctor` checks them in full.
 */
export const CHECK_MAX_BYTES = 16 * 1024 * 1024;
/** `hmc doctor` runs integrity_check up to this size, quick_check above it. */
export const INTEGRITY_MAX_BYTES = 64 * 1024 * 1024;

/** Why `path` is not a SQLite file (by its header), or null. An empty file is a new database. */
export function headerProblem(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? null : `cannot read it (${errorLine(err)})`;
  }
  try {
    const head = Buffer.alloc(MAGIC.length);
    const n = readSync(fd, head, 0, head.length, 0);
    if (n === 0) return null;
    if (n < MAGIC.length || !head.equals(MAGIC)) return 'it is not a SQLite database (its header is wrong)';
    return null;
  } catch (err) {
    return `cannot read it (${errorLine(err)})`;
  } finally {
    closeSync(fd);
  }
}

export type CheckDepth = 'quick' | 'full';

/**
 * The first problem SQLite finds in the file, or null when it is sound (or absent). `quick` runs
 * `PRAGMA quick_check`, `full` runs `PRAGMA integrity_check` (which also checks indexes against
 * their tables).
 */
export function checkFile(path: string, depth: CheckDepth = 'quick'): string | null {
  const header = headerProblem(path);
  if (header) return header;
  try {
    if (statSync(path).size === 0) return null;
  } catch {
    return null;
  }
  // A database this process had to leave alone (shm-guard.ts): no connection, no verdict.
  if (refusesOpen(path)) return null;
  let db: Database.Database | null = null;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 2000');
    const rows = db.pragma(depth === 'full' ? 'integrity_check(5)' : 'quick_check(5)') as Record<string, unknown>[];
    const found = rows.map((r) => String(Object.values(r)[0] ?? '')).filter((r) => r !== 'ok');
    return found.length > 0
      ? `SQLite's ${depth === 'full' ? 'integrity_check' : 'quick_check'} failed: ${found.join('; ').slice(0, 300)}`
      : null;
  } catch (err) {
    // A busy or locked file is not a corrupt one: no verdict.
    if (classify(err) === 'busy') return null;
    return classify(err) === 'corrupt' ? `SQLite reports ${errorLine(err)}` : `cannot check it (${errorLine(err)})`;
  } finally {
    try {
      db?.close();
    } catch {
      // Nothing left to lose.
    }
  }
}

/** True when a check's problem means the file is damaged (not merely unreadable to us). */
export function isCorruption(problem: string): boolean {
  return !problem.startsWith('cannot ');
}

/** The newest `<path>.corrupt-<time>` a writer moved aside, if any (for `hmc analytics` to say so). */
export function movedAside(path: string): { file: string; time: number } | null {
  const prefix = `${basename(path)}.corrupt-`;
  let best: { file: string; time: number } | null = null;
  try {
    for (const name of readdirSync(dirname(path))) {
      if (!name.startsWith(prefix) || name.endsWith('-wal') || name.endsWith('-shm')) continue;
      const time = statSync(join(dirname(path), name)).mtimeMs;
      if (!best || time > best.time) best = { file: join(dirname(path), name), time };
    }
  } catch {
    return best;
  }
  return best;
}

/** The size of `path` in bytes, 0 when it is missing. */
export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * Every session of a (corrupt) analytics file that still reads back: its row, savings per strategy
 * and per tool, and its timeline. A table that cannot be read costs its rows only (a session whose
 * per-strategy rows are lost keeps its totals, with no breakdown); when the sessions table itself
 * cannot be read, nothing is salvaged.
 */
export function salvageSessions(path: string): { sessions: SessionRecord[]; total: number } {
  let db: Database.Database | null = null;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const rows = readAll(
      db,
      'SELECT id, project_path, platform, model, started_at, ended_at, turns, tool_calls, input_raw, input_hmc, context_peak FROM sessions',
      'rowid',
      ['id'],
    );
    const total = rows === null ? 0 : rows.length;
    if (rows === null) return { sessions: [], total };
    const strategies = groupBy(
      readAll(db, 'SELECT session_id, strategy AS k, saved AS v FROM session_strategy', 'session_id, strategy', [
        'session_id',
        'k',
      ]),
    );
    const tools = groupBy(
      readAll(db, 'SELECT session_id, tool AS k, saved AS v FROM session_tool', 'session_id, tool', [
        'session_id',
        'k',
      ]),
    );
    const turns = readAll(
      db,
      'SELECT session_id, turn, time, context_tokens, context_percent, input_raw, input_hmc, tool_calls FROM session_turn',
      'session_id, turn',
      ['session_id', 'turn'],
    );
    const timelines = new Map<string, TurnPoint[]>();
    for (const t of turns ?? []) {
      const id = String(t.session_id);
      const list = timelines.get(id) ?? [];
      list.push({
        turn: num(t.turn),
        time: num(t.time),
        context_tokens: num(t.context_tokens),
        context_percent: num(t.context_percent),
        input_raw: num(t.input_raw),
        input_hmc: num(t.input_hmc),
        tool_calls: num(t.tool_calls),
      });
      timelines.set(id, list);
    }
    const sessions: SessionRecord[] = [];
    for (const r of rows) {
      const id = String(r.id);
      sessions.push({
        session_id: id,
        project_path: String(r.project_path ?? ''),
        platform: String(r.platform ?? ''),
        model: String(r.model ?? ''),
        started_at: num(r.started_at),
        ended_at: r.ended_at === null ? null : num(r.ended_at),
        turns: num(r.turns),
        tool_calls: num(r.tool_calls),
        input_tokens_raw: num(r.input_raw),
        input_tokens_hmc: num(r.input_hmc),
        context_peak: num(r.context_peak),
        by_strategy: strategies?.get(id) ?? {},
        by_tool: tools?.get(id) ?? {},
        timeline: timelines.get(id) ?? [],
      });
    }
    return { sessions, total };
  } catch {
    return { sessions: [], total: 0 };
  } finally {
    try {
      db?.close();
    } catch {
      // Nothing left to lose.
    }
  }
}

/**
 * Every phase of a (corrupt) analytics file that still reads back (none from a file older than
 * the phases table, or when the table cannot be read).
 */
export function salvagePhases(path: string): { phases: PhaseEntry[]; total: number } {
  let db: Database.Database | null = null;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const rows = readAll(
      db,
      `SELECT session_id, phase_id, message_from, message_to, turn_from, turn_to, topic, summary,
      tokens_before, tokens_after, recall_id, model, created_at, updates FROM phases`,
      'id',
      ['session_id', 'phase_id'],
    );
    if (rows === null) return { phases: [], total: 0 };
    const phases: PhaseEntry[] = [];
    for (const r of rows) if (isPhaseEntry(r)) phases.push(r);
    return { phases, total: rows.length };
  } catch {
    return { phases: [], total: 0 };
  } finally {
    try {
      db?.close();
    } catch {
      // Nothing left to lose.
    }
  }
}

/**
 * The rows of a table that read back: in key order up to the first damaged page, then in reverse
 * order down to it, so one bad page costs the rows on it, not the whole table. Null when neither
 * direction reads a single row and the table is unreadable.
 */
function readAll(
  db: Database.Database,
  sql: string,
  order: string,
  identity: string[],
): Record<string, unknown>[] | null {
  const forward: Record<string, unknown>[] = [];
  try {
    for (const row of db.prepare(`${sql} ORDER BY ${order}`).iterate()) forward.push(row as Record<string, unknown>);
    return forward;
  } catch {
    // A damaged page: read the rest from the other end.
  }
  const backward: Record<string, unknown>[] = [];
  try {
    const desc = order
      .split(',')
      .map((k) => `${k.trim()} DESC`)
      .join(', ');
    for (const row of db.prepare(`${sql} ORDER BY ${desc}`).iterate()) backward.push(row as Record<string, unknown>);
  } catch {
    // Up to the damaged page from this side too.
  }
  if (forward.length === 0 && backward.length === 0) return null;
  const idOf = (r: Record<string, unknown>): string => JSON.stringify(identity.map((k) => r[k]));
  const seen = new Set(forward.map(idOf));
  return [...forward, ...backward.filter((r) => !seen.has(idOf(r)))];
}

function groupBy(rows: Record<string, unknown>[] | null): Map<string, Record<string, number>> | null {
  if (rows === null) return null;
  const out = new Map<string, Record<string, number>>();
  for (const r of rows) {
    const id = String(r.session_id);
    const m = out.get(id) ?? {};
    m[String(r.k)] = num(r.v);
    out.set(id, m);
  }
  return out;
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'bigint' ? Number(v) : 0;
}
