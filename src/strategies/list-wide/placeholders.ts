/**
 * The one-line texts that stand in for removed tool outputs (dedup and error purge), in the
 * original's wording where it was right (reference §5.2) and honest where it was not (§14 D9):
 * a content duplicate does not claim "same args", and the error placeholder gives the real age
 * and keeps the line that says why the call failed.
 *
 * Invariant: a placeholder never hides THAT a call failed, and in the detailed style keeps WHY
 * when one short line says it (DESIGN §4.1). Whether a placeholder is shorter than what it
 * replaces is the engine's check (§4.3).
 */
import { reportsFailure } from '../shared/signals.js';
import { parseJsonObjectText } from '../shared/json-object.js';

export type PlaceholderStyle = 'detailed' | 'minimal';

/** A reason longer than this is cut (with "…"): the placeholder must stay a one-liner. */
export const MAX_REASON_CHARS = 160;

/** Lines that say a failure happened but not what it was. */
const BOILERPLATE =
  /^(?:Traceback \(most recent call last\):?|During handling of the above exception.*|The above exception was the direct cause.*|at \S.*|File ".*", line \d+.*|[=\-_*#~ ]+|[=\-_*#~]{3,}.*[=\-_*#~]{3,}|npm ERR! A complete log.*|npm ERR! +\/.*)$/;
/** Python/Java/JS exception lines: `ModuleNotFoundError: No module named 'x'`, `java.io.IOException: …`. */
const EXCEPTION_LINE = /^[\w.$]*(?:Error|Exception|Exit|Interrupt)(?::\s.*)?$/;

function cut(line: string): string {
  const points = Array.from(line);
  return points.length <= MAX_REASON_CHARS ? line : `${points.slice(0, MAX_REASON_CHARS - 1).join('')}…`;
}

/** Envelope fields that carry a tool's words, most telling first (DESIGN §5: Hermes tools answer JSON). */
const ENVELOPE_FIELDS = ['error', 'stderr', 'output', 'content', 'message', 'result', 'stdout'] as const;
/** Envelopes larger than this are read line by line as they are, rather than parsed. */
const MAX_ENVELOPE_CHARS = 1_000_000;

/**
 * The texts inside a JSON envelope (`{"output": "...", "exit_code": 1, "error": null}`), whose
 * newlines are escaped so the raw envelope is one long line; null when the text is no envelope.
 */
function envelopeTexts(text: string): { texts: string[]; exitCode: number | null } | null {
  const record = parseJsonObjectText(text, MAX_ENVELOPE_CHARS);
  if (record === null) return null;
  const texts = ENVELOPE_FIELDS.map((k) => record[k]).filter(
    (v): v is string => typeof v === 'string' && v.trim() !== '',
  );
  const code = record.exit_code ?? record.returncode ?? record.exitCode;
  return { texts, exitCode: typeof code === 'number' && code !== 0 ? code : null };
}

/**
 * The line that best says why a call failed: the last exception line of a traceback (Python
 * prints the cause last), else the first line that reports a failure. Null when none does.
 * A JSON envelope is read field by field (its `error` first), then its exit code.
 */
export function failureReason(text: string): string | null {
  const inner = envelopeTexts(text);
  if (inner !== null) {
    for (const t of inner.texts) {
      const reason = reasonInLines(t);
      if (reason !== null) return reason;
    }
    // The words say nothing, but a non-zero exit code is still the why.
    return inner.exitCode === null ? null : `exit code ${inner.exitCode}`;
  }
  return reasonInLines(text);
}

function reasonInLines(text: string): string | null {
  let first: string | null = null;
  let exception: string | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || BOILERPLATE.test(line)) continue;
    if (EXCEPTION_LINE.test(line)) exception = line;
    else if (first === null && reportsFailure(line)) first = line;
  }
  const chosen = exception ?? first;
  return chosen === null ? null : cut(chosen);
}

/** What the dedup placeholder needs to know. */
export interface DedupInfo {
  tool: string;
  /** Size of the group, the kept output included. */
  count: number;
  by: 'args' | 'content';
}

/** `[Output removed — read_file called 3× with same args, showing last result only]` (U+2014, U+00D7). */
export function dedupPlaceholder(info: DedupInfo, style: PlaceholderStyle = 'detailed'): string {
  if (style === 'minimal') return '[output removed: duplicate]';
  const tool = info.tool === '' ? 'tool' : info.tool;
  if (info.by === 'content') {
    return `[Output removed — same output as a later ${tool} call (${info.count} alike), showing last result only]`;
  }
  return `[Output removed — ${tool} called ${info.count}× with same args, showing last result only]`;
}

/** What the error placeholder needs to know. */
export interface ErrorInfo {
  tool: string;
  /** User turns since the failure. */
  age: number;
  /** The failed output's text, to keep its reason; omit when unknown. */
  text?: string | null;
}

/** `[Error output removed - terminal failed 5 turns ago: ModuleNotFoundError: No module named 'x']`. */
export function errorPlaceholder(info: ErrorInfo, style: PlaceholderStyle = 'detailed'): string {
  if (style === 'minimal') return '[error output removed]';
  const tool = info.tool === '' ? 'tool' : info.tool;
  const age = `${info.age} turn${info.age === 1 ? '' : 's'} ago`;
  const reason = typeof info.text === 'string' ? failureReason(info.text) : null;
  return `[Error output removed - ${tool} failed ${age}${reason === null ? '' : `: ${reason}`}]`;
}

/** `lines 40-51`, `lines 40 to the end`, or `the whole file`. */
function spanText(span: { first: number; last: number }): string {
  if (span.first <= 1 && !Number.isFinite(span.last)) return 'the whole file';
  if (!Number.isFinite(span.last)) return `lines ${span.first} to the end`;
  return `lines ${span.first}-${span.last}`;
}

/** What the stale-read marker needs to know. */
export interface StaleReadInfo {
  path: string;
  span: { first: number; last: number };
  /** The tool that read it (to read it again with). */
  tool: string;
  by: 'read' | 'write' | 'patch';
  /** The call id of the newer read, write or patch. */
  byCall: string;
}

/**
 * `[Earlier read of src/app.ts (lines 1-400): superseded by the later read in call c7]`, or, after
 * a write or patch, where the change is and how to read the current text.
 */
export function staleReadPlaceholder(info: StaleReadInfo, style: PlaceholderStyle = 'detailed'): string {
  if (style === 'minimal') return `[stale read: ${info.path}]`;
  const what = `Earlier read of ${info.path} (${spanText(info.span)})`;
  const call = info.byCall ? ` in call ${info.byCall}` : '';
  if (info.by === 'read') return `[${what}: superseded by the later read${call}]`;
  const change = info.by === 'write' ? 'rewritten' : 'patched';
  return `[${what}: out of date, the file was ${change} later${call}; read it again with ${info.tool || 'the read tool'} for its current text]`;
}

/** What the clearing marker needs to know. */
export interface ClearedInfo {
  tool: string;
  /** For a file read: its path and lines (read it again to recover). */
  read?: { path: string; span: { first: number; last: number } };
  /** For anything else: the recall id that gives it back. */
  recall?: string;
  /** The failed output's text, so the marker keeps why it failed. */
  failedText?: string;
}

/**
 * `[Output of terminal cleared to save context (recall id=r0123456789)]`; a failed output keeps its
 * reason; a file read says how to read it again.
 */
export function clearedPlaceholder(info: ClearedInfo, style: PlaceholderStyle = 'detailed'): string {
  const tool = info.tool === '' ? 'tool' : info.tool;
  const recall = info.recall ? ` (recall id=${info.recall})` : '';
  if (info.read) {
    if (style === 'minimal') return `[cleared: ${info.read.path}]`;
    return `[Earlier read of ${info.read.path} (${spanText(info.read.span)}) cleared to save context; read it again with ${tool} if needed]`;
  }
  if (style === 'minimal') return `[output cleared${recall}]`;
  if (info.failedText !== undefined) {
    const reason = failureReason(info.failedText);
    return `[Error output of ${tool} cleared to save context${reason === null ? '' : `: ${reason}`}${recall}]`;
  }
  return `[Output of ${tool} cleared to save context${recall}]`;
}

/** `[Same output as the earlier terminal call c3 (recall id=r0123456789)]`: a new exact repeat. */
export function repeatPlaceholder(
  info: { tool: string; sourceCall: string; recall?: string },
  style: PlaceholderStyle = 'detailed',
): string {
  const recall = info.recall ? ` (recall id=${info.recall})` : '';
  if (style === 'minimal') return `[same output as call ${info.sourceCall}${recall}]`;
  return `[Same output as the earlier ${info.tool === '' ? 'tool' : info.tool} call ${info.sourceCall}${recall}]`;
}
