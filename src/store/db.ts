/**
 * Opens the analytics database (better-sqlite3, WAL, synchronous=NORMAL), migrates it, prepares
 * every statement, and records sessions.
 *
 * Invariants: recording a session replaces all of its rows in one transaction (never counted
 * twice); savings are clamped to 0..input on write (record.ts); the file and its parent are
 * private (0600 / 0700); a read-only open never creates a file; errors are thrown as StoreError
 * with SQLite's code, never swallowed here. Opening checks the file first (issue 11): a file that
 * is not a database throws SQLITE_NOTADB, a damaged one (SQLite's quick_check, on files up to
 * CHECK_MAX_BYTES) throws SQLITE_CORRUPT, so no reader answers from a damaged file unawares.
 */
import { accessSync, chmodSync, closeSync, constants as fsConstants, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { classify, StoreError } from './errors.js';
import { CHECK_MAX_BYTES, fileSize, headerProblem } from './integrity.js';
import { LATEST_VERSION, migrate, schemaVersion } from './migrations.js';
import { ensurePhaseSearch, fts5Available, hasPhaseSearch, PhaseQueries } from './phase-queries.js';
import { cleanPhase, phaseProblem } from './phase-record.js';
import type { PhaseEntry, PhaseSearchOptions, PhaseSearchResult } from './phase-types.js';
import { Queries, type StoreQueries } from './queries.js';
import { guardShm, refusesOpen } from './shm-guard.js';
import { cleanRecord, type CleanRecord } from './record.js';
import type { SessionRecord } from './types.js';
import { cleanUsage, prepareUsageWrite, USAGE_RETENTION_SQL, usageProblem, type UsageRecord } from './usage.js';
import type { HostPrice } from '../core/context-engine.js';

/** A model's price as the host reported it, and when. */
export interface HostPriceRow {
  model: string;
  price: HostPrice;
  at: number;
}
import { errorText } from '../core/errors.js';

const DAY_MS = 86_400_000;

export interface StoreOptions {
  /** Sessions that ended more than this many days ago are deleted at open and by applyRetention(). */
  retentionDays?: number;
  /** Open an existing file for reading only; a missing file is an error (HMC_NO_DB), never created. */
  readonly?: boolean;
  log?: (line: string) => void;
  /** How long SQLite waits for a lock before SQLITE_BUSY (default 2000; the recorder uses 0). */
  busyTimeoutMs?: number;
  /** The clock for windows and retention (tests pin it). */
  now?: () => number;
  /** Run SQLite's quick_check at open on files up to CHECK_MAX_BYTES (default true). */
  check?: boolean;
  /**
   * Search phases with FTS5 when this SQLite has it (default true). False behaves as a SQLite
   * without FTS5 (a LIKE scan; a read-write open drops the full-text triggers): tests use it.
   */
  fts?: boolean;
}

/** The store: its queries (queries.ts, each a method here as it is there), and the writes. */
export interface AnalyticsStore extends StoreQueries {
  readonly path: string;
  /** Replaces everything recorded for the session, in one transaction. Throws on failure. */
  recordSession(rec: SessionRecord): void;
  /** Several sessions in one transaction (the recorder's batches). */
  recordSessions(recs: readonly SessionRecord[]): void;
  /** Adds or replaces phases of the session index (by session_id and phase_id), in one transaction. */
  recordPhases(entries: readonly PhaseEntry[]): void;
  /** Adds or replaces provider usage rows (by session_id and seq), in one transaction. */
  recordUsage(rows: readonly UsageRecord[]): void;
  /** Keeps the host's prices of models (Hermes' pricing data), replacing older ones. */
  recordHostPrices(prices: readonly HostPriceRow[]): void;
  /** A session's phases, oldest first. */
  phases(sessionId: string): PhaseEntry[];
  phase(sessionId: string, phaseId: number): PhaseEntry | null;
  /** Phases matching every word of `query` (FTS5, else a LIKE scan), best first. */
  searchPhases(query: string, opts: PhaseSearchOptions): PhaseSearchResult;
  /**
   * Deletes sessions that ended before now - retentionDays, and the phases of sessions no longer
   * recorded that were summarised before then; returns rows deleted (all tables).
   */
  applyRetention(now?: number): number;
  close(): void;
}

/**
 * Creates the parent directory (0700) and an empty file (0600) so SQLite never makes it 0644, and
 * gives the file and its `-wal` and `-shm` back their 0600. SQLite creates those two with the
 * database's mode: opened while someone had made it 0444, it left a 0444 `-shm` behind, and every
 * later writer failed ("attempt to write a readonly database") until someone deleted it (issue 19,
 * finding 5). A `-shm` of another user's that we cannot change is reported by name: deleting it
 * while its owner's process maps it would give two processes two different shared memories.
 */
function prepareFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (file !== path && !existsSync(file)) continue;
    try {
      chmodSync(file, 0o600);
    } catch {
      // Not our file to change (another user's); checked below.
    }
  }
  const shm = `${path}-shm`;
  if (existsSync(shm) && !writable(shm)) {
    throw new StoreError(
      'SQLITE_READONLY',
      `${shm} is not writable by this user and not ours to change; delete it while no HMC process runs`,
    );
  }
}

function writable(file: string): boolean {
  try {
    accessSync(file, fsConstants.W_OK);
    return true;
  } catch {
    return false;
  }
}

export function openStore(path: string, opts: StoreOptions = {}): AnalyticsStore {
  const memory = path === ':memory:';
  const readonly = opts.readonly === true && !memory;
  const log = opts.log ?? (() => {});
  const clock = opts.now ?? Date.now;
  if (readonly && !existsSync(path)) {
    throw new StoreError('HMC_NO_DB', `no analytics database at ${path}`);
  }
  const header = memory ? null : headerProblem(path);
  if (header) throw new StoreError('SQLITE_NOTADB', `analytics database ${path}: ${header}`);
  const refused = memory ? null : refusesOpen(path);
  if (refused) throw new StoreError('HMC_SHM_UNWRITABLE', `analytics database ${path}: ${refused}`);
  let db: Database.Database;
  try {
    if (!memory && !readonly) prepareFile(path);
    db = new Database(path, { readonly, fileMustExist: readonly });
  } catch (err) {
    throw StoreError.wrap(err, `cannot open analytics database ${path}`);
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 2000))}`);
    if (!memory && opts.check !== false && fileSize(path) > 0 && fileSize(path) <= CHECK_MAX_BYTES)
      quickCheck(db, path);
    let fts = false;
    if (readonly) {
      const version = schemaVersion(db);
      if (version < LATEST_VERSION) {
        throw new StoreError(
          'HMC_SCHEMA_OLD',
          `analytics database ${path} has schema v${version} (current v${LATEST_VERSION}); open it read-write once to migrate`,
        );
      }
      if (version > LATEST_VERSION) {
        throw new StoreError(
          'HMC_SCHEMA_NEWER',
          `analytics database ${path} has schema v${version}, newer than this HMC (v${LATEST_VERSION})`,
        );
      }
      fts = opts.fts !== false && fts5Available(db) && hasPhaseSearch(db);
    } else {
      if (!memory) {
        const mode = String(db.pragma('journal_mode = WAL', { simple: true })).toLowerCase();
        if (mode !== 'wal') log(`analytics: journal_mode is "${mode}", not "wal"; concurrent readers may wait`);
      }
      db.pragma('synchronous = NORMAL');
      migrate(db);
      try {
        fts = ensurePhaseSearch(db, opts.fts !== false && fts5Available(db), log);
      } catch (err) {
        throw StoreError.wrap(err, `analytics database ${path}: the phase search index could not be set up`);
      }
    }
    const store = new SqliteStore(path, db, opts.retentionDays, log, clock, readonly, fts);
    return memory ? store : guardShm(store, path);
  } catch (err) {
    db.close();
    throw err instanceof StoreError ? err : StoreError.wrap(err, `cannot open analytics database ${path}`);
  }
}

/** SQLite's quick_check on a connection just opened (its page cache is empty: it reads the disk). */
function quickCheck(db: Database.Database, path: string): void {
  let rows: Record<string, unknown>[];
  try {
    rows = db.pragma('quick_check(5)') as Record<string, unknown>[];
  } catch (err) {
    if (classify(err) === 'busy') return; // a writer holds the file: no verdict, the next open checks
    if (classify(err) === 'corrupt') {
      throw new StoreError(
        String((err as { code?: unknown }).code),
        `analytics database ${path} is damaged (SQLite: ${errorText(err)})`,
        { cause: err },
      );
    }
    throw StoreError.wrap(err, `analytics database ${path} could not be checked`);
  }
  const problems = rows.map((r) => String(Object.values(r)[0] ?? '')).filter((r) => r !== 'ok');
  if (problems.length > 0) {
    throw new StoreError(
      'SQLITE_CORRUPT',
      `analytics database ${path} is damaged (SQLite's quick_check: ${problems.join('; ').slice(0, 300)})`,
    );
  }
}

class SqliteStore extends Queries implements AnalyticsStore {
  private readonly phaseQ: PhaseQueries;
  private readonly write: ((recs: readonly CleanRecord[]) => void) | null;
  private readonly writeUsage: ((rows: readonly UsageRecord[]) => void) | null;
  private readonly retention: ((cutoff: number) => number) | null;

  constructor(
    readonly path: string,
    private readonly db: Database.Database,
    private readonly retentionDays: number | undefined,
    private readonly log: (line: string) => void,
    clock: () => number,
    readonly: boolean,
    fts: boolean,
  ) {
    super(db, clock);
    this.phaseQ = new PhaseQueries(db, fts, !readonly);
    this.write = readonly ? null : prepareWrite(db);
    this.writeUsage = readonly ? null : prepareUsageWrite(db);
    this.retention = readonly ? null : prepareRetention(db);
    if (!readonly && retentionDays !== undefined) {
      try {
        this.applyRetention();
      } catch (err) {
        // Another writer holds the lock: retention runs again on the owner's timer; opening must not fail.
        if (classify(err) !== 'busy') throw err;
        log('analytics: retention skipped at open (database busy); it runs again later');
      }
    }
  }

  recordSession(rec: SessionRecord): void {
    this.recordSessions([rec]);
  }

  recordSessions(recs: readonly SessionRecord[]): void {
    if (!this.write) throw new StoreError('HMC_READONLY', `analytics database ${this.path} is open read-only`);
    const clean = recs.map(cleanRecord); // bad records throw before anything is written
    this.write(clean);
  }

  recordPhases(entries: readonly PhaseEntry[]): void {
    if (!this.write) throw new StoreError('HMC_READONLY', `analytics database ${this.path} is open read-only`);
    for (const e of entries) {
      const problem = phaseProblem(e);
      if (problem) throw new StoreError('HMC_BAD_PHASE', `phase not recorded: ${problem}`);
    }
    try {
      this.phaseQ.upsert(entries.map(cleanPhase));
    } catch (err) {
      throw StoreError.wrap(err, 'analytics write of phases failed');
    }
  }

  recordUsage(rows: readonly UsageRecord[]): void {
    if (!this.writeUsage) throw new StoreError('HMC_READONLY', `analytics database ${this.path} is open read-only`);
    for (const r of rows) {
      const problem = usageProblem(r);
      if (problem) throw new StoreError('HMC_BAD_USAGE', `usage not recorded: ${problem}`);
    }
    try {
      this.writeUsage(rows.map(cleanUsage));
    } catch (err) {
      throw StoreError.wrap(err, 'analytics write of provider usage failed');
    }
  }

  recordHostPrices(prices: readonly HostPriceRow[]): void {
    if (!this.writeUsage) throw new StoreError('HMC_READONLY', `analytics database ${this.path} is open read-only`);
    try {
      const put = this.db.prepare(`INSERT INTO host_prices (model, input, output, cache_read, cache_write, source, at)
        VALUES (@model, @input, @output, @cache_read, @cache_write, @source, @at) ON CONFLICT (model) DO UPDATE SET input = excluded.input,
        output = excluded.output, cache_read = excluded.cache_read, cache_write = excluded.cache_write, source = excluded.source, at = excluded.at`);
      this.db
        .transaction(() => {
          for (const p of prices)
            put.run({ ...p.price, model: p.model.slice(0, 200), source: p.price.source.slice(0, 100), at: p.at });
        })
        .immediate();
    } catch (err) {
      throw StoreError.wrap(err, 'analytics write of host prices failed');
    }
  }

  phases(sessionId: string): PhaseEntry[] {
    return this.phaseQ.list(sessionId);
  }

  phase(sessionId: string, phaseId: number): PhaseEntry | null {
    return this.phaseQ.get(sessionId, phaseId);
  }

  searchPhases(query: string, opts: PhaseSearchOptions): PhaseSearchResult {
    return this.phaseQ.search(query, opts);
  }

  applyRetention(now: number = this.clock()): number {
    if (!this.retention || this.retentionDays === undefined) return 0;
    const days = Math.max(1, Math.floor(this.retentionDays));
    const deleted = this.retention(now - days * DAY_MS);
    if (deleted > 0)
      this.log(
        `analytics: retention (${days} ${days === 1 ? 'day' : 'days'}) deleted ${deleted} ${deleted === 1 ? 'row' : 'rows'}`,
      );
    return deleted;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function prepareWrite(db: Database.Database): (recs: readonly CleanRecord[]) => void {
  const deletes = ['session_strategy', 'session_tool', 'session_turn', 'session_output'].map((t) =>
    db.prepare(`DELETE FROM ${t} WHERE session_id = ?`),
  );
  const upsert = db.prepare(`INSERT INTO sessions (id, project_path, platform, model, started_at, ended_at, turns,
      tool_calls, input_raw, input_hmc, saved, context_peak, recorded_at, model_calls, context_tokens, context_raw,
      cached_raw, cached_hmc, plain_raw, plain_hmc, recalls, rereads, elided, owner)
    VALUES (@id, @project_path, @platform, @model, @started_at, @ended_at, @turns, @tool_calls, @input_raw,
      @input_hmc, @saved, @context_peak, @recorded_at, @model_calls, @context_tokens, @context_raw, @cached_raw,
      @cached_hmc, @plain_raw, @plain_hmc, @recalls, @rereads, @elided, @owner)
    ON CONFLICT (id) DO UPDATE SET project_path = excluded.project_path, platform = excluded.platform, owner = excluded.owner,
      model = excluded.model, started_at = excluded.started_at, ended_at = excluded.ended_at,
      turns = excluded.turns, tool_calls = excluded.tool_calls, input_raw = excluded.input_raw,
      input_hmc = excluded.input_hmc, saved = excluded.saved, context_peak = excluded.context_peak,
      recorded_at = excluded.recorded_at, model_calls = excluded.model_calls, context_tokens = excluded.context_tokens,
      context_raw = excluded.context_raw, cached_raw = excluded.cached_raw, cached_hmc = excluded.cached_hmc,
      plain_raw = excluded.plain_raw, plain_hmc = excluded.plain_hmc,
      recalls = excluded.recalls, rereads = excluded.rereads, elided = excluded.elided`);
  const strategy = db.prepare('INSERT INTO session_strategy (session_id, strategy, saved) VALUES (?, ?, ?)');
  const tool = db.prepare('INSERT INTO session_tool (session_id, tool, saved) VALUES (?, ?, ?)');
  const turn = db.prepare(`INSERT INTO session_turn (session_id, turn, time, context_tokens, context_percent,
    input_raw, input_hmc, tool_calls, context_raw, model_calls, cached_raw, cached_hmc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const output =
    db.prepare(`INSERT INTO session_output (session_id, tool, program, kind, outputs, tokens_raw, tokens_sent)
    VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const run = db.transaction((recs: readonly CleanRecord[]) => {
    const now = Date.now();
    for (const r of recs) {
      // Children first: the totals triggers subtract them under the project they were added with.
      for (const d of deletes) d.run(r.id);
      upsert.run({
        id: r.id,
        project_path: r.project_path,
        platform: r.platform,
        owner: r.owner,
        model: r.model,
        started_at: r.started_at,
        ended_at: r.ended_at,
        turns: r.turns,
        tool_calls: r.tool_calls,
        input_raw: r.input_raw,
        input_hmc: r.input_hmc,
        saved: r.saved,
        context_peak: r.context_peak,
        recorded_at: now,
        model_calls: r.model_calls,
        context_tokens: r.context_tokens,
        context_raw: r.context_raw,
        cached_raw: r.cached_raw,
        cached_hmc: r.cached_hmc,
        plain_raw: r.plain_raw,
        plain_hmc: r.plain_hmc,
        recalls: r.recalls,
        rereads: r.rereads,
        elided: r.elided,
      });
      for (const [name, saved] of r.strategies) strategy.run(r.id, name, saved);
      for (const [name, saved] of r.tools) tool.run(r.id, name, saved);
      for (const p of r.timeline) {
        turn.run(
          r.id,
          p.turn,
          p.time,
          p.context_tokens,
          p.context_percent,
          p.input_raw,
          p.input_hmc,
          p.tool_calls,
          p.context_raw_tokens,
          p.model_calls,
          p.cached_raw,
          p.cached_hmc,
        );
      }
      for (const o of r.outputs) output.run(r.id, o.tool, o.program, o.kind, o.outputs, o.tokens_raw, o.tokens_sent);
    }
  });
  // IMMEDIATE: take the write lock up front so a busy database fails fast instead of mid-way.
  return (recs) => {
    try {
      run.immediate(recs);
    } catch (err) {
      throw StoreError.wrap(err, 'analytics write failed');
    }
  };
}

function prepareRetention(db: Database.Database): (cutoff: number) => number {
  // A session without an end is idle (resumable: issue 17, finding 4): its last turn dates it.
  const old = `SELECT id FROM sessions WHERE started_at < @cutoff AND COALESCE(ended_at,
    (SELECT MAX(time) FROM session_turn t WHERE t.session_id = sessions.id), started_at) < @cutoff`;
  const children = ['session_strategy', 'session_tool', 'session_turn', 'session_output'].map((t) =>
    db.prepare(`DELETE FROM ${t} WHERE session_id IN (${old})`),
  );
  const parents = db.prepare(`DELETE FROM sessions WHERE id IN (${old})`);
  // A phase goes with its session; one whose session was never recorded, once it is old enough.
  const phases = db.prepare(
    'DELETE FROM phases WHERE created_at < @cutoff AND session_id NOT IN (SELECT id FROM sessions)',
  );
  const usage = db.prepare(USAGE_RETENTION_SQL);
  const tidy = [
    db.prepare('DELETE FROM strategy_totals WHERE saved = 0'),
    db.prepare('DELETE FROM tool_totals WHERE saved = 0'),
  ];
  const run = db.transaction((cutoff: number) => {
    let deleted = 0;
    for (const c of children) deleted += c.run({ cutoff }).changes;
    deleted += parents.run({ cutoff }).changes;
    deleted += phases.run({ cutoff }).changes;
    deleted += usage.run({ cutoff }).changes;
    for (const t of tidy) t.run();
    return deleted;
  });
  return (cutoff) => {
    try {
      return run.immediate(cutoff);
    } catch (err) {
      throw StoreError.wrap(err, 'analytics retention failed');
    }
  };
}
