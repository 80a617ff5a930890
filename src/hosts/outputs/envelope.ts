/**
 * Reads a tool result the way real tools shape it (DESIGN §5) and gives strategies the text inside:
 * Hermes' JSON envelopes (`terminal` → `output`, `read_file` → `content` with `N|` gutters,
 * `search_files` → `matches`), other agents' gutters (`   N→`, SWE-agent `N:`), or plain text.
 * Putting a result back keeps the envelope valid JSON and every byte outside the replaced field.
 *
 * Invariant: parsing never throws; anything not understood is plain text of kind 'text'.
 */
import { toolKind } from '../index.js';
import { mainTextField, matchLine } from './envelope-fields.js';
import type { NumberedBlock, ReadInfo } from './file-reads.js';
import { fileLinesOf, headerPath, isEditTool, numberedBlock, toolRead } from './file-reads.js';
import { isPlainTextPath, looksLikeLog } from './log-text.js';
import { shellRead } from './shell-reads.js';
import { replaceField, topLevelFields, type FieldSpan } from './json-fields.js';
import { commandOf, isSearchCommand } from './shell-command.js';
import type { LinePlanItem, OutputKind, ToolOutput } from '../../core/strategy.js';

/** A parsed tool result: what strategies see, and how to put a changed text back. */
export interface Envelope {
  output: ToolOutput;
  /** The main text's lines as the tool wrote them (gutters kept): what marker line numbers count. */
  rawLines: readonly string[];
  /** Builds the result with the main text replaced by `text`. */
  withText(text: string): string;
  /** Builds the result keeping the planned lines (with their original gutters) and markers. */
  withPlan(plan: readonly LinePlanItem[]): string;
  /** Builds a result standing for the whole output (placeholders): the envelope's scalars kept. */
  withPlaceholder(text: string): string;
}

export interface CallInfo {
  tool: string;
  args: unknown;
  /** The host's failure flag (Hermes `status: "error"`, an `is_error` field). */
  hostError?: boolean;
}

/** Parses tool-call arguments given as an object or a JSON string; `{}` when neither. */
export function parseArgs(args: unknown): Record<string, unknown> {
  if (isRecord(args)) return args;
  if (typeof args === 'string' && args.trim().startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(args);
      if (isRecord(parsed)) return parsed;
    } catch {
      // Not JSON: treat as no arguments.
    }
  }
  return {};
}

export function parseEnvelope(content: string, call: CallInfo): Envelope {
  const args = parseArgs(call.args);
  const tool = call.tool;
  const fields = content.length > 1 && content.trimStart().startsWith('{') ? topLevelFields(content) : null;
  if (fields) {
    const json = parseJsonObject(content);
    if (json) return jsonEnvelope(content, json, fields, tool, args, call.hostError === true);
  }
  return textEnvelope(content, content, tool, args, call.hostError === true, (text) => text);
}

/**
 * How to put a placeholder inside this result's envelope, without reading the rest of it (no line
 * splitting, no gutters): for long conversations that re-word placeholders as groups grow.
 */
export function placeholderBuilder(content: string): (text: string) => string {
  const fields = content.length > 1 && content.trimStart().startsWith('{') ? topLevelFields(content) : null;
  const json = fields ? parseJsonObject(content) : null;
  if (!fields || !json) return (text) => text;
  const field = mainTextField(json, (name) => fields.has(name));
  if (field !== undefined) {
    const span = fields.get(field) as FieldSpan;
    return (text) => replaceField(content, span, text);
  }
  const matches = fields.get('matches');
  if (Array.isArray(json.matches) && matches) return (text) => replaceField(content, matches, [{ omitted: text }]);
  return (text) => text;
}

function jsonEnvelope(
  content: string,
  json: Record<string, unknown>,
  fields: Map<string, FieldSpan>,
  tool: string,
  args: Record<string, unknown>,
  hostError: boolean,
): Envelope {
  const isError = hostError || jsonSignalsError(json);
  const field = mainTextField(json, (name) => fields.has(name));
  if (field !== undefined) {
    const span = fields.get(field) as FieldSpan;
    const inner = json[field] as string;
    // Hermes read_file says `truncated: true` when the file goes on past the page shown.
    const env = textEnvelope(
      content,
      inner,
      tool,
      args,
      isError,
      (text) => replaceField(content, span, text),
      json.truncated === true,
    );
    return { ...env, withPlaceholder: (text) => replaceField(content, span, text) };
  }
  const matches = json.matches;
  if (Array.isArray(matches) && fields.has('matches'))
    return searchEnvelope(content, fields.get('matches') as FieldSpan, matches, tool, args, isError);
  // A JSON result with no main text field (e.g. {"status": "ok"}): strategies see it whole. A read
  // of a JSON file (`cat package.json`) is that file, and stays a read (never cut as text).
  const env = textEnvelope(content, content, tool, args, isError, (text) => text);
  return env.output.kind === 'file' ? env : { ...env, output: { ...env.output, kind: 'text' } };
}

/** search_files: each match is a line; a plan keeps chosen matches and turns gaps into notes. */
function searchEnvelope(
  content: string,
  span: FieldSpan,
  matches: unknown[],
  tool: string,
  args: Record<string, unknown>,
  isError: boolean,
): Envelope {
  const lines = matches.map(matchLine);
  const output: ToolOutput = { tool, args, text: lines.join('\n'), lines, kind: 'search', isError };
  return {
    output,
    rawLines: lines,
    withText: (text) => text,
    withPlan: (plan) =>
      replaceField(
        content,
        span,
        plan.map((item) => (typeof item === 'number' ? matches[item] : { omitted: item.marker })),
      ),
    withPlaceholder: (text) => replaceField(content, span, [{ omitted: text }]),
  };
}

function textEnvelope(
  content: string,
  text: string,
  tool: string,
  args: Record<string, unknown>,
  isError: boolean,
  put: (text: string) => string,
  truncated = false,
): Envelope {
  const rawLines = text.split('\n');
  const block = numberedBlock(rawLines);
  const { kind, path, read } = classify(tool, args, rawLines, block);
  const fileLines = read ? fileLinesOf(rawLines, block, truncated ? { ...read, openEnd: true } : read) : null;
  // Gutters come off inside a file read's numbered block, or where one block numbers nearly everything.
  const numbered =
    block !== null && ((fileLines !== null && fileLines.start === block.start) || coversMost(rawLines, block))
      ? block
      : null;
  const lines = numbered
    ? rawLines.map((line, i) => (i >= numbered.start && i < numbered.end ? line.slice(numbered.widths[i] ?? 0) : line))
    : rawLines;
  const output: ToolOutput = {
    tool,
    args,
    text: numbered ? lines.join('\n') : text,
    lines,
    kind,
    isError,
    ...(path !== undefined ? { path } : {}),
    ...(fileLines !== null ? { fileLines } : {}),
  };
  const crlf = text.includes('\r\n');
  return {
    output,
    rawLines,
    withText: (next) => (next === output.text ? content : put(next)),
    withPlan: (plan) => put(renderPlan(plan, rawLines, crlf)),
    withPlaceholder: (next) => put(next),
  };
}

/** Kept lines come back byte-exact with their gutters (the raw lines); markers get the input's line ending. */
function renderPlan(plan: readonly LinePlanItem[], rawLines: readonly string[], crlf: boolean): string {
  const out: string[] = [];
  for (const item of plan) {
    if (typeof item === 'number') out.push(rawLines[item] as string);
    else out.push(crlf ? `${item.marker}\r` : item.marker);
  }
  // A CRLF text's last line has no \r; a marker standing last must not invent one.
  const last = out.length - 1;
  if (crlf && last >= 0 && typeof plan[last] !== 'number') out[last] = (out[last] as string).replace(/\r$/, '');
  return out.join('\n');
}

/** A numbered block counts for any output when it numbers at least 90% of the non-empty lines. */
function coversMost(lines: readonly string[], block: NumberedBlock): boolean {
  let nonEmpty = 0;
  for (const line of lines) if (line.length > 0) nonEmpty++;
  return (block.end - block.start) / Math.max(nonEmpty, 1) >= 0.9;
}

interface Classified {
  kind: OutputKind;
  path?: string;
  /** For a file read: what it says about the lines shown (file-reads.ts). */
  read?: ReadInfo;
}

function classify(
  tool: string,
  args: Record<string, unknown>,
  lines: readonly string[],
  block: NumberedBlock | null,
): Classified {
  const kind = toolKind(tool);
  const command = args.command ?? args.cmd;
  if (kind === 'search') return { kind: 'search' };
  const byTool = toolRead(tool, args, lines, block);
  if (byTool) return { kind: 'file', ...(byTool.path !== undefined ? { path: byTool.path } : {}), read: byTool };
  // An edit's echo of the file (SWE-agent edit, Claude Code Edit) is kept whole: the agent checks its change there.
  if (isEditTool(tool)) return block !== null || headerPath(lines) !== undefined ? { kind: 'file' } : { kind: 'text' };
  const byShell = command !== undefined ? shellRead(command) : null;
  // `cat logs/run.txt` printing a log is that log (log-text.ts), not a file the agent studies.
  const printedLog =
    byShell !== null &&
    byShell.path !== undefined &&
    isPlainTextPath(byShell.path) &&
    looksLikeLog(lines, byShell.path);
  if (byShell && !printedLog)
    return { kind: 'file', ...(byShell.path !== undefined ? { path: byShell.path } : {}), read: byShell };
  // grep, find, ls… through any shell-like tool (Codex's argv, `bash -lc`, `cd x && rg`): a listing, never cut like a log.
  if (isSearchCommand(commandOf(args))) return { kind: 'search' };
  const swePath = headerPath(lines);
  if (kind === 'shell') {
    // SWE-agent's `open` run through its shell prints a numbered window under a [File: …] header.
    if (swePath !== undefined && typeof command === 'string' && /^\s*open\b/.test(command))
      return { kind: 'file', path: swePath, read: { path: swePath, firstLine: null, openEnd: false } };
    return { kind: 'log' };
  }
  if (swePath !== undefined)
    return { kind: 'file', path: swePath, read: { path: swePath, firstLine: null, openEnd: false } };
  return { kind: 'text' };
}

/** A JSON envelope signals failure by a non-zero exit code, an error value, or success: false. */
function jsonSignalsError(json: Record<string, unknown>): boolean {
  const exit = json.exit_code ?? json.exitCode ?? json.returncode;
  if (typeof exit === 'number' && exit !== 0) return true;
  const error = json.error;
  if (typeof error === 'string' ? error.trim().length > 0 : error !== null && error !== undefined && error !== false)
    return true;
  if (json.success === false) return true;
  if (typeof json.status === 'string' && /^(error|failed|failure)$/i.test(json.status)) return true;
  return false;
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
