/**
 * The dashboard's read-only view of the analytics store. The database may not exist yet (no
 * session finished), may appear later, or analytics may be off: then every query answers the
 * empty result, so the page shows zeros instead of failing.
 *
 * Invariant: opening is retried at most every RETRY_MS; the dashboard never writes the store.
 */
import { existsSync } from 'node:fs';
import type { DayRow, MonthRow, ProjectRow, SessionDetail, SessionRow, SessionsQuery, Summary } from '../store/rows.js';

export type { SessionRow, SessionSort, SessionsQuery, Summary } from '../store/rows.js';
export { SESSION_SORTS } from '../store/rows.js';

/** The subset of `AnalyticsStore` (src/store/index.ts) the dashboard reads. */
export interface StoreReader {
  summary(q?: { project?: string }): Summary;
  byDay(q: { days: number; project?: string }): DayRow[];
  byMonth(q: { months: number; project?: string }): MonthRow[];
  byProject(q: { limit: number }): ProjectRow[];
  byStrategy(q?: { project?: string }): { strategy: string; saved: number }[];
  byTool(q?: { project?: string; limit?: number }): { tool: string; saved: number }[];
  sessions(q: SessionsQuery): { rows: SessionRow[]; total: number };
  session(id: string): SessionDetail | null;
  close(): void;
}

export const EMPTY_SUMMARY: Summary = {
  total_saved: 0, total_sessions: 0, total_input: 0, total_output: 0, savings_pct: 0, by_strategy: {}, by_tool: {},
};

/** Answers every query with nothing; used while there is no database. */
export const EMPTY_STORE: StoreReader = {
  summary: () => ({ ...EMPTY_SUMMARY, by_strategy: {}, by_tool: {} }),
  byDay: () => [],
  byMonth: () => [],
  byProject: () => [],
  byStrategy: () => [],
  byTool: () => [],
  sessions: () => ({ rows: [], total: 0 }),
  session: () => null,
  close: () => undefined,
};

export type StoreOpener = (path: string) => Promise<StoreReader>;

const RETRY_MS = 5000;

/** Opens the real SQLite store read-only (loaded lazily: `hmc dashboard` may run without it). */
export const openSqliteReader: StoreOpener = async (path) => {
  const { openStore } = await import('../store/index.js');
  return openStore(path, { readonly: true });
};

export interface StoreAccess {
  /** The store, or EMPTY_STORE while none can be opened. */
  get(): Promise<StoreReader>;
  status(): 'ok' | 'missing' | 'disabled' | 'error';
  close(): void;
}

export function storeAccess(dbPath: string | null, opener: StoreOpener, log: (line: string) => void, injected?: StoreReader): StoreAccess {
  let store: StoreReader | null = injected ?? null;
  let lastTry = 0;
  // Requests arriving while the store is being opened wait for that same attempt.
  let opening: Promise<StoreReader> | null = null;
  let state: 'ok' | 'missing' | 'disabled' | 'error' = injected ? 'ok' : dbPath === null ? 'disabled' : 'missing';
  return {
    async get() {
      if (store) return store;
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
          store = await opener(path);
          state = 'ok';
          return store;
        } catch (err) {
          if (state !== 'error') log(`hmc dashboard: cannot open ${path}: ${err instanceof Error ? err.message : String(err)}`);
          state = 'error';
          return EMPTY_STORE;
        } finally {
          opening = null;
        }
      })();
      return opening;
    },
    status: () => state,
    close() {
      if (store && store !== injected) store.close();
      store = null;
    },
  };
}
