/**
 * Turns whatever the engine hands us into a record that is safe to store: whole non-negative
 * numbers, clamped so that savings never exceed input, timeline points unique per turn.
 *
 * Invariant: saved = input_raw - input_hmc with 0 <= saved <= input_raw; the per-strategy and the
 * per-tool parts each sum to at most `saved` (scaled down proportionally when they claim more).
 * Pure: no I/O, no clock.
 */
import type { OutputTally, SessionRecord, TurnPoint } from './types.js';

const MAX_TEXT = 4096;
/** No real count comes near this (a trillion tokens); larger values are engine bugs, capped so sums stay exact in JS. */
export const MAX_COUNT = 1e12;

/** A record ready for the database. */
export interface CleanRecord {
  id: string;
  project_path: string;
  platform: string;
  /** Whose the session is ('' the machine's own; engine/session/owner.ts). */
  owner: string;
  model: string;
  started_at: number;
  ended_at: number | null;
  turns: number;
  tool_calls: number;
  input_raw: number;
  input_hmc: number;
  saved: number;
  context_peak: number;
  model_calls: number;
  context_tokens: number;
  context_raw: number;
  /** 0 <= cached <= its input. */
  cached_raw: number;
  cached_hmc: number;
  /** Input of calls without a cache model; cached + plain <= its input. */
  plain_raw: number;
  plain_hmc: number;
  recalls: number;
  rereads: number;
  elided: number;
  strategies: [string, number][];
  tools: [string, number][];
  timeline: StoredTurn[];
  outputs: OutputTally[];
}

/** A turn as stored: every field present. */
export type StoredTurn = Required<TurnPoint>;

/** A whole number >= 0 (NaN, infinities and negatives become 0). */
export function count(x: unknown): number {
  const n = typeof x === 'number' ? x : Number(x);
  if (!Number.isFinite(n) || n <= 0) return 0;
  return Math.min(Math.round(n), MAX_COUNT);
}

function text(x: unknown): string {
  return typeof x === 'string' ? x.slice(0, MAX_TEXT) : '';
}

function time(x: unknown, what: string): number {
  if (typeof x !== 'number' || !Number.isFinite(x) || x < 0) {
    throw new TypeError(`${what} must be milliseconds since the epoch, got ${String(x)}`);
  }
  return Math.round(x);
}

/**
 * Positive parts whose sum is at most `cap`: when they claim more, each is scaled down in
 * proportion (largest remainders first), so the sum is exactly `cap`.
 */
export function fitParts(parts: Record<string, number> | undefined, cap: number): [string, number][] {
  const entries: [string, number][] = [];
  if (parts && typeof parts === 'object') {
    for (const [name, value] of Object.entries(parts)) {
      const v = count(value);
      if (v > 0 && name) entries.push([name.slice(0, MAX_TEXT), v]);
    }
  }
  const sum = entries.reduce((a, [, v]) => a + v, 0);
  if (sum <= cap) return entries;
  const ratio = cap / sum;
  const scaled = entries.map(([name, v]) => {
    const exact = v * ratio;
    return { name, value: Math.floor(exact), rest: exact - Math.floor(exact) };
  });
  let total = scaled.reduce((a, s) => a + s.value, 0);
  // Float error can leave the sum a hair above or below the cap; settle it one token at a time.
  const byRest = [...scaled].sort((a, b) => b.rest - a.rest);
  for (let i = 0; total < cap && i < byRest.length; i++, total++) byRest[i]!.value++;
  const byValue = [...scaled].sort((a, b) => b.value - a.value);
  for (let i = 0; total > cap && byValue.length > 0; i = (i + 1) % byValue.length) {
    if (byValue[i]!.value > 0) {
      byValue[i]!.value--;
      total--;
    }
  }
  return scaled.filter((s) => s.value > 0).map((s) => [s.name, s.value]);
}

function cleanPoint(p: TurnPoint): StoredTurn {
  const raw = count(p.input_raw);
  const pctRaw = typeof p.context_percent === 'number' && Number.isFinite(p.context_percent) ? p.context_percent : 0;
  const context = count(p.context_tokens);
  return {
    turn: count(p.turn),
    time: typeof p.time === 'number' && Number.isFinite(p.time) && p.time > 0 ? Math.round(p.time) : 0,
    context_tokens: context,
    context_raw_tokens: Math.max(count(p.context_raw_tokens), context),
    context_percent: Math.min(1, Math.max(0, pctRaw)),
    input_raw: raw,
    input_hmc: Math.min(count(p.input_hmc), raw),
    model_calls: count(p.model_calls),
    tool_calls: count(p.tool_calls),
    cached_raw: Math.min(count(p.cached_raw), raw),
    cached_hmc: Math.min(count(p.cached_hmc), count(p.input_hmc), raw),
  };
}

/** Output tallies with whole counts, sent within raw, one per (tool, program). */
function cleanOutputs(list: unknown): OutputTally[] {
  const out = new Map<string, OutputTally>();
  for (const o of Array.isArray(list) ? (list as Partial<OutputTally>[]) : []) {
    if (!o || typeof o !== 'object' || typeof o.tool !== 'string' || o.tool === '') continue;
    const tool = o.tool.slice(0, 200);
    const program = text(o.program).slice(0, 200);
    const raw = count(o.tokens_raw);
    const key = `${tool}\u0000${program}`;
    const prev = out.get(key);
    const row = prev ?? { tool, program, kind: text(o.kind).slice(0, 40), outputs: 0, tokens_raw: 0, tokens_sent: 0 };
    row.outputs += count(o.outputs);
    row.tokens_raw += raw;
    row.tokens_sent += Math.min(count(o.tokens_sent), raw);
    out.set(key, row);
  }
  return [...out.values()];
}

/** Throws a TypeError when the record has no session id or no valid start time. */
export function cleanRecord(rec: SessionRecord): CleanRecord {
  if (typeof rec.session_id !== 'string' || rec.session_id === '') {
    throw new TypeError('session_id must be a non-empty string');
  }
  const inputRaw = count(rec.input_tokens_raw);
  const inputHmc = Math.min(count(rec.input_tokens_hmc), inputRaw);
  const saved = inputRaw - inputHmc;
  const timeline = new Map<number, StoredTurn>();
  for (const p of Array.isArray(rec.timeline) ? rec.timeline : []) {
    if (p && typeof p === 'object') {
      const clean = cleanPoint(p);
      timeline.set(clean.turn, clean);
    }
  }
  return {
    id: rec.session_id.slice(0, MAX_TEXT),
    project_path: text(rec.project_path),
    platform: text(rec.platform),
    owner: text(rec.owner),
    model: text(rec.model),
    started_at: time(rec.started_at, 'started_at'),
    ended_at: rec.ended_at === null || rec.ended_at === undefined ? null : time(rec.ended_at, 'ended_at'),
    turns: count(rec.turns),
    tool_calls: count(rec.tool_calls),
    input_raw: inputRaw,
    input_hmc: inputHmc,
    saved,
    context_peak: count(rec.context_peak),
    model_calls: count(rec.model_calls),
    context_tokens: count(rec.context_tokens),
    context_raw: Math.max(count(rec.context_raw_tokens), count(rec.context_tokens)),
    cached_raw: Math.min(count(rec.cached_raw), inputRaw),
    cached_hmc: Math.min(count(rec.cached_hmc), inputHmc),
    // A record without the figure (an older engine) had no cache model: all of its input is plain.
    plain_raw:
      rec.plain_raw === undefined && !rec.cached_raw
        ? inputRaw
        : Math.min(count(rec.plain_raw), inputRaw - Math.min(count(rec.cached_raw), inputRaw)),
    plain_hmc:
      rec.plain_hmc === undefined && !rec.cached_hmc
        ? inputHmc
        : Math.min(count(rec.plain_hmc), inputHmc - Math.min(count(rec.cached_hmc), inputHmc)),
    recalls: count(rec.work?.recalls),
    rereads: count(rec.work?.rereads),
    elided: count(rec.work?.elided),
    strategies: fitParts(rec.by_strategy, saved),
    tools: fitParts(rec.by_tool, saved),
    timeline: [...timeline.values()].sort((a, b) => a.turn - b.turn),
    outputs: cleanOutputs(rec.work?.outputs),
  };
}

/** Why a record cannot be stored (checked cheaply on the hook path), or null when it can. */
export function recordProblem(rec: SessionRecord): string | null {
  if (!rec || typeof rec !== 'object') return 'record is not an object';
  if (typeof rec.session_id !== 'string' || rec.session_id === '') return 'session_id must be a non-empty string';
  const ok = (t: unknown): boolean => typeof t === 'number' && Number.isFinite(t) && t >= 0;
  if (!ok(rec.started_at)) return `started_at must be milliseconds since the epoch, got ${String(rec.started_at)}`;
  if (rec.ended_at !== null && rec.ended_at !== undefined && !ok(rec.ended_at)) {
    return `ended_at must be milliseconds since the epoch or null, got ${String(rec.ended_at)}`;
  }
  return null;
}
