/**
 * `hmc_control action=recall`: the exact original an elision marker names (an output, a line
 * range of it, a cleared call's arguments, or a layer-1 phase's messages a page at a time).
 * Invariant: only the asking session's copies are read, and every byte given back is the original.
 */
import { parseEnvelope } from '../../hosts/outputs/envelope.js';
import { ARGUMENTS_TOOL_PREFIX, lineRange, type RecallStore } from '../session/recall.js';
import type { Session } from '../session/session.js';

/** The kept original (or the lines a marker names) of one of this session's outputs; never another session's. */
export function recallAction(
  recall: Pick<RecallStore, 'get'>,
  s: Session,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const id = String(args.id ?? '').trim();
  if (!id) return { error: 'id is required: the id a marker prints, e.g. recall id=r0123456789' };
  // A recall reads only the session it is asked from (never another session's data); a person
  // reads another one's copies from a terminal (issue 17, finding 5: session= was ignored).
  const other =
    typeof args.session === 'string' && args.session.trim() !== '' && args.session.trim() !== s.id
      ? args.session.trim()
      : null;
  const elsewhere = `\`hmc control recall id=${id.slice(0, 40)} --session <its id>\` in a terminal (in Hermes: \`hermes hmc control …\`) reads another session's copy`;
  if (other)
    return { error: `recall reads only this session (${s.id}), not session=${other.slice(0, 80)}; ${elsewhere}` };
  const entry = recall.get(s.id, id);
  if (!entry)
    return {
      error: `nothing is kept under id ${JSON.stringify(id.slice(0, 40))} for this session (copies are kept for 7 days); ${elsewhere}`,
    };
  // A layer-1 phase: the exact messages its summary stands for, a page at a time.
  if (entry.tool === '(phase)') return phaseRecall(id, JSON.parse(entry.content) as unknown[], args);
  // A cleared call's arguments: the exact text the call was made with (a JSON object).
  if (entry.tool.startsWith(ARGUMENTS_TOOL_PREFIX))
    return { id, tool: entry.tool.slice(ARGUMENTS_TOOL_PREFIX.length), arguments: entry.content };
  if (args.lines === undefined || args.lines === null || args.lines === '')
    return { id, tool: entry.tool, content: entry.content };
  const range = parseRange(args.lines);
  if (!range)
    return {
      error: `lines must look like 41-160 (or one line number), got ${JSON.stringify(String(args.lines).slice(0, 40))}`,
    };
  // Marker line numbers count the lines of the text inside the tool's envelope.
  const text = parseEnvelope(entry.content, { tool: entry.tool, args: {} }).rawLines.join('\n');
  const part = lineRange(text, range[0], range[1]);
  return { id, tool: entry.tool, lines: `${part.from}-${part.to}`, total_lines: part.total, content: part.text };
}

/**
 * A phase's messages fit in one answer only when small: a host cuts a long tool result (Hermes
 * keeps 15% of a small window, 38,400 characters of a 64 K one), which would lose the very
 * messages asked for. So an answer holds whole messages up to PHASE_PAGE_CHARS and says how to ask
 * for the next ones (`messages=A-B`); one message bigger than a page is read by its lines
 * (`message=N lines=A-B`). Every message given back is exact.
 */
export const PHASE_PAGE_CHARS = 24_000;

function phaseRecall(id: string, messages: unknown[], args: Record<string, unknown>): Record<string, unknown> {
  const total = messages.length;
  const given = (v: unknown): boolean => v !== undefined && v !== null && v !== '';
  if (given(args.message)) {
    const n = Number(args.message);
    if (!Number.isInteger(n) || n < 1 || n > total)
      return { error: `message must be a number from 1 to ${total}, got ${quoted(args.message)}` };
    const m = messages[n - 1] as Record<string, unknown>;
    const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? null);
    const range: [number, number] | null = given(args.lines) ? parseRange(args.lines) : [1, Number.MAX_SAFE_INTEGER];
    if (!range) return { error: `lines must look like 41-160 (or one line number), got ${quoted(args.lines)}` };
    const part = lineRange(content, range[0], pageEnd(content, range[0], range[1]));
    const more =
      part.to < part.total ? { next: `recall id=${id} message=${n} lines=${part.to + 1}-${part.total}` } : {};
    const fields = Object.fromEntries(Object.entries(m).filter(([k]) => k !== 'content'));
    return {
      id,
      phase: true,
      total_messages: total,
      message: n,
      ...fields,
      lines: `${part.from}-${part.to}`,
      total_lines: part.total,
      content: part.text,
      ...more,
    };
  }
  if (total === 0) return { id, phase: true, total_messages: 0, messages: [] };
  const range: [number, number] | null = given(args.messages) ? parseRange(args.messages) : [1, total];
  if (!range) return { error: `messages must look like 1-20 (or one message number), got ${quoted(args.messages)}` };
  const from = Math.min(range[0], total);
  const last = Math.min(range[1], total);
  const page: unknown[] = [];
  let size = 0;
  for (let i = from; i <= last; i++) {
    const length = answerChars(JSON.stringify(messages[i - 1]));
    if (page.length > 0 && size + length > PHASE_PAGE_CHARS) break;
    if (length > PHASE_PAGE_CHARS) {
      if (page.length > 0) break;
      // Too big for one answer alone: read it by its lines.
      const m = messages[i - 1] as Record<string, unknown>;
      const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? null);
      return {
        id,
        phase: true,
        total_messages: total,
        messages: [],
        next: `recall id=${id} message=${i} lines=1-${pageEnd(content, 1, Number.MAX_SAFE_INTEGER)}`,
      };
    }
    page.push(messages[i - 1]);
    size += length;
  }
  const to = from + page.length - 1;
  const more = to < last ? { next: `recall id=${id} messages=${to + 1}-${last}` } : {};
  return { id, phase: true, total_messages: total, shown: `${from}-${to}`, messages: page, ...more };
}

/** Characters of JSON text once a host escapes it to ASCII (Hermes: `json.dumps`, each UTF-16 unit beyond ASCII six characters). */
function answerChars(json: string): number {
  let wide = 0;
  for (let i = 0; i < json.length; i++) if (json.charCodeAt(i) > 0x7f) wide++;
  return json.length + 5 * wide;
}

/** The last line from `from` on that keeps the text within one page (at least `from` itself). */
function pageEnd(text: string, from: number, to: number): number {
  const lines = text.split('\n');
  let size = 0;
  let end = from;
  for (let i = from; i <= Math.min(to, lines.length); i++) {
    size += answerChars(JSON.stringify(lines[i - 1] as string));
    if (size > PHASE_PAGE_CHARS && i > from) break;
    end = i;
  }
  return end;
}

function parseRange(value: unknown): [number, number] | null {
  const m = /^\s*(\d+)\s*(?:[-–:]\s*(\d+))?\s*$/.exec(String(value));
  if (!m) return null;
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  return from >= 1 && to >= from ? [from, to] : null;
}

/** A value shown in an error, cut to `max` characters. */
export function quoted(value: unknown, max = 60): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return (
    JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text) +
    (text.length > max ? ` (${text.length} characters)` : '')
  );
}
