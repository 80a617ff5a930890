/**
 * Short, stable digests of what the engine compares: an assistant reply (so a re-sent or shifted
 * history is not counted twice), tool-call fingerprints, phase ranges; and JSON text that never
 * throws.
 *
 * Invariant: the same input gives the same digest in every process (sessions are resumed by a
 * later process, which must recognise what an earlier one counted).
 */
import { createHash } from 'node:crypto';
import type { Message } from '../../core/message.js';

/** A stable signature of an assistant reply, so a re-sent or shifted history is not counted twice. */
export function replySignature(message: Message, index: number): string {
  const ids = Array.isArray(message.tool_calls)
    ? message.tool_calls.map((c) => (typeof c?.id === 'string' ? c.id : '')).join(',')
    : '';
  if (ids.replace(/,/g, '') !== '') return `tc:${ids}`;
  const content = typeof message.content === 'string' ? message.content : safeJson(message.content);
  return `c:${index}:${hash(content + safeJson(message.tool_calls ?? null))}`;
}

export function hash(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 16);
}

export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
}
