/**
 * The range's messages as the summariser reads them: one compact block per message (its number,
 * role, tool name; the assistant's tool calls with their arguments; the tool's output), secrets
 * redacted, and the whole bounded to a character budget.
 *
 * Bounding, in order, until the transcript fits `budgetChars`: long pieces are cut in the middle
 * (head and tail kept, a note saying how much went) with generous limits, then tighter ones
 * (RENDER_LEVELS); if the tightest still does not fit, whole messages are left out from the
 * middle of the range, with a note naming them (the engine's recall holds them all).
 *
 * Invariants: pure and total; secrets are redacted before any cut (a cut never leaves half a
 * token behind to escape the patterns); the result never exceeds `budgetChars` by more than one
 * note line; user and assistant text keep more room than tool output at every level.
 */
import { mainTextField, matchLine } from '../hosts/outputs/envelope-fields.js';
import type { Message, ToolCall } from '../core/message.js';
import { redactSecrets, scrubValues } from './redact.js';

/** How long each kind of piece may be, in characters, at one level of bounding. */
export interface RenderLimits {
  /** A tool's output. */
  toolOutputChars: number;
  /** One tool call's arguments (a `write_file` may carry a whole file). */
  argsChars: number;
  /** User and assistant text. */
  textChars: number;
}

/** From generous to tight; the first that fits the budget is used. */
export const RENDER_LEVELS: readonly RenderLimits[] = [
  { toolOutputChars: 3000, argsChars: 600, textChars: 6000 },
  { toolOutputChars: 1200, argsChars: 300, textChars: 3000 },
  { toolOutputChars: 400, argsChars: 160, textChars: 1500 },
];

/**
 * Before redaction a long piece is windowed to its head and tail (cut at whitespace, so no token
 * is split): larger than any level keeps (2/3 and 1/3 of the largest limit), so the gap always
 * falls inside the final cut, and redaction costs the same for a 10 KB or a 10 MB output.
 */
const WINDOW_HEAD_CHARS = 12_000;
const WINDOW_TAIL_CHARS = 6_000;
/** Marks the windowing gap until the final cut removes it (never part of any tool output we keep). */
const GAP = '\u0000';
/** Characters of text redacted per step of the work (about 10–30 ms), between hooks. */
export const STEP_CHARS = 192 * 1024;

export interface RenderedRange {
  /** The transcript text. */
  text: string;
  /** Secrets redacted in the range's pieces. */
  redactions: number;
  /** The secret values found (every occurrence of each is gone from the text, whatever its context). */
  values: string[];
  /** Messages left out whole to fit the budget (0 when every message is there). */
  omitted: number;
  /** Index into RENDER_LEVELS that was used. */
  level: number;
}

/** What windowing took out of a piece before redaction (counted in the cut note). */
interface Hidden {
  chars: number;
  lineBreaks: number;
}

/** One message, redacted, ready to be cut to any level. */
interface Prepared {
  header: string;
  pieces: { kind: keyof RenderLimits; prefix: string; text: string; hidden: Hidden }[];
}

/**
 * Renders `messages` (numbered from 1) within `budgetChars`. The work is cut into steps of about
 * STEP_CHARS of text, and between steps it waits for `pace` (the engine gives one step after each
 * hook, so where the request lands among the host's hooks depends on the hooks alone, never on the
 * machine's speed: issue 25), else for a turn of the event loop. Steps used to be cut by the clock
 * (8 ms), and replays of one build differed run to run. The result depends on the messages alone.
 */
export async function renderRange(
  messages: readonly Message[],
  budgetChars: number,
  pace?: () => Promise<void>,
): Promise<RenderedRange> {
  let redactions = 0;
  const values = new Set<string>();
  const names = toolNames(messages);
  const prepared: Prepared[] = [];
  let work = 0;
  for (let i = 0; i < messages.length; i++) {
    const p = prepare(messages[i] as Message, i + 1, names);
    for (const piece of p.pieces) {
      const w = windowed(piece.text);
      const r = redactSecrets(w.text);
      redactions += r.count;
      for (const v of r.values) values.add(v);
      piece.text = r.text;
      piece.hidden = w.hidden;
      work += w.text.length;
    }
    prepared.push(p);
    if (work >= STEP_CHARS && i < messages.length - 1) {
      work = 0;
      await (pace ? pace() : new Promise((resolve) => setImmediate(resolve)));
    }
  }
  // A secret found in one place goes wherever else it appears, in any context (issue 19: the value
  // of `REDIS_PASSWORD=` also turned up alone in a log line).
  if (values.size > 0) {
    for (const p of prepared) {
      for (const piece of p.pieces) {
        const r = scrubValues(piece.text, values);
        redactions += r.count;
        piece.text = r.text;
      }
    }
  }
  const found = [...values];
  let blocks: string[] = [];
  for (let level = 0; level < RENDER_LEVELS.length; level++) {
    blocks = prepared.map((p) => block(p, RENDER_LEVELS[level] as RenderLimits));
    if (total(blocks) <= budgetChars)
      return { text: blocks.join('\n\n'), redactions, values: found, omitted: 0, level };
  }
  const { text, omitted } = leaveOutMiddle(blocks, budgetChars);
  return { text, redactions, values: found, omitted, level: RENDER_LEVELS.length - 1 };
}

/**
 * `text` cut in the middle to at most about `max` characters, with a note saying what went
 * (`hidden`: what windowing already took out of its middle).
 */
export function cutMiddle(text: string, max: number, hidden: Hidden = { chars: 0, lineBreaks: 0 }): string {
  if (text.length <= max && hidden.chars === 0) return text;
  const headLen = Math.floor((max * 2) / 3);
  const tailLen = max - headLen;
  let head = headLen;
  let tail = text.length - tailLen;
  // Cut at line ends when one is near, so kept lines stay whole.
  const headLine = text.lastIndexOf('\n', head);
  if (headLine > headLen * 0.7) head = headLine;
  const tailLine = text.indexOf('\n', tail);
  if (tailLine !== -1 && tailLine + 1 < tail + tailLen * 0.3) tail = tailLine + 1;
  head = notInsidePair(text, head);
  tail = notInsidePair(text, tail);
  const gone = text.slice(head, tail);
  const chars = gone.length - (gone.includes(GAP) ? 1 : 0) + hidden.chars;
  const lines = gone.split('\n').length - 1 + hidden.lineBreaks;
  const note = `[… ${chars.toLocaleString('en-US')} characters${lines > 0 ? `, ${lines.toLocaleString('en-US')} line breaks` : ''} cut here …]`;
  // The gap lies inside every cut (the windows are larger than any level keeps); never show it.
  return `${text.slice(0, head)}\n${note}\n${text.slice(tail)}`.replaceAll(GAP, '[…]');
}

function prepare(m: Message, n: number, names: Map<string, string>): Prepared {
  const role = typeof m.role === 'string' && m.role ? m.role : 'unknown';
  const pieces: Prepared['pieces'] = [];
  let header = `#${n} ${role}`;
  if (role === 'tool') {
    const name = toolNameOf(m, names);
    if (name) header += ` ${name}`;
    header += ' (output)';
    pieces.push({
      kind: 'toolOutputChars',
      prefix: '',
      text: toolText(contentText(m.content)),
      hidden: NOTHING_HIDDEN,
    });
  } else {
    const text = contentText(m.content);
    if (text) pieces.push({ kind: 'textChars', prefix: '', text, hidden: NOTHING_HIDDEN });
    for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
      const fn = isCall(call) ? call.function : undefined;
      const name = typeof fn?.name === 'string' && fn.name ? fn.name : 'unnamed tool';
      const args =
        typeof fn?.arguments === 'string' ? fn.arguments : fn?.arguments === undefined ? '' : safeJson(fn.arguments);
      pieces.push({ kind: 'argsChars', prefix: `→ calls ${name} `, text: args, hidden: NOTHING_HIDDEN });
    }
  }
  return { header: `${header}:`, pieces };
}

function block(p: Prepared, limits: RenderLimits): string {
  const lines = [p.header];
  for (const piece of p.pieces) lines.push(piece.prefix + cutMiddle(piece.text, limits[piece.kind], piece.hidden));
  if (p.pieces.length === 0) lines.push('(empty)');
  return lines.join('\n');
}

/** Keeps blocks from both ends (the start names the work, the end its outcome) until the budget is met. */
function leaveOutMiddle(blocks: string[], budgetChars: number): { text: string; omitted: number } {
  const head: string[] = [];
  const tail: string[] = [];
  let used = 0;
  let lo = 0;
  let hi = blocks.length - 1;
  let fromEnd = true;
  while (lo <= hi) {
    const next = (fromEnd ? blocks[hi] : blocks[lo]) as string;
    if (used + next.length + 2 > budgetChars) break;
    used += next.length + 2;
    if (fromEnd) tail.unshift(blocks[hi--] as string);
    else head.push(blocks[lo++] as string);
    fromEnd = !fromEnd;
  }
  const omitted = hi - lo + 1;
  if (omitted <= 0) return { text: blocks.join('\n\n'), omitted: 0 };
  const note = `[… messages #${lo + 1}–#${hi + 1} (${omitted}) left out here to keep this request within its size limit …]`;
  return { text: [...head, note, ...tail].join('\n\n'), omitted };
}

/** The text of a message's content: strings as they are, text parts joined, other parts named. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => {
        if (typeof part === 'string') return part;
        if (part && typeof part === 'object') {
          const rec = part as Record<string, unknown>;
          if (typeof rec.text === 'string') return rec.text;
          const type = typeof rec.type === 'string' ? rec.type : 'non-text';
          return /image/.test(type) ? '[image]' : `[${type} part]`;
        }
        return safeJson(part);
      })
      .join('\n');
  }
  return safeJson(content);
}

/** Largest JSON envelope unwrapped (bigger ones are shown as they are, then cut). */
const MAX_ENVELOPE_CHARS = 2_000_000;

/**
 * A tool output as a person would read it: a JSON envelope (Hermes' `{"output": …, "exit_code": 1}`)
 * becomes its short fields on one line, then its main text with real line breaks; search matches
 * one per line. Anything else stays as it is.
 */
export function toolText(content: string): string {
  if (!content.startsWith('{') || content.length > MAX_ENVELOPE_CHARS) return content;
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    return content;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return content;
  const rec = json as Record<string, unknown>;
  const field = mainTextField(rec);
  const matches = Array.isArray(rec.matches) ? rec.matches : undefined;
  if (!field && !matches) return content;
  const facts = Object.entries(rec)
    .filter(
      ([k, v]) =>
        k !== field &&
        k !== 'matches' &&
        v !== null &&
        v !== '' &&
        (typeof v !== 'string' || v.length <= 200) &&
        typeof v !== 'object',
    )
    .map(([k, v]) => `${k}: ${String(v)}`);
  const body = field ? (rec[field] as string) : (matches ?? []).map(matchLine).join('\n');
  return facts.length > 0 ? `(${facts.join(', ')})\n${body}` : body;
}

/** Tool names by call id, from the assistant messages' tool calls. */
function toolNames(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) {
    for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
      if (isCall(call) && typeof call.id === 'string' && typeof call.function?.name === 'string')
        names.set(call.id, call.function.name);
    }
  }
  return names;
}

function toolNameOf(m: Message, names: Map<string, string>): string {
  if (typeof m.name === 'string' && m.name) return m.name;
  if (typeof m.tool_name === 'string' && m.tool_name) return m.tool_name;
  return typeof m.tool_call_id === 'string' ? (names.get(m.tool_call_id) ?? '') : '';
}

function isCall(value: unknown): value is ToolCall {
  return typeof value === 'object' && value !== null;
}

const NOTHING_HIDDEN: Hidden = { chars: 0, lineBreaks: 0 };

/** Head and tail of a long text, joined by GAP, cut at whitespace; what went is counted. */
function windowed(text: string): { text: string; hidden: Hidden } {
  if (text.length <= WINDOW_HEAD_CHARS + WINDOW_TAIL_CHARS) return { text, hidden: NOTHING_HIDDEN };
  const headEnd = Math.max(text.lastIndexOf('\n', WINDOW_HEAD_CHARS), text.lastIndexOf(' ', WINDOW_HEAD_CHARS), 0);
  const from = text.length - WINDOW_TAIL_CHARS;
  const tailStart = Math.min(
    ...[text.indexOf('\n', from), text.indexOf(' ', from)].filter((i) => i !== -1),
    text.length,
  );
  const gone = text.slice(headEnd, tailStart);
  let lineBreaks = 0;
  for (let i = gone.indexOf('\n'); i !== -1; i = gone.indexOf('\n', i + 1)) lineBreaks++;
  return {
    text: `${text.slice(0, headEnd)}${GAP}${text.slice(tailStart)}`,
    hidden: { chars: gone.length, lineBreaks },
  };
}

function total(blocks: string[]): number {
  return blocks.reduce((n, b) => n + b.length + 2, 0);
}

/** Moves a cut off the middle of a surrogate pair. */
function notInsidePair(text: string, i: number): number {
  const code = text.charCodeAt(i);
  return code >= 0xdc00 && code <= 0xdfff ? i - 1 : i;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
