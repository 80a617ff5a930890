/**
 * Guards for the context engine's methods (core/context-engine.ts): `should_compress`,
 * `compress`, `update_from_response`, `engine_session`. Each turns the params of a checked line
 * into the method's typed params, or an error naming the field.
 *
 * Invariant: nothing is cast; a usage figure the host left out or sent as something else counts as
 * 0 (a hint never fails a call), but a figure the method decides on must be a number.
 */
import type { CompressParams, ContextMeasure, EngineSessionParams, HostPrice, ShouldCompressParams, UpdateFromResponseParams } from '../core/context-engine.js';
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

export function compressParams(p: Record<string, unknown>, messages: (value: unknown, field: string) => Checked<Message[]>): Checked<CompressParams> {
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
  const n = (key: string): number => (count(u[key]) ? Math.round(u[key]) : 0);
  return ok({
    session_id: sid.value,
    model: text(p, 'model') ?? '',
    provider: text(p, 'provider') ?? '',
    usage: {
      prompt_tokens: n('prompt_tokens'),
      completion_tokens: n('completion_tokens'),
      cache_read_tokens: n('cache_read_tokens'),
      cache_write_tokens: n('cache_write_tokens'),
      reasoning_tokens: n('reasoning_tokens'),
    },
    ...(text(p, 'call_id') ? { call_id: text(p, 'call_id')!.slice(0, 200) } : {}),
    ...(text(p, 'turn_id') ? { turn_id: text(p, 'turn_id')!.slice(0, 200) } : {}),
    ...(count(p.call_count) ? { call_count: Math.round(p.call_count) } : {}),
    ...(p.source === 'hook' || p.source === 'engine' ? { source: p.source } : {}),
    ...(count(p.at) && p.at > 0 ? { at: Math.round(p.at) } : {}),
    ...(hostPrice(p.price) ? { price: hostPrice(p.price)! } : {}),
  });
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
  if (event !== 'start' && event !== 'end' && event !== 'reset') return bad('params.event must be "start", "end" or "reset"');
  const old = text(p, 'old_session_id');
  const reason = text(p, 'boundary_reason');
  return ok({ session_id: sid.value, event, ...(old ? { old_session_id: old } : {}), ...(reason ? { boundary_reason: reason } : {}) });
}
