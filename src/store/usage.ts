/**
 * The provider's usage of each model call (issue 16): what a host that lets HMC be its context
 * engine reports after every response (prompt, completion, cache read and write tokens), beside
 * HMC's own figures for the same call (its input with and without HMC, and its model of what the
 * provider's cache could read). Kept per call with the model's name, so cost can be computed later
 * with each model's prices; a session's totals are sums over its calls.
 *
 * Invariants: a row is keyed by (session_id, seq) and recording it again replaces it, never adds a
 * second; figures are whole and 0 or more, and a cache figure never exceeds the prompt; HMC's
 * figures are null when HMC did not count that call (never a guess).
 */
import type Database from 'better-sqlite3';

/** One model call as the provider reported it, with HMC's figures for it. */
export interface UsageRecord {
  session_id: string;
  /** 1, 2, … per session, in the order the responses came. */
  seq: number;
  /** When the response was recorded (ms since the epoch). */
  at: number;
  model: string;
  provider: string;
  prompt_tokens: number;
  completion_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  /** HMC's count (o200k) of the request as sent, and as it would have been without HMC. */
  hmc_input: number | null;
  raw_input: number | null;
  /** HMC's model of the cache: the tokens of that request the previous one had sent unchanged. */
  hmc_cached: number | null;
  /** The same model for the raw request (what HMC was given). Null when HMC did not model that call. */
  raw_cached?: number | null;
  /** The host's id of the call ('' when it gave none) and HMC's turn of it (null: a call HMC never saw). */
  call_id?: string;
  turn?: number | null;
  /**
   * HMC saw this call (its own record of the request is matched). False: a call HMC never saw (an
   * auxiliary call, a subagent's, the summariser's, a request the bridge left raw): never in a session's savings.
   */
  seen?: boolean;
  /** `hook` (post_api_request) or `engine` (the context engine's update_from_response). */
  source?: 'hook' | 'engine';
  /** A cache break the provider's figures show: the previous request's prompt tokens it did not read, and why. */
  break_tokens?: number;
  break_cause?: BreakCause | '';
}

/** Who broke the cache (docs/glossary.md "cache break"): an HMC pass, the host itself, the cache's lifetime, or nobody knows. */
export type BreakCause = 'hmc' | 'hermes' | 'ttl' | 'unknown';

/** A session's provider usage: its totals and its calls, oldest first. */
export interface SessionUsage {
  session_id: string;
  totals: {
    calls: number;
    prompt_tokens: number;
    completion_tokens: number;
    cache_read_tokens: number;
    cache_write_tokens: number;
    reasoning_tokens: number;
    /** Sums over the calls HMC counted (`hmc_calls` of them). */
    hmc_calls: number;
    hmc_input: number;
    hmc_cached: number;
    /** Calls HMC never saw (recorded apart, never in the session's savings), and cache breaks the provider's figures show. */
    unseen_calls: number;
    breaks: number;
  };
  /** The models that answered, with their call counts (most first). */
  models: { model: string; calls: number }[];
  calls: StoredUsage[];
}

/** A call as stored: every field present. */
export type StoredUsage = Required<Omit<UsageRecord, 'session_id'>>;

const COUNTS = [
  'seq',
  'at',
  'prompt_tokens',
  'completion_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
] as const;
const OPTIONAL = ['hmc_input', 'raw_input', 'hmc_cached'] as const;
/** The most calls one session's answer lists (the latest ones); totals cover them all. */
export const MAX_USAGE_CALLS = 5000;

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Why `row` cannot be recorded (a sentence naming the field), or null when it can. */
export function usageProblem(row: UsageRecord): string | null {
  if (typeof row.session_id !== 'string' || row.session_id === '') return 'session_id must be a non-empty string';
  if (typeof row.model !== 'string' || typeof row.provider !== 'string') return 'model and provider must be strings';
  for (const key of COUNTS)
    if (!isCount(row[key]))
      return `${key} must be a whole number of 0 or more, got ${JSON.stringify(row[key]) ?? 'nothing'}`;
  if (row.seq === 0) return 'seq must be 1 or more';
  for (const key of OPTIONAL)
    if (row[key] !== null && !isCount(row[key])) return `${key} must be a whole number of 0 or more, or null`;
  for (const key of ['raw_cached', 'turn'] as const)
    if (row[key] !== undefined && row[key] !== null && !isCount(row[key]))
      return `${key} must be a whole number of 0 or more, or null`;
  if (row.break_tokens !== undefined && !isCount(row.break_tokens))
    return 'break_tokens must be a whole number of 0 or more';
  return null;
}

/** The row as written: cache figures within the prompt (a provider may count them apart: never above it). */
export function cleanUsage(row: UsageRecord): UsageRecord {
  const read = Math.min(row.cache_read_tokens, row.prompt_tokens);
  return {
    session_id: row.session_id,
    seq: row.seq,
    at: row.at,
    model: row.model.slice(0, 200),
    provider: row.provider.slice(0, 200),
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    cache_read_tokens: read,
    cache_write_tokens: Math.min(row.cache_write_tokens, row.prompt_tokens - read),
    reasoning_tokens: row.reasoning_tokens,
    hmc_input: row.hmc_input,
    raw_input: row.raw_input,
    hmc_cached:
      row.hmc_cached === null || row.hmc_input === null ? row.hmc_cached : Math.min(row.hmc_cached, row.hmc_input),
    raw_cached:
      row.raw_cached === undefined || row.raw_cached === null || row.raw_input === null
        ? null
        : Math.min(row.raw_cached, row.raw_input),
    call_id: (row.call_id ?? '').slice(0, 200),
    turn: row.turn ?? null,
    seen: row.seen ?? row.hmc_input !== null,
    source: row.source ?? 'engine',
    break_tokens: row.break_tokens ?? 0,
    break_cause: row.break_cause ?? '',
  };
}

/** The statement that records rows (one transaction per batch). */
export function prepareUsageWrite(db: Database.Database): (rows: readonly UsageRecord[]) => void {
  const upsert =
    db.prepare(`INSERT INTO provider_usage (session_id, seq, at, model, provider, prompt_tokens, completion_tokens,
      cache_read_tokens, cache_write_tokens, reasoning_tokens, hmc_input, raw_input, hmc_cached, raw_cached, call_id, turn, seen,
      source, break_tokens, break_cause)
    VALUES (@session_id, @seq, @at, @model, @provider, @prompt_tokens, @completion_tokens, @cache_read_tokens,
      @cache_write_tokens, @reasoning_tokens, @hmc_input, @raw_input, @hmc_cached, @raw_cached, @call_id, @turn, @seen,
      @source, @break_tokens, @break_cause)
    ON CONFLICT (session_id, seq) DO UPDATE SET at = excluded.at, model = excluded.model, provider = excluded.provider,
      prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens,
      cache_read_tokens = excluded.cache_read_tokens, cache_write_tokens = excluded.cache_write_tokens,
      reasoning_tokens = excluded.reasoning_tokens, hmc_input = excluded.hmc_input, raw_input = excluded.raw_input,
      hmc_cached = excluded.hmc_cached, raw_cached = excluded.raw_cached, call_id = excluded.call_id, turn = excluded.turn,
      seen = excluded.seen, source = excluded.source, break_tokens = excluded.break_tokens, break_cause = excluded.break_cause`);
  const run = db.transaction((rows: readonly UsageRecord[]) => {
    for (const r of rows)
      upsert.run({
        raw_cached: null,
        call_id: '',
        turn: null,
        source: 'engine',
        break_tokens: 0,
        break_cause: '',
        ...r,
        seen: r.seen === false ? 0 : 1,
      });
  });
  return (rows) => run.immediate(rows);
}

/** Rows of calls made before the retention cutoff. */
export const USAGE_RETENTION_SQL = 'DELETE FROM provider_usage WHERE at < @cutoff';

type Row = Record<string, unknown>;
const n = (x: unknown): number => (typeof x === 'number' ? x : typeof x === 'bigint' ? Number(x) : 0);
const s = (x: unknown): string => (typeof x === 'string' ? x : '');
const nullable = (x: unknown): number | null => (x === null || x === undefined ? null : n(x));
const cause = (x: unknown): BreakCause | '' =>
  x === 'hmc' || x === 'hermes' || x === 'ttl' || x === 'unknown' ? x : '';

/** The read side: one session's usage (null when the host reported none for it). */
export class UsageQueries {
  private readonly totals: Database.Statement;
  private readonly models: Database.Statement;
  private readonly calls: Database.Statement;

  constructor(db: Database.Database) {
    this.totals =
      db.prepare(`SELECT COUNT(*) AS calls, SUM(prompt_tokens) AS prompt, SUM(completion_tokens) AS completion,
      SUM(cache_read_tokens) AS cache_read, SUM(cache_write_tokens) AS cache_write, SUM(reasoning_tokens) AS reasoning,
      COUNT(hmc_input) AS hmc_calls, COALESCE(SUM(hmc_input), 0) AS hmc_input, COALESCE(SUM(hmc_cached), 0) AS hmc_cached,
      SUM(CASE WHEN seen = 0 THEN 1 ELSE 0 END) AS unseen, SUM(CASE WHEN break_cause != '' THEN 1 ELSE 0 END) AS breaks
      FROM provider_usage WHERE session_id = ?`);
    this.models = db.prepare(`SELECT model, COUNT(*) AS calls FROM provider_usage WHERE session_id = ?
      GROUP BY model ORDER BY calls DESC, model`);
    this.calls =
      db.prepare(`SELECT * FROM (SELECT seq, at, model, provider, prompt_tokens, completion_tokens, cache_read_tokens,
      cache_write_tokens, reasoning_tokens, hmc_input, raw_input, hmc_cached, raw_cached, call_id, turn, seen, source, break_tokens,
      break_cause FROM provider_usage WHERE session_id = ?
      ORDER BY seq DESC LIMIT ${MAX_USAGE_CALLS}) ORDER BY seq`);
  }

  usage(sessionId: string): SessionUsage | null {
    const t = (this.totals.get(sessionId) ?? {}) as Row;
    if (n(t.calls) === 0) return null;
    return {
      session_id: sessionId,
      totals: {
        calls: n(t.calls),
        prompt_tokens: n(t.prompt),
        completion_tokens: n(t.completion),
        cache_read_tokens: n(t.cache_read),
        cache_write_tokens: n(t.cache_write),
        reasoning_tokens: n(t.reasoning),
        hmc_calls: n(t.hmc_calls),
        hmc_input: n(t.hmc_input),
        hmc_cached: n(t.hmc_cached),
        unseen_calls: n(t.unseen),
        breaks: n(t.breaks),
      },
      models: (this.models.all(sessionId) as Row[]).map((r) => ({ model: s(r.model), calls: n(r.calls) })),
      calls: (this.calls.all(sessionId) as Row[]).map(usageRow),
    };
  }
}

/** A stored row read back: every field present. */
export function usageRow(r: Record<string, unknown>): StoredUsage {
  return {
    seq: n(r.seq),
    at: n(r.at),
    model: s(r.model),
    provider: s(r.provider),
    prompt_tokens: n(r.prompt_tokens),
    completion_tokens: n(r.completion_tokens),
    cache_read_tokens: n(r.cache_read_tokens),
    cache_write_tokens: n(r.cache_write_tokens),
    reasoning_tokens: n(r.reasoning_tokens),
    hmc_input: nullable(r.hmc_input),
    raw_input: nullable(r.raw_input),
    hmc_cached: nullable(r.hmc_cached),
    raw_cached: nullable(r.raw_cached),
    call_id: s(r.call_id),
    turn: nullable(r.turn),
    seen: n(r.seen) !== 0,
    source: r.source === 'hook' ? 'hook' : 'engine',
    break_tokens: n(r.break_tokens),
    break_cause: cause(r.break_cause),
  };
}
