/**
 * The dashboard's read-only view of the analytics store. The database may not exist yet (no
 * session finished), may appear later, or analytics may be off: then every query answers the
 * empty result, so the page shows zeros instead of failing.
 *
 * Invariant: opening is retried at most every RETRY_MS; the dashboard never writes the store. A
 * damaged or foreign file (SQLITE_CORRUPT, SQLITE_NOTADB, at open or on any query) is reported as
 * `corrupt`, never as `missing`, and its queries answer empty; a file replaced under the reader
 * (a writer moved a damaged one aside) is opened afresh.
 */
import { existsSync, statSync } from 'node:fs';
import { errorText } from '../core/errors.js';
import type { AnalyticsStore } from '../store/db.js';
import { EMPTY_ANSWERS, type StoreQueries } from '../store/queries.js';

export type { SessionRow, SessionSort, SessionsQuery, Summary } from '../store/rows.js';
export { SESSION_SORTS } from '../store/rows.js';

/** What the dashboard reads of the store (src/store): every query, the session index, close. */
export type StoreReader = StoreQueries & Pick<AnalyticsStore, 'phases' | 'searchPhases' | 'close'>;

/** Answers every query with nothing; used while there is no database. */
export const EMPTY_STORE: StoreReader = {
  ...EMPTY_ANSWERS,
  phases: () => [],
  searchPhases: () => ({ hits: [], method: 'like' }),
  close: () => undefined,
};

type Query = (...args: unknown[]) => unknown;

/** Each query of `reader` (each key of EMPTY_STORE but close) run through `guard`, with its empty answer. */
function guardEach(reader: StoreReader, guard: (run: Query, empty: Query) => Query): StoreReader {
  // Queries are looked up by name: EMPTY_STORE is a StoreReader, so its keys are all of them.
  const queries = reader as unknown as Record<string, Query>;
  const empties = EMPTY_STORE as unknown as Record<string, Query>;
  const out: Record<string, Query> = { close: () => reader.close() };
  for (const name of Object.keys(EMPTY_STORE)) {
    if (name !== 'close')
      out[name] = guard((...a) => (queries[name] as Query).apply(reader, a), empties[name] as Query);
  }
  return out as unknown as StoreReader;
}

export type StoreOpener = (path: string) => Promise<StoreReader>;

const RETRY_MS = 5000;

/** Opens the real SQLite store read-only (loaded lazily: `hmc dashboard` may run without it). */
export const openSqliteReader: StoreOpener = async (path) => {
  const { openStore } = await import('../store/index.js');
  return openStore(path, { readonly: true });
};

/** What the dashboard knows of the database: `corrupt` when it is damaged or not a database at all. */
export type StoreStatus = 'ok' | 'missing' | 'disabled' | 'error' | 'corrupt';

export interface StoreAccess {
  /** The store, or EMPTY_STORE while none can be opened. */
  get(): Promise<StoreReader>;
  status(): StoreStatus;
  close(): void;
}

/** SQLITE_CORRUPT, SQLITE_NOTADB (by code, without loading the store module). */
function isDamage(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : '';
  return code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB');
}

function inode(path: string): number {
  try {
    return statSync(path).ino;
  } catch {
    return -1;
  }
}

export function storeAccess(
  dbPath: string | null,
  opener: StoreOpener,
  log: (line: string) => void,
  injected?: StoreReader,
): StoreAccess {
  let store: StoreReader | null = injected ?? null;
  let storeInode = -1;
  let lastTry = 0;
  // Requests arriving while the store is being opened wait for that same attempt.
  let opening: Promise<StoreReader> | null = null;
  let state: StoreStatus = injected ? 'ok' : dbPath === null ? 'disabled' : 'missing';

  const drop = (): void => {
    if (store && store !== injected) store.close();
    store = null;
  };

  /** Queries that meet a damaged page answer empty and mark the store damaged (retried later). */
  const guarded = (reader: StoreReader): StoreReader =>
    guardEach(reader, (run, empty) => (...a) => {
      try {
        return run(...a);
      } catch (err) {
        if (!isDamage(err) || reader !== store) throw err;
        if (state !== 'corrupt')
          log(`hmc dashboard: ${dbPath ?? ''} is damaged (${errorText(err)}); showing no history until it is replaced`);
        state = 'corrupt';
        drop();
        lastTry = Date.now();
        return empty(...a);
      }
    });

  return {
    async get() {
      // A writer moved a damaged file aside and started a fresh one: read the new file.
      if (store && store !== injected && dbPath !== null && inode(dbPath) !== storeInode) drop();
      if (store) return store === injected ? store : guarded(store);
      if (dbPath === null) return EMPTY_STORE;
      if (opening) return opening;
      const now = Date.now();
      if (now - lastTry < RETRY_MS) return EMPTY_STORE;
      lastTry = now;
      if (!existsSync(dbPath)) {
        state = 'missing';
        return EMPTY_STORE;
      }
      const path = dbPath;
      opening = (async () => {
        try {
          const opened = await opener(path);
          store = opened;
          storeInode = inode(path);
          state = 'ok';
          return guarded(opened);
        } catch (err) {
          const next: StoreStatus = isDamage(err) ? 'corrupt' : 'error';
          if (state !== next) log(`hmc dashboard: cannot open ${path}: ${errorText(err)}`);
          state = next;
          return EMPTY_STORE;
        } finally {
          opening = null;
        }
      })();
      return opening;
    },
    status: () => state,
    close() {
      drop();
    },
  };
}
