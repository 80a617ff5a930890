/**
 * Guards for the context engine's methods (core/context-engine.ts): `should_compress`,
 * `compress`, `update_from_response`, `engine_session`. Each turns the params of a checked line
 * into the method's typed params, or an error naming the field.
 *
 * Invariant: nothing is cast; a usage figure the host left out (absent or null) counts as 0; one it
 * sent that is no token count (negative, fractional, a word, past 1e12) refuses the whole usage with
 * an error naming the field, never stored as a figure it is not (issue 26, finding 9: -5 and "abc"
 * were stored as 0 tokens); a digit string is read as its number. A figure the method decides on
 * must be a number.
 */
import type {
  CompressParams,
  ContextMeasure,
  EngineSessionParams,
  HostPrice,
  ShouldCompressParams,
  UpdateFromResponseParams,
} from '../core/context-engine.js';
import type { Message } from '../core/message.js';

type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const bad = <T>(message: string): Checked<T> => ({ ok: false, message });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function count(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function sessionId(p: Record<string, unknown>): Checked<string> {
  const v = p.session_id;
  if (v === undefined || v === null) return ok('');
  return typeof v === 'string' ? ok(v) : bad('params.session_id must be a string');
}

function text(p: Record<string, unknown>, key: string): string | undefined {
  const v = p[key];
  return typeof v === 'string' && v ? v : undefined;
}

export function shouldCompressParams(p: Record<string, unknown>): Checked<ShouldCompressParams> {
  const sid = sessionId(p);
  if (!sid.ok) return sid;
  if (!count(p.tokens)) return bad('params.tokens must be a non-negative number');
  if (!count(p.threshold_tokens)) return bad('params.threshold_tokens must be a non-negative number');
  const measure: ContextMeasure | undefined = p.measure === 'provider' || p.measure === 'host' ? p.measure : undefined;
  if (!measure) return bad('params.measure must be "provider" or "host"');
  return ok({
    session_id: sid.value,
    tokens: p.tokens,
    threshold_tokens: p.threshold_tokens,
    measure,
    ...(count(p.in_place_tokens) ? { in_place_tokens: p.in_place_tokens } : {}),
    ...(p.awaiting_usage === true ? { awaiting_usage: true } : {}),
  });
}

export function compressParams(
  p: Record<string, unknown>,
  messages: (value: unknown, field: string) => Checked<Message[]>,
): Checked<CompressParams> {
  const sid = sessionId(p);
  if (!sid.ok) return sid;
  const list = messages(p.messages, 'messages');
  if (!list.ok) return list;
  const focus = text(p, 'focus_topic');
  const memory = text(p, 'memory_context');
  return ok({
    session_id: sid.value,
    messages: list.value,
    ...(count(p.threshold_tokens) ? { threshold_tokens: p.threshold_tokens } : {}),
    ...(focus ? { focus_topic: focus } : {}),
    ...(memory ? { memory_context: memory } : {}),
    ...(p.force === true ? { force: true } : {}),
  });
}

export function updateFromResponseParams(p: Record<string, unknown>): Checked<UpdateFromResponseParams> {
  const sid = sessionId(p);
  if (!sid.ok) return sid;
  if (!isRecord(p.usage)) return bad('params.usage must be an object (the provider usage of one model call)');
  const u = p.usage;
  const figures: Record<(typeof USAGE_KEYS)[number], number> = {
    prompt_tokens: 0,
    completion_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
  };
  for (const key of USAGE_KEYS) {
    const n = tokenCount(u[key]);
    if (n === null)
      return bad(`params.usage.${key} must be a whole number of tokens from 0 to 1e12, got ${shown(u[key])}`);
    figures[key] = n;
  }
  return ok({
    session_id: sid.value,
    model: text(p, 'model') ?? '',
    provider: text(p, 'provider') ?? '',
    usage: figures,
    ...(text(p, 'call_id') ? { call_id: text(p, 'call_id')!.slice(0, 200) } : {}),
    ...(text(p, 'turn_id') ? { turn_id: text(p, 'turn_id')!.slice(0, 200) } : {}),
    ...(count(p.call_count) ? { call_count: Math.round(p.call_count) } : {}),
    ...(p.source === 'hook' || p.source === 'engine' ? { source: p.source } : {}),
    ...(count(p.at) && p.at > 0 ? { at: Math.round(p.at) } : {}),
    ...(hostPrice(p.price) ? { price: hostPrice(p.price)! } : {}),
  });
}

const USAGE_KEYS = [
  'prompt_tokens',
  'completion_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
] as const;
/** No real call comes near a trillion tokens (store/record.ts MAX_COUNT). */
const MAX_TOKENS = 1e12;

/** A token count: absent or null is 0; a whole number (or its digits as a string) up to 1e12; else null. */
function tokenCount(value: unknown): number | null {
  if (value === undefined || value === null) return 0;
  const n = typeof value === 'string' && /^\s*\d{1,13}\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= MAX_TOKENS ? n : null;
}

function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** A host's price when every figure is a number of 0 or more (anything else: none, never a partial price). */
function hostPrice(v: unknown): HostPrice | null {
  if (!isRecord(v)) return null;
  const { input, output, cache_read, cache_write } = v;
  if (!count(input) || !count(output) || !count(cache_read) || !count(cache_write)) return null;
  return { input, output, cache_read, cache_write, source: typeof v.source === 'string' ? v.source.slice(0, 100) : '' };
}

export function engineSessionParams(p: Record<string, unknown>): Checked<EngineSessionParams> {
  const sid = sessionId(p);
  if (!sid.ok) return sid;
  const event = p.event;
  if (event !== 'start' && event !== 'end' && event !== 'reset')
    return bad('params.event must be "start", "end" or "reset"');
  const old = text(p, 'old_session_id');
  const reason = text(p, 'boundary_reason');
  return ok({
    session_id: sid.value,
    event,
    ...(old ? { old_session_id: old } : {}),
    ...(reason ? { boundary_reason: reason } : {}),
  });
}
