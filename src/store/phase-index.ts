/**
 * The session index of summarised phases as the engine uses it (PhaseIndex): entries go to the
 * session's JSONL file (the source of truth) and are mirrored into the analytics file's phases
 * table; a session's phases are read from its file, and a search across sessions asks SQLite
 * (FTS5) or, when analytics is off or unavailable, scans the files.
 *
 * Invariants: `record` only queues and returns (files are written on the next event-loop turn,
 * off the hook path); nothing here throws into the caller; an entry not yet written is still
 * listed and searched (memory first, then disk); a write that fails is logged once and retried
 * with backoff, the entry kept. No SQLite module is loaded here (the runtime passes the mirror
 * and the database search in), so the index works where better-sqlite3 does not.
 */
import { statSync } from 'node:fs';
import {
  listPhaseFiles,
  phaseFilePath,
  readPhaseFile,
  sessionsDir,
  writePhaseFile,
  type PhaseFile,
} from './phase-file.js';
import { cleanPhase, phaseProblem, replacePhase } from './phase-record.js';
import { queryTerms, rankEntries, toHit } from './phase-search.js';
import type { PhaseEntry, PhaseIndex, PhaseSearchOptions, PhaseSearchResult } from './phase-types.js';
import { errorText } from '../core/errors.js';

/** Files whose parsed entries are kept (by modification time and size). */
const CACHE_FILES = 64;
const MAX_RETRY_MS = 30_000;

export type PhaseDbSearch = (query: string, opts: PhaseSearchOptions) => PhaseSearchResult;

export interface PhaseIndexOptions {
  /** Where `sessions/<id>_index.jsonl` lives; null keeps the index in memory only. */
  stateDir: string | null;
  log: (line: string) => void;
  /** Mirrors an entry into the analytics file (the recorder), or null while analytics is off. */
  mirror?: () => ((entry: PhaseEntry) => void) | null;
  /** Searches the analytics file across sessions, or null while analytics is off. May throw. */
  searchDb?: () => PhaseDbSearch | null;
  /** First retry delay after a failed write (default 1 s, doubling up to 30 s). */
  retryMs?: number;
}

export interface PhaseIndexHandle extends PhaseIndex {
  /** Writes every queued entry now (the runtime's flush and close). Never throws. */
  flush(): void;
  /** Flushes and stops retrying; later records are kept in memory only. */
  close(): void;
  /** Entries waiting to be written to their files. */
  readonly pending: number;
}

export function createPhaseIndex(opts: PhaseIndexOptions): PhaseIndexHandle {
  const { stateDir, log } = opts;
  const pending = new Map<string, Map<number, PhaseEntry>>();
  const cache = new Map<string, { mtime: number; size: number; file: PhaseFile }>();
  const reported = new Set<string>();
  let immediate: NodeJS.Immediate | null = null;
  let timer: NodeJS.Timeout | null = null;
  let delay = 0;
  let failing = false;
  let closed = false;

  const logOnce = (key: string, line: string): void => {
    if (reported.has(key)) return;
    reported.add(key);
    log(line);
  };

  /** A session's file, parsed; reread only when its time or size changed. */
  const readFile = (sessionId: string): PhaseFile => {
    if (!stateDir) return { entries: [], damaged: false };
    const path = phaseFilePath(stateDir, sessionId);
    let stat: { mtimeMs: number; size: number };
    try {
      stat = statSync(path);
    } catch {
      cache.delete(path);
      return { entries: [], damaged: false };
    }
    const hit = cache.get(path);
    if (hit && hit.mtime === stat.mtimeMs && hit.size === stat.size) return hit.file;
    const file = readPhaseFile(path, sessionId);
    cache.delete(path);
    cache.set(path, { mtime: stat.mtimeMs, size: stat.size, file });
    if (cache.size > CACHE_FILES) cache.delete(cache.keys().next().value as string);
    return file;
  };

  const writeQueued = (): void => {
    if (!stateDir) return;
    for (const [sessionId, byId] of [...pending]) {
      const path = phaseFilePath(stateDir, sessionId);
      const written = [...byId.values()];
      try {
        writePhaseFile(path, sessionsDir(stateDir), readPhaseFile(path, sessionId), written);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? 'error';
        failing = true;
        logOnce(
          `write:${code}`,
          `hmc: cannot write the phase index ${path} (${errorText(err)}); ${pending.size} session(s) kept in memory, retrying later`,
        );
        retry();
        return;
      }
      cache.delete(path);
      // Entries recorded while writing stay queued for the next round.
      for (const e of written) if (byId.get(e.phase_id) === e) byId.delete(e.phase_id);
      if (byId.size === 0) pending.delete(sessionId);
    }
    if (failing) {
      log('hmc: writing the phase index again');
      failing = false;
      for (const key of [...reported]) if (key.startsWith('write:')) reported.delete(key);
    }
    delay = 0;
  };

  const retry = (): void => {
    if (closed || timer) return;
    delay = delay === 0 ? (opts.retryMs ?? 1000) : Math.min(MAX_RETRY_MS, delay * 2);
    timer = setTimeout(() => {
      timer = null;
      writeQueued();
    }, delay);
    timer.unref(); // a broken disk must not keep the process alive
  };

  const schedule = (): void => {
    if (closed || immediate || timer || !stateDir) return;
    immediate = setImmediate(() => {
      immediate = null;
      writeQueued();
    });
  };

  const list = (sessionId: string): PhaseEntry[] => {
    const byId = new Map(readFile(sessionId).entries.map((e) => [e.phase_id, e]));
    for (const e of pending.get(sessionId)?.values() ?? []) byId.set(e.phase_id, replacePhase(byId.get(e.phase_id), e));
    return [...byId.values()].sort((a, b) => a.phase_id - b.phase_id);
  };

  /** Every phase of every session: the files, newest first, with what is queued. */
  function* everything(): Generator<PhaseEntry> {
    const seen = new Set<string>();
    for (const [sessionId] of pending) {
      seen.add(sessionId);
      yield* list(sessionId);
    }
    if (!stateDir) return;
    for (const { path } of listPhaseFiles(stateDir)) {
      for (const e of readPhaseFile(path).entries) if (!seen.has(e.session_id)) yield e;
    }
  }

  const scan = (query: string, entries: Iterable<PhaseEntry>, limit: number): PhaseSearchResult => {
    const terms = queryTerms(query);
    if (terms.length === 0) return { hits: [], method: 'scan' };
    return { hits: rankEntries(entries, terms, limit).map((e) => toHit(e, terms)), method: 'scan' };
  };

  return {
    record(entry: PhaseEntry): void {
      try {
        const problem = phaseProblem(entry);
        if (problem) {
          logOnce(`bad:${problem}`, `hmc: phase not indexed: ${problem}`);
          return;
        }
        const clean = cleanPhase(entry);
        const byId = pending.get(clean.session_id) ?? new Map<number, PhaseEntry>();
        // The time a phase was first summarised is kept when its range is summarised again.
        const prev =
          byId.get(clean.phase_id) ?? readFile(clean.session_id).entries.find((e) => e.phase_id === clean.phase_id);
        const next = replacePhase(prev, clean);
        byId.set(next.phase_id, next);
        pending.set(next.session_id, byId);
        opts.mirror?.()?.(next);
        schedule();
      } catch (err) {
        logOnce(`record:${String(err)}`, `hmc: phase not indexed: ${errorText(err)}`);
      }
    },
    list(sessionId: string): PhaseEntry[] {
      try {
        return list(sessionId);
      } catch (err) {
        logOnce(`list:${String(err)}`, `hmc: cannot read the phase index: ${errorText(err)}`);
        return [...(pending.get(sessionId)?.values() ?? [])];
      }
    },
    search(query: string, o: PhaseSearchOptions): PhaseSearchResult {
      const limit = Math.max(1, Math.floor(o.limit));
      try {
        // A session's own file is the truth and small: searched directly, never a stale mirror.
        if (o.sessionId !== undefined) return scan(query, list(o.sessionId), limit);
        const db = opts.searchDb?.() ?? null;
        if (db) {
          try {
            return db(query, { limit });
          } catch (err) {
            logOnce(
              `db:${String(err)}`,
              `hmc: phase search in the analytics file failed (${errorText(err)}); scanning the session index files instead`,
            );
          }
        }
        return scan(query, everything(), limit);
      } catch (err) {
        logOnce(`search:${String(err)}`, `hmc: phase search failed: ${errorText(err)}`);
        return { hits: [], method: 'scan' };
      }
    },
    flush(): void {
      if (immediate) clearImmediate(immediate);
      if (timer) clearTimeout(timer);
      immediate = null;
      timer = null;
      writeQueued();
    },
    close(): void {
      this.flush();
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      if (pending.size > 0)
        log(`hmc: closing with ${pending.size} session(s) of phases not written to the index files`);
    },
    get pending(): number {
      let n = 0;
      for (const byId of pending.values()) n += byId.size;
      return n;
    },
  };
}
