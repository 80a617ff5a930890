/**
 * The analytics store's public surface: open a store, record sessions through a non-blocking
 * recorder, answer the `analytics` action; the session index of summarised phases. Everything else
 * in src/store is internal.
 *
 * Invariant: nothing outside src/store imports better-sqlite3 for analytics.
 */
export { openStore, type AnalyticsStore, type StoreOptions } from './db.js';
export { createRecorder, type Recorder, type RecorderOptions } from './recorder.js';
export {
  analyticsAction,
  checkAnalyticsArgs,
  limitCut,
  parseLimit,
  DISABLED_ERROR,
  PERIODS,
  SCOPES,
  type ActionContext,
  type Period,
  type Scope,
} from './action.js';
export { StoreError, classify, type Fault } from './errors.js';
export { checkFile, headerProblem, movedAside, CHECK_MAX_BYTES, INTEGRITY_MAX_BYTES } from './integrity.js';
export { LATEST_VERSION, MIGRATIONS, migrate } from './migrations.js';
export type * from './rows.js';
export { pct, SESSION_SORTS } from './rows.js';
export type { SessionRecord, SessionRecorder, TurnPoint } from './types.js';
export type * from './phase-types.js';
export { NULL_PHASE_INDEX } from './phase-types.js';
export { createPhaseIndex, type PhaseDbSearch, type PhaseIndexHandle, type PhaseIndexOptions } from './phase-index.js';
export { createPhaseDbReader, type PhaseDbReader } from './phase-db-search.js';
export type { SessionUsage, UsageRecord } from './usage.js';
