/**
 * Server-Sent Events framing.
 *
 * Invariant: `event` and `id` never contain CR or LF (refused: the frame would be forged);
 * `data` is split per line so a newline in it can never end the event early.
 */

export class SseFieldError extends Error {}

const CRLF = /[\r\n]/;

export function formatSse(event: string, data: string, id?: string): string {
  if (CRLF.test(event)) throw new SseFieldError('event name contains CR/LF');
  if (id !== undefined && (CRLF.test(id) || id.includes('\0'))) throw new SseFieldError('event id contains CR/LF/NUL');
  let out = `event: ${event}\n`;
  if (id !== undefined) out += `id: ${id}\n`;
  for (const line of data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** A comment line; ignored by EventSource, keeps proxies and idle timers from closing. */
export function formatComment(text: string): string {
  return `: ${text.replace(/[\r\n]/g, ' ')}\n\n`;
}
