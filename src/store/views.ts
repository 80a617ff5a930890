/**
 * The views users of other token tools look for (issue 17, finding 7), over any window of
 * sessions: tokens per model (priced per model by pricing.ts, with the cache model's reads and
 * writes), tool outputs per tool, per kind and per shell program (average saved per output), and
 * whether compression cost the agent work (recalls and re-reads of what HMC elided); and, for
 * /metrics and the OTLP push, the lifetime measured figures (provider usage per model, HMC's
 * counted calls apart from the rest, and HMC's figures of the sessions the provider measured none of).
 *
 * Invariant: figures are sums of what each session recorded (an upsert: a session is never counted
 * twice); a share is 0 where its denominator is; rows come largest saving first, names breaking ties;
 * the measured figures are kept between calls only while the file is unchanged.
 */
import type Database from 'better-sqlite3';
import { pct } from './rows.js';
import { Filtered, type Row, type Window } from './window.js';
import type { HostPrice } from '../core/context-engine.js';
import { usageRow, type StoredUsage } from './usage.js';

/** The tokens of one model's sessions (docs/glossary.md); priced by `priceModels` (pricing.ts). */
export interface ModelRow {
  model: string;
  sessions: number;
  model_calls: number;
  /** Input without HMC and as sent, over every model call; saved = input - sent. */
  input: number;
  sent: number;
  saved: number;
  /** HMC's cache model: of `input` and of `sent`, the tokens read from the provider's cache. */
  cached_input: number;
  cached_sent: number;
  /** Of `input` and `sent`, the part in sessions recorded before the cache model was kept (priced as plain input). */
  plain_input: number;
  plain_sent: number;
  sessions_without_cache_model: number;
  /** The host's own price of this model (Hermes' pricing data), when it reported one. */
  host_price?: HostPrice;
}

export const OUTPUT_BY = ['tool', 'kind', 'program'] as const;
export type OutputBy = (typeof OUTPUT_BY)[number];

/** Tool outputs grouped by tool, kind or shell program: what HMC took off them when they arrived. */
export interface OutputRow {
  /** The tool, the kind (read, shell, search…) or the shell program (`pytest`, `git status`). */
  name: string;
  /** For a tool: its kind; for a program: `shell`. */
  kind: string;
  outputs: number;
  /** Tokens of the outputs as the tools returned them, and as first sent. */
  tokens_raw: number;
  tokens_sent: number;
  /** tokens_raw - tokens_sent: context saved on these outputs when they arrived. */
  saved: number;
  /** saved / outputs, rounded to a whole token. */
  saved_per_output: number;
  savings_pct: number;
  /** Tools only: input saved on this tool's outputs over every model call they were sent in. */
  input_saved?: number;
}

/** Did compression cost the agent work? Over the window's sessions. */
export interface WorkSummary {
  sessions: number;
  model_calls: number;
  tool_calls: number;
  /** Tool outputs HMC shortened. */
  elided: number;
  /** The agent's `hmc_control action=recall` calls. */
  recalls: number;
  /** Reads of file parts whose earlier read HMC had shortened, nothing written to the file between. */
  rereads: number;
  /** Recalls plus re-reads per 100 outputs HMC shortened (0 when none was). */
  per_100_elided: number;
  /** Sessions with at least one recall or re-read, most first (at most 10). */
  top: { session_id: string; started_at: number; model: string; recalls: number; rereads: number; elided: number }[];
}

/** The most calls a period's reconcile reads (its latest). */
export const MAX_PERIOD_CALLS = 20_000;

const n = (x: unknown): number => (typeof x === 'number' ? x : typeof x === 'bigint' ? Number(x) : 0);
const s = (x: unknown): string => (typeof x === 'string' ? x : '');

export class ViewQueries {
  private readonly models: Filtered;
  private readonly outputs: Record<OutputBy, Filtered>;
  private readonly toolInput: Filtered;
  private readonly workTotals: Filtered;
  private readonly workTop: Filtered;
  private readonly provider: Filtered;
  private readonly hostPrice: Database.Statement;
  private readonly calls: Filtered;
  private readonly measuredCalls: Database.Statement;
  private readonly unmeasured: Database.Statement;
  /** Changes committed by other connections (data_version) and by this one (total_changes): the cache's key. */
  private readonly dataVersion: Database.Statement;
  private readonly ownChanges: Database.Statement;
  private measuredCache: { version: string; figures: MeasuredFigures } | null = null;

  constructor(db: Database.Database) {
    this.models = new Filtered(db, (w) => modelSql(w(false)));
    // Lifetime, for /metrics and OTLP: provider usage per model, the calls HMC counted apart from
    // the rest; and HMC's figures of the sessions none of whose calls the provider measured.
    this.measuredCalls =
      db.prepare(`SELECT model, ${COUNTED} AS counted, COUNT(*) AS calls, SUM(prompt_tokens) AS prompt,
      SUM(cache_read_tokens) AS cache_read, SUM(cache_write_tokens) AS cache_write, SUM(completion_tokens) AS completion,
      SUM(reasoning_tokens) AS reasoning,
      SUM(CASE WHEN ${COUNTED} THEN raw_input * ${RATIO} ELSE 0 END) AS raw_input,
      SUM(CASE WHEN ${COUNTED} THEN COALESCE(raw_cached, 0) * ${RATIO} ELSE 0 END) AS raw_cached
      FROM provider_usage GROUP BY model, counted ORDER BY model, counted DESC`);
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.ownChanges = db.prepare('SELECT total_changes()').pluck();
    this.unmeasured = db.prepare(
      modelSql(` WHERE NOT EXISTS (SELECT 1 FROM provider_usage WHERE session_id = sessions.id AND ${COUNTED})`),
    );
    const grouped = (column: string, extra: string) =>
      new Filtered(
        db,
        (w) => `SELECT ${column} AS name, MIN(o.kind) AS kind,
      SUM(o.outputs) AS outputs, SUM(o.tokens_raw) AS raw, SUM(o.tokens_sent) AS sent
      FROM session_output o JOIN sessions s ON s.id = o.session_id${extra}${w(extra !== '', 's')}
      GROUP BY ${column} ORDER BY SUM(o.tokens_raw) - SUM(o.tokens_sent) DESC, name LIMIT @limit`,
      );
    this.outputs = {
      tool: grouped('o.tool', ''),
      kind: grouped(`CASE WHEN o.kind = '' THEN 'other' ELSE o.kind END`, ''),
      program: grouped('o.program', ` WHERE o.program != ''`),
    };
    this.toolInput = new Filtered(
      db,
      (w) => `SELECT t.tool AS tool, SUM(t.saved) AS saved FROM session_tool t
      JOIN sessions s ON s.id = t.session_id${w(false, 's')} GROUP BY t.tool`,
    );
    this.workTotals = new Filtered(
      db,
      (w) => `SELECT COUNT(*) AS sessions, COALESCE(SUM(model_calls), 0) AS calls,
      COALESCE(SUM(tool_calls), 0) AS tools, COALESCE(SUM(elided), 0) AS elided, COALESCE(SUM(recalls), 0) AS recalls,
      COALESCE(SUM(rereads), 0) AS rereads FROM sessions${w(false)}`,
    );
    this.workTop = new Filtered(
      db,
      (w) => `SELECT id, started_at, model, recalls, rereads, elided FROM sessions
      WHERE recalls + rereads > 0${w(true)} ORDER BY recalls + rereads DESC, started_at DESC, id LIMIT 10`,
    );
    // The window is the sessions' (a call belongs to the session it was made in, as everything else here).
    this.provider = new Filtered(
      db,
      (w) => `SELECT u.model AS model, COUNT(*) AS calls, SUM(u.prompt_tokens) AS prompt,
      SUM(u.cache_read_tokens) AS cache_read, SUM(u.cache_write_tokens) AS cache_write, SUM(u.completion_tokens) AS completion
      FROM provider_usage u JOIN sessions s ON s.id = u.session_id${w(false, 's')} GROUP BY u.model ORDER BY calls DESC, u.model`,
    );
    // The latest calls of the window's sessions (a period's reconcile; the most it reads).
    this.calls = new Filtered(
      db,
      (w) => `SELECT * FROM (SELECT u.* FROM provider_usage u JOIN sessions s ON s.id = u.session_id${w(false, 's')}
      ORDER BY u.at DESC, u.id DESC LIMIT ${MAX_PERIOD_CALLS}) ORDER BY at, id`,
    );
    this.hostPrice = db.prepare('SELECT model, input, output, cache_read, cache_write, source FROM host_prices');
  }

  /** The provider usage rows of the window's sessions, oldest first (the latest MAX_PERIOD_CALLS). */
  usageCalls(w: Window = {}): (StoredUsage & { session_id: string })[] {
    return this.calls.rows(w).map((r) => ({ ...usageRow(r), session_id: s(r.session_id) }));
  }

  /** The prices the host reported, by model (exact name). */
  hostPrices(): Map<string, HostPrice> {
    const out = new Map<string, HostPrice>();
    for (const r of this.hostPrice.all() as Record<string, unknown>[]) {
      out.set(s(r.model), {
        input: n(r.input),
        output: n(r.output),
        cache_read: n(r.cache_read),
        cache_write: n(r.cache_write),
        source: s(r.source),
      });
    }
    return out;
  }

  /** Provider usage per model over the window's sessions; empty where no host reported any. */
  providerByModel(w: Window = {}): ProviderModelRow[] {
    const host = this.hostPrices();
    return this.provider.rows(w).map((r) => ({
      ...(host.has(s(r.model)) ? { host_price: host.get(s(r.model))! } : {}),
      model: s(r.model),
      calls: n(r.calls),
      prompt_tokens: n(r.prompt),
      cache_read_tokens: n(r.cache_read),
      cache_write_tokens: n(r.cache_write),
      completion_tokens: n(r.completion),
    }));
  }

  byModel(w: Window = {}): ModelRow[] {
    const host = this.hostPrices();
    return this.models.rows(w).map((r) => modelRow(r, host));
  }

  /**
   * Lifetime provider usage per model and whether HMC counted the call, and HMC's figures of the
   * sessions the provider measured none of. Read again only when the file changed: a scrape
   * every 15 s of a store with 100,000 calls would otherwise sort them all each time.
   */
  measured(): MeasuredFigures {
    const version = `${String(this.dataVersion.get())} ${String(this.ownChanges.get())}`;
    if (this.measuredCache?.version !== version) this.measuredCache = { version, figures: this.readMeasured() };
    return this.measuredCache.figures;
  }

  private readMeasured(): MeasuredFigures {
    const host = this.hostPrices();
    const price = (model: string) => (host.has(model) ? { host_price: host.get(model)! } : {});
    return {
      calls: (this.measuredCalls.all() as Row[]).map((r) => ({
        ...price(s(r.model)),
        model: s(r.model),
        counted: n(r.counted) !== 0,
        calls: n(r.calls),
        prompt_tokens: n(r.prompt),
        cache_read_tokens: n(r.cache_read),
        cache_write_tokens: n(r.cache_write),
        completion_tokens: n(r.completion),
        reasoning_tokens: n(r.reasoning),
        raw_input: n(r.raw_input),
        raw_cached: n(r.raw_cached),
      })),
      unmeasured: (this.unmeasured.all() as Row[]).map((r) => modelRow(r, host)),
    };
  }

  byOutput(q: Window & { by: OutputBy; limit: number }): OutputRow[] {
    const { by, limit, ...w } = q;
    const rows = this.outputs[by].rows(w, { limit });
    const input = by === 'tool' ? new Map(this.toolInput.rows(w).map((r) => [s(r.tool), n(r.saved)])) : null;
    return rows.map((r) => {
      const raw = n(r.raw);
      const sent = Math.min(n(r.sent), raw);
      const outputs = n(r.outputs);
      const row: OutputRow = {
        name: s(r.name),
        kind: by === 'program' ? 'shell' : by === 'kind' ? s(r.name) : s(r.kind) || 'other',
        outputs,
        tokens_raw: raw,
        tokens_sent: sent,
        saved: raw - sent,
        saved_per_output: outputs > 0 ? Math.round((raw - sent) / outputs) : 0,
        savings_pct: pct(raw - sent, raw),
      };
      if (input) row.input_saved = input.get(row.name) ?? 0;
      return row;
    });
  }

  work(w: Window = {}): WorkSummary {
    const t = this.workTotals.rows(w)[0] ?? {};
    const elided = n(t.elided);
    const recalls = n(t.recalls);
    const rereads = n(t.rereads);
    return {
      sessions: n(t.sessions),
      model_calls: n(t.calls),
      tool_calls: n(t.tools),
      elided,
      recalls,
      rereads,
      per_100_elided: elided > 0 ? Math.round(((recalls + rereads) / elided) * 10_000) / 100 : 0,
      top: this.workTop.rows(w).map((r: Row) => ({
        session_id: s(r.id),
        started_at: n(r.started_at),
        model: s(r.model),
        recalls: n(r.recalls),
        rereads: n(r.rereads),
        elided: n(r.elided),
      })),
    };
  }
}

/**
 * What the provider reported for one model's calls (provider usage, migration 6; context-engine
 * hosts only): the bill's own count of what was sent, kept beside HMC's figures, never mixed in.
 */
export interface ProviderModelRow {
  model: string;
  /** The host's own price of this model (Hermes' pricing data), when it reported one. */
  host_price?: HostPrice;
  calls: number;
  prompt_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  completion_tokens: number;
}

/** A call HMC counted: it saw it and has its own figures for both requests (reconcile's saving is over these). */
const COUNTED = '(seen = 1 AND hmc_input IS NOT NULL AND raw_input IS NOT NULL)';
/** The provider's tokens per HMC (o200k) token of the same call, 1 without any: reconcile's per-call ratio. */
const RATIO = '(CASE WHEN hmc_input > 0 THEN CAST(prompt_tokens AS REAL) / hmc_input ELSE 1.0 END)';

function modelSql(where: string): string {
  return `SELECT model, COUNT(*) AS sessions, SUM(model_calls) AS calls, SUM(input_raw) AS input,
      SUM(input_hmc) AS sent, SUM(saved) AS saved, SUM(cached_raw) AS cached_input, SUM(cached_hmc) AS cached_sent,
      SUM(CASE WHEN model_calls = 0 AND input_raw > 0 THEN 1 ELSE 0 END) AS old,
      SUM(CASE WHEN model_calls = 0 THEN input_raw ELSE plain_raw END) AS plain_input,
      SUM(CASE WHEN model_calls = 0 THEN input_hmc ELSE plain_hmc END) AS plain_sent
      FROM sessions${where} GROUP BY model ORDER BY saved DESC, model`;
}

function modelRow(r: Row, host: ReadonlyMap<string, HostPrice>): ModelRow {
  return {
    ...(host.has(s(r.model)) ? { host_price: host.get(s(r.model))! } : {}),
    model: s(r.model),
    sessions: n(r.sessions),
    model_calls: n(r.calls),
    input: n(r.input),
    sent: n(r.sent),
    saved: n(r.saved),
    cached_input: n(r.cached_input),
    cached_sent: n(r.cached_sent),
    plain_input: n(r.plain_input),
    plain_sent: n(r.plain_sent),
    sessions_without_cache_model: n(r.old),
  };
}

/**
 * One model's provider usage over every stored call (/metrics and OTLP), `counted` or not: a
 * counted call is one HMC saw and counted; the rest (auxiliary calls, subagents', requests left
 * raw) are the provider's figures only, never in a saving.
 */
export interface MeasuredRow extends ProviderModelRow {
  counted: boolean;
  reasoning_tokens: number;
  /** Counted calls only: HMC's raw request (without HMC) in the provider's tokens (each call's ratio), and its cache model's reads of it. */
  raw_input: number;
  raw_cached: number;
}

/** The measured side of the export surfaces: provider usage per model, and HMC's figures of the sessions the provider measured no call of. */
export interface MeasuredFigures {
  calls: MeasuredRow[];
  unmeasured: ModelRow[];
}

/** What the views answer while there is no database. */
export const EMPTY_WORK: WorkSummary = {
  sessions: 0,
  model_calls: 0,
  tool_calls: 0,
  elided: 0,
  recalls: 0,
  rereads: 0,
  per_100_elided: 0,
  top: [],
};
