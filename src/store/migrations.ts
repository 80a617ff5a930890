/**
 * The analytics schema as numbered migrations. `PRAGMA user_version` holds the version reached;
 * each migration runs in its own IMMEDIATE transaction together with the version bump, and
 * re-checks the version inside it, so two processes opening the same file at once migrate it
 * exactly once.
 *
 * Invariant: never edit a shipped migration; add the next number. A failure names the migration
 * and leaves the file at the previous version.
 */
import type Database from 'better-sqlite3';
import { StoreError } from './errors.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions and savings per strategy',
    sql: `
      CREATE TABLE sessions (
        id           TEXT PRIMARY KEY,
        project_path TEXT NOT NULL DEFAULT '',
        platform     TEXT NOT NULL DEFAULT '',
        model        TEXT NOT NULL DEFAULT '',
        started_at   INTEGER NOT NULL,
        ended_at     INTEGER,
        turns        INTEGER NOT NULL DEFAULT 0,
        tool_calls   INTEGER NOT NULL DEFAULT 0,
        input_raw    INTEGER NOT NULL DEFAULT 0,
        input_hmc    INTEGER NOT NULL DEFAULT 0,
        saved        INTEGER NOT NULL DEFAULT 0 CHECK (saved >= 0 AND saved <= input_raw),
        context_peak INTEGER NOT NULL DEFAULT 0,
        recorded_at  INTEGER NOT NULL
      );
      CREATE INDEX sessions_started ON sessions (started_at);
      CREATE INDEX sessions_project ON sessions (project_path, started_at);
      CREATE TABLE session_strategy (
        session_id TEXT NOT NULL,
        strategy   TEXT NOT NULL,
        saved      INTEGER NOT NULL CHECK (saved >= 0),
        PRIMARY KEY (session_id, strategy)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    name: 'savings per tool and the per-turn timeline',
    sql: `
      CREATE TABLE session_tool (
        session_id TEXT NOT NULL,
        tool       TEXT NOT NULL,
        saved      INTEGER NOT NULL CHECK (saved >= 0),
        PRIMARY KEY (session_id, tool)
      ) WITHOUT ROWID;
      CREATE TABLE session_turn (
        session_id      TEXT NOT NULL,
        turn            INTEGER NOT NULL,
        time            INTEGER NOT NULL,
        context_tokens  INTEGER NOT NULL,
        context_percent REAL NOT NULL,
        input_raw       INTEGER NOT NULL,
        input_hmc       INTEGER NOT NULL,
        tool_calls      INTEGER NOT NULL,
        PRIMARY KEY (session_id, turn)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 3,
    name: 'running totals per project and strategy / tool (kept by triggers)',
    // Children are deleted before their session row is updated and inserted after it, so the
    // project looked up here is the one the row was counted under.
    sql: `
      CREATE TABLE strategy_totals (
        project_path TEXT NOT NULL,
        strategy     TEXT NOT NULL,
        saved        INTEGER NOT NULL,
        PRIMARY KEY (project_path, strategy)
      ) WITHOUT ROWID;
      CREATE TABLE tool_totals (
        project_path TEXT NOT NULL,
        tool         TEXT NOT NULL,
        saved        INTEGER NOT NULL,
        PRIMARY KEY (project_path, tool)
      ) WITHOUT ROWID;
      INSERT INTO strategy_totals (project_path, strategy, saved)
        SELECT s.project_path, x.strategy, SUM(x.saved)
        FROM session_strategy x JOIN sessions s ON s.id = x.session_id GROUP BY 1, 2;
      INSERT INTO tool_totals (project_path, tool, saved)
        SELECT s.project_path, x.tool, SUM(x.saved)
        FROM session_tool x JOIN sessions s ON s.id = x.session_id GROUP BY 1, 2;
      CREATE TRIGGER session_strategy_added AFTER INSERT ON session_strategy BEGIN
        INSERT INTO strategy_totals (project_path, strategy, saved)
          VALUES (COALESCE((SELECT project_path FROM sessions WHERE id = NEW.session_id), ''), NEW.strategy, NEW.saved)
          ON CONFLICT (project_path, strategy) DO UPDATE SET saved = saved + excluded.saved;
      END;
      CREATE TRIGGER session_strategy_removed AFTER DELETE ON session_strategy BEGIN
        UPDATE strategy_totals SET saved = saved - OLD.saved
          WHERE project_path = COALESCE((SELECT project_path FROM sessions WHERE id = OLD.session_id), '')
            AND strategy = OLD.strategy;
      END;
      CREATE TRIGGER session_tool_added AFTER INSERT ON session_tool BEGIN
        INSERT INTO tool_totals (project_path, tool, saved)
          VALUES (COALESCE((SELECT project_path FROM sessions WHERE id = NEW.session_id), ''), NEW.tool, NEW.saved)
          ON CONFLICT (project_path, tool) DO UPDATE SET saved = saved + excluded.saved;
      END;
      CREATE TRIGGER session_tool_removed AFTER DELETE ON session_tool BEGIN
        UPDATE tool_totals SET saved = saved - OLD.saved
          WHERE project_path = COALESCE((SELECT project_path FROM sessions WHERE id = OLD.session_id), '')
            AND tool = OLD.tool;
      END;
    `,
  },
  {
    version: 4,
    name: 'indexes for a year of history (covering day windows, every sessions-table sort)',
    // Each sort index ends with (started_at, id), the tie-breakers, so a page is an index walk.
    sql: `
      DROP INDEX sessions_started;
      CREATE INDEX sessions_window ON sessions (started_at, saved, input_raw, project_path);
      CREATE INDEX sessions_by_saved ON sessions (saved, started_at, id);
      CREATE INDEX sessions_by_input ON sessions (input_raw, started_at, id);
      CREATE INDEX sessions_by_turns ON sessions (turns, started_at, id);
      CREATE INDEX sessions_by_tool_calls ON sessions (tool_calls, started_at, id);
      CREATE INDEX sessions_by_model ON sessions (model, started_at, id);
      CREATE INDEX sessions_by_pct ON sessions ((CASE WHEN input_raw > 0 THEN CAST(saved AS REAL) / input_raw ELSE 0 END), started_at, id);
      CREATE INDEX sessions_by_project ON sessions (project_path, started_at, id, saved, input_raw);
      DROP INDEX sessions_project;
    `,
  },
  {
    version: 5,
    name: 'the session index of summarised phases (layer 1)',
    // An INTEGER PRIMARY KEY so the full-text index's rowids survive VACUUM; the phase key is
    // (session_id, phase_id). The FTS5 table over topic and summary is made by phase-queries.ts
    // (ensurePhaseSearch) when this SQLite has FTS5, so a build without it can still open the file.
    sql: `
      CREATE TABLE phases (
        id            INTEGER PRIMARY KEY,
        session_id    TEXT NOT NULL,
        phase_id      INTEGER NOT NULL CHECK (phase_id >= 1),
        message_from  INTEGER NOT NULL,
        message_to    INTEGER NOT NULL,
        turn_from     INTEGER NOT NULL,
        turn_to       INTEGER NOT NULL,
        topic         TEXT NOT NULL,
        summary       TEXT NOT NULL,
        tokens_before INTEGER NOT NULL CHECK (tokens_before >= 0),
        tokens_after  INTEGER NOT NULL CHECK (tokens_after >= 0),
        recall_id     TEXT NOT NULL,
        model         TEXT NOT NULL DEFAULT '',
        created_at    INTEGER NOT NULL,
        updates       INTEGER NOT NULL DEFAULT 0,
        recorded_at   INTEGER NOT NULL,
        UNIQUE (session_id, phase_id)
      );
      CREATE INDEX phases_created ON phases (created_at);
    `,
  },
  {
    version: 6,
    name: 'the provider usage of each model call (issue 16: cache reads and writes, per model)',
    // One row per response a context-engine host reported (usage.ts); HMC's own figures for the
    // call are null when HMC did not count it. Kept apart from `sessions`: a session's record is
    // replaced whole at every save, these rows only ever grow.
    sql: `
      CREATE TABLE provider_usage (
        id                 INTEGER PRIMARY KEY,
        session_id         TEXT NOT NULL,
        seq                INTEGER NOT NULL CHECK (seq >= 1),
        at                 INTEGER NOT NULL,
        model              TEXT NOT NULL DEFAULT '',
        provider           TEXT NOT NULL DEFAULT '',
        prompt_tokens      INTEGER NOT NULL CHECK (prompt_tokens >= 0),
        completion_tokens  INTEGER NOT NULL CHECK (completion_tokens >= 0),
        cache_read_tokens  INTEGER NOT NULL CHECK (cache_read_tokens >= 0 AND cache_read_tokens <= prompt_tokens),
        cache_write_tokens INTEGER NOT NULL CHECK (cache_write_tokens >= 0),
        reasoning_tokens   INTEGER NOT NULL CHECK (reasoning_tokens >= 0),
        hmc_input          INTEGER CHECK (hmc_input >= 0),
        raw_input          INTEGER CHECK (raw_input >= 0),
        hmc_cached         INTEGER CHECK (hmc_cached >= 0),
        UNIQUE (session_id, seq)
      );
      CREATE INDEX provider_usage_at ON provider_usage (at);
    `,
  },
  {
    version: 7,
    name: 'one meaning per number: context and model calls per session and turn, the cache model, tool outputs, recalls and re-reads',
    // Issue 17, findings 3 and 7 (docs/glossary.md). Columns added with defaults: a session recorded
    // before reads 0 model calls and no cache model (priced as all written, docs/analytics.md).
    sql: `
      ALTER TABLE sessions ADD COLUMN model_calls INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN context_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN context_raw INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN cached_raw INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN cached_hmc INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN recalls INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN rereads INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN elided INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE session_turn ADD COLUMN context_raw INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE session_turn ADD COLUMN model_calls INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE session_output (
        session_id  TEXT NOT NULL,
        tool        TEXT NOT NULL,
        program     TEXT NOT NULL DEFAULT '',
        kind        TEXT NOT NULL DEFAULT '',
        outputs     INTEGER NOT NULL CHECK (outputs >= 0),
        tokens_raw  INTEGER NOT NULL CHECK (tokens_raw >= 0),
        tokens_sent INTEGER NOT NULL CHECK (tokens_sent >= 0 AND tokens_sent <= tokens_raw),
        PRIMARY KEY (session_id, tool, program)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 8,
    name: 'whose each session is (issue 26, finding 5: a gateway user sees only their own sessions)',
    // The owner key of engine/session/owner.ts: `platform:user` for a gateway user, '' for the machine's own.
    // Rows recorded before have '' (the machine's own): a gateway user never sees them, the machine's
    // owner (dashboard, terminal, a CLI session) sees every row as before (docs/analytics.md).
    sql: `
      ALTER TABLE sessions ADD COLUMN owner TEXT NOT NULL DEFAULT '';
      CREATE INDEX sessions_by_owner ON sessions (owner, started_at);
    `,
  },
  {
    version: 9,
    name: 'money with the prompt cache (issue 24): the cache model per turn, input without a cache model, provider usage matched to calls',
    // Sessions recorded before never filled cached_raw/cached_hmc: their input had no cache model,
    // so it is marked plain (priced as plain input on both sides), never guessed into cache writes.
    // A usage row says which call it is (the host's ids), whether HMC saw that call (`seen` 0: an
    // auxiliary call, a subagent's, the summariser's: never in a session's savings), HMC's model of
    // the raw request's cache, and the cache break the provider's figures show (its cause).
    sql: `
      ALTER TABLE sessions ADD COLUMN plain_raw INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sessions ADD COLUMN plain_hmc INTEGER NOT NULL DEFAULT 0;
      UPDATE sessions SET plain_raw = input_raw, plain_hmc = input_hmc WHERE cached_raw = 0 AND cached_hmc = 0;
      ALTER TABLE session_turn ADD COLUMN cached_raw INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE session_turn ADD COLUMN cached_hmc INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE provider_usage ADD COLUMN call_id TEXT NOT NULL DEFAULT '';
      ALTER TABLE provider_usage ADD COLUMN turn INTEGER;
      ALTER TABLE provider_usage ADD COLUMN seen INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE provider_usage ADD COLUMN source TEXT NOT NULL DEFAULT 'engine';
      ALTER TABLE provider_usage ADD COLUMN raw_cached INTEGER;
      ALTER TABLE provider_usage ADD COLUMN break_tokens INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE provider_usage ADD COLUMN break_cause TEXT NOT NULL DEFAULT '';
      CREATE TABLE host_prices (
        model       TEXT PRIMARY KEY,
        input       REAL NOT NULL CHECK (input >= 0),
        output      REAL NOT NULL CHECK (output >= 0),
        cache_read  REAL NOT NULL CHECK (cache_read >= 0),
        cache_write REAL NOT NULL CHECK (cache_write >= 0),
        source      TEXT NOT NULL DEFAULT '',
        at          INTEGER NOT NULL
      ) WITHOUT ROWID;
    `,
  },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export function schemaVersion(db: Database.Database): number {
  return Number(db.pragma('user_version', { simple: true }));
}

/**
 * Brings the file up to `target` (default: the latest). Returns the version reached.
 * Throws a StoreError naming the failed migration, or when the file is newer than this code.
 */
export function migrate(db: Database.Database, target: number = LATEST_VERSION): number {
  const found = schemaVersion(db);
  if (found > LATEST_VERSION) {
    throw new StoreError(
      'HMC_SCHEMA_NEWER',
      `analytics database schema v${found} is newer than this HMC understands (v${LATEST_VERSION}); upgrade HMC`,
    );
  }
  for (const m of MIGRATIONS) {
    if (m.version > target) break;
    if (found >= m.version) continue;
    const step = db.transaction(() => {
      if (schemaVersion(db) >= m.version) return; // another process got here first
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    });
    try {
      step.immediate();
    } catch (err) {
      throw StoreError.wrap(err, `analytics migration v${m.version} (${m.name}) failed`);
    }
  }
  return schemaVersion(db);
}
