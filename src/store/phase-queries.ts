/**
 * The phases table of the analytics file (migration v5): upserts of index entries, a session's
 * phases, and search across sessions through an FTS5 table over topic and summary, or, when this
 * SQLite has no FTS5, a LIKE scan ranked in JS (phase-search.ts) that matches the same phases.
 *
 * Invariants: statements are prepared once per connection; a phase is one row per (session_id,
 * phase_id), replaced on update, keeping the time it was first summarised; the full-text index is
 * kept in step by triggers, and exists only where FTS5 does: a file opened by a build without FTS5
 * loses its triggers (so writes still work) and a later build with FTS5 rebuilds the index.
 */
import type Database from 'better-sqlite3';
import { ftsExpression, queryTerms, rankEntries, TOPIC_WEIGHT, toHit } from './phase-search.js';
import type { PhaseEntry, PhaseSearchOptions, PhaseSearchResult } from './phase-types.js';

const TRIGGERS = ['phases_fts_added', 'phases_fts_removed', 'phases_fts_changed'];

const FTS_SQL = `
  CREATE VIRTUAL TABLE IF NOT EXISTS phases_fts USING fts5(
    topic, summary, content='phases', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
  CREATE TRIGGER IF NOT EXISTS phases_fts_added AFTER INSERT ON phases BEGIN
    INSERT INTO phases_fts (rowid, topic, summary) VALUES (NEW.id, NEW.topic, NEW.summary);
  END;
  CREATE TRIGGER IF NOT EXISTS phases_fts_removed AFTER DELETE ON phases BEGIN
    INSERT INTO phases_fts (phases_fts, rowid, topic, summary) VALUES ('delete', OLD.id, OLD.topic, OLD.summary);
  END;
  CREATE TRIGGER IF NOT EXISTS phases_fts_changed AFTER UPDATE OF topic, summary ON phases BEGIN
    INSERT INTO phases_fts (phases_fts, rowid, topic, summary) VALUES ('delete', OLD.id, OLD.topic, OLD.summary);
    INSERT INTO phases_fts (rowid, topic, summary) VALUES (NEW.id, NEW.topic, NEW.summary);
  END;
`;

const COLUMNS =
  'session_id, phase_id, message_from, message_to, turn_from, turn_to, topic, summary, tokens_before, tokens_after, recall_id, model, created_at, updates';

/** Whether this SQLite build has FTS5 (better-sqlite3 bundles it; a system SQLite may not). */
export function fts5Available(db: Database.Database): boolean {
  try {
    return Number(db.prepare("SELECT sqlite_compileoption_used('ENABLE_FTS5') AS f").pluck().get()) === 1;
  } catch {
    return false;
  }
}

function names(db: Database.Database, type: string): Set<string> {
  return new Set(db.prepare('SELECT name FROM sqlite_master WHERE type = ?').pluck().all(type) as string[]);
}

/** True when the file has the full-text table and every trigger that keeps it in step. */
export function hasPhaseSearch(db: Database.Database): boolean {
  const triggers = names(db, 'trigger');
  return names(db, 'table').has('phases_fts') && TRIGGERS.every((t) => triggers.has(t));
}

const NO_FTS = 'analytics: this SQLite has no FTS5; phase search scans the phases table with LIKE instead';

/**
 * Makes the full-text index match what this build can do (read-write opens, after migrating; the
 * one log line of a build without FTS5 comes from here).
 * Returns true when search uses FTS5. `useFts` false stands for a SQLite without FTS5.
 */
export function ensurePhaseSearch(db: Database.Database, useFts: boolean, log: (line: string) => void): boolean {
  const triggers = names(db, 'trigger');
  if (useFts ? hasPhaseSearch(db) : !TRIGGERS.some((t) => triggers.has(t))) {
    if (!useFts) log(NO_FTS);
    return useFts;
  }
  const step = db.transaction(() => {
    if (useFts) {
      db.exec(FTS_SQL);
      // Rows written while the triggers were missing: index everything afresh.
      db.exec("INSERT INTO phases_fts (phases_fts) VALUES ('rebuild')");
    } else {
      for (const t of TRIGGERS) db.exec(`DROP TRIGGER IF EXISTS ${t}`);
    }
  });
  step.immediate();
  if (!useFts) log(NO_FTS);
  return useFts;
}

type Row = Record<string, unknown>;

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'bigint' ? Number(v) : 0;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function toEntry(r: Row): PhaseEntry {
  return {
    session_id: str(r.session_id),
    phase_id: num(r.phase_id),
    message_from: num(r.message_from),
    message_to: num(r.message_to),
    turn_from: num(r.turn_from),
    turn_to: num(r.turn_to),
    topic: str(r.topic),
    summary: str(r.summary),
    tokens_before: num(r.tokens_before),
    tokens_after: num(r.tokens_after),
    recall_id: str(r.recall_id),
    model: str(r.model),
    created_at: num(r.created_at),
    updates: num(r.updates),
  };
}

/** Characters that are LIKE syntax, escaped with a backslash. */
function likePattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export class PhaseQueries {
  private readonly bySession: Database.Statement;
  private readonly one: Database.Statement;
  private readonly fts: { all: Database.Statement; session: Database.Statement } | null;
  private readonly like: { all: Database.Statement; session: Database.Statement };
  private readonly upsertMany: ((entries: readonly PhaseEntry[]) => void) | null;

  /** `fts`: search through phases_fts (it exists and this SQLite has FTS5). */
  constructor(
    db: Database.Database,
    readonly fts5: boolean,
    writable: boolean,
  ) {
    this.bySession = db.prepare(`SELECT ${COLUMNS} FROM phases WHERE session_id = ? ORDER BY phase_id`);
    this.one = db.prepare(`SELECT ${COLUMNS} FROM phases WHERE session_id = ? AND phase_id = ?`);
    const cols = COLUMNS.split(', ')
      .map((c) => `p.${c}`)
      .join(', ');
    const ftsSql = (where: string) => `SELECT ${cols} FROM phases_fts JOIN phases p ON p.id = phases_fts.rowid
      WHERE phases_fts MATCH @q${where} ORDER BY bm25(phases_fts, ${TOPIC_WEIGHT}.0, 1.0), p.created_at DESC, p.id LIMIT @limit`;
    this.fts = fts5 ? { all: db.prepare(ftsSql('')), session: db.prepare(ftsSql(' AND p.session_id = @s')) } : null;
    // One LIKE on the longest plain-ASCII word narrows the scan; the JS ranking checks every word.
    const likeSql = (where: string) => `SELECT ${COLUMNS} FROM phases
      WHERE (topic LIKE @t ESCAPE '\\' OR summary LIKE @t ESCAPE '\\')${where}`;
    this.like = { all: db.prepare(likeSql('')), session: db.prepare(likeSql(' AND session_id = @s')) };
    if (!writable) {
      this.upsertMany = null;
      return;
    }
    const upsert = db.prepare(`INSERT INTO phases (${COLUMNS}, recorded_at)
      VALUES (@session_id, @phase_id, @message_from, @message_to, @turn_from, @turn_to, @topic, @summary, @tokens_before,
        @tokens_after, @recall_id, @model, @created_at, @updates, @recorded_at)
      ON CONFLICT (session_id, phase_id) DO UPDATE SET message_from = excluded.message_from, message_to = excluded.message_to,
        turn_from = excluded.turn_from, turn_to = excluded.turn_to, topic = excluded.topic, summary = excluded.summary,
        tokens_before = excluded.tokens_before, tokens_after = excluded.tokens_after, recall_id = excluded.recall_id,
        model = excluded.model, created_at = MIN(phases.created_at, excluded.created_at), updates = excluded.updates,
        recorded_at = excluded.recorded_at`);
    const run = db.transaction((entries: readonly PhaseEntry[]) => {
      const now = Date.now();
      for (const e of entries) upsert.run({ ...e, recorded_at: now });
    });
    // IMMEDIATE: a busy file fails at once, before anything is written.
    this.upsertMany = (entries) => run.immediate(entries);
  }

  /** Writes the entries (cleaned already) in one transaction. Throws SQLite's errors. */
  upsert(entries: readonly PhaseEntry[]): void {
    if (!this.upsertMany) throw new Error('the phases table is open read-only');
    this.upsertMany(entries);
  }

  list(sessionId: string): PhaseEntry[] {
    return (this.bySession.all(sessionId) as Row[]).map(toEntry);
  }

  get(sessionId: string, phaseId: number): PhaseEntry | null {
    const row = this.one.get(sessionId, phaseId) as Row | undefined;
    return row ? toEntry(row) : null;
  }

  search(query: string, opts: PhaseSearchOptions): PhaseSearchResult {
    const terms = queryTerms(query);
    const limit = Math.max(1, Math.floor(opts.limit));
    if (terms.length === 0) return { hits: [], method: this.fts ? 'fts' : 'like' };
    if (this.fts) {
      const params = { q: ftsExpression(terms), limit, ...(opts.sessionId !== undefined ? { s: opts.sessionId } : {}) };
      const rows = (opts.sessionId !== undefined ? this.fts.session : this.fts.all).all(params) as Row[];
      return { hits: rows.map((r) => toHit(toEntry(r), terms)), method: 'fts' };
    }
    const ascii = terms.filter((t) => /^[\x20-\x7e]+$/.test(t)).sort((a, b) => b.length - a.length);
    const params = {
      t: ascii[0] === undefined ? '%' : likePattern(ascii[0]),
      ...(opts.sessionId !== undefined ? { s: opts.sessionId } : {}),
    };
    const stmt = opts.sessionId !== undefined ? this.like.session : this.like.all;
    const rows = stmt.iterate(params) as IterableIterator<Row>;
    const ranked = rankEntries(
      (function* () {
        for (const r of rows) yield toEntry(r);
      })(),
      terms,
      limit,
    );
    return { hits: ranked.map((e) => toHit(e, terms)), method: 'like' };
  }
}
