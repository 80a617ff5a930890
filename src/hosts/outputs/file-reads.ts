/**
 * Which tool results are file reads, and where the file's own lines are inside them (DESIGN §5):
 * a numbered block (`12|`, `    12→`, `12:`, `    12\t`, `00012| `) between a tool's header and
 * trailer (`[File: …]`, `(40 more lines below)`, Claude Code's `<system-reminder>` block…), or the
 * plain text of a shell read (`cat f`, `sed -n '40,80p' f`, `nl -ba f | sed -n …`) inside a
 * harness's wrapper (`<returncode>0</returncode>` / `<output>`, `Exit code: 0` / `Output:`).
 *
 * Rules, general rather than per tool:
 * - A tool whose name (after any MCP server prefix) is a read verb, alone or with a file noun
 *   (`Read`, `view`, `read_text_file`, `get_file_contents`, `read_many_files`), is a read; so is an
 *   editor tool called with `command: "view"` on a path, and any tool whose arguments name a file
 *   and whose output is mostly one consecutively numbered listing.
 * - A shell command is a read when it prints one file (shell-reads.ts).
 * - Never a read: a tool whose name says it writes, searches, lists, fetches or runs a browser.
 *
 * Invariant: pure and linear; a result this module does not recognise is simply not a read.
 */
import type { FileLines } from '../../core/strategy.js';

/** A consecutively numbered run of lines and the gutter that numbers them. */
export interface NumberedBlock {
  gutter: RegExp;
  start: number;
  end: number;
  first: number;
  /** Per line of the text: the length of its `gutter` match (0: none), measured once. */
  widths: Int32Array;
}

/** What a recognised read says about itself. */
export interface ReadInfo {
  /** The file read; undefined for a read of several files. */
  path?: string;
  /** The number of the first line shown when the output is not numbered (null: unknown). */
  firstLine: number | null;
  /** The read asked for a range that may stop before the file's end. */
  openEnd: boolean;
}

/** A gutter: its pattern, and the same by parts for the pass over every line (no match objects). */
export interface Gutter {
  re: RegExp;
  /** Spaces may come before the number. */
  spaces: boolean;
  /** The number has exactly this many digits (0: any, at least one). */
  digits: number;
  /** What follows the number. */
  after: string;
}

// Most specific first: OpenCode's zero-padded gutter carries a space the Hermes one does not.
export const GUTTERS: readonly Gutter[] = [
  { re: /^(\d{5})\| /, spaces: false, digits: 5, after: '| ' }, // OpenCode read: "00012| code"
  { re: /^ *(\d+)\|/, spaces: true, digits: 0, after: '|' }, // Hermes read_file: "12|code"
  { re: /^ *(\d+)\u2192/, spaces: true, digits: 0, after: '\u2192' }, // Claude Code Read: "    12→code"
  { re: /^(\d+):/, spaces: false, digits: 0, after: ':' }, // SWE-agent open: "12:code"
  { re: /^ *(\d+)\t/, spaces: true, digits: 0, after: '\t' }, // cat -n, nl -ba
];

/** The number of the last gutter `gutterAt` matched. */
let gutterNumber = -1;

/** The number in the gutter `gutterAt` matched last. */
export function lastGutterNumber(): number {
  return gutterNumber;
}

/** The length of `g`'s match at the start of `line` (0: none), as `g.re` matches; its number in `gutterNumber`. */
export function gutterAt(line: string, g: Gutter): number {
  // Every read stays inside the line: a look past its end makes V8 throw away its optimised code.
  const end = line.length;
  let i = 0;
  if (g.spaces) while (i < end && line.charCodeAt(i) === 32) i++;
  const from = i;
  let n = 0;
  for (; i < end; i++) {
    const c = line.charCodeAt(i);
    if (c < 48 || c > 57) break;
    n = n * 10 + (c - 48);
  }
  const digits = i - from;
  if (digits === 0 || (g.digits > 0 && digits !== g.digits) || !line.startsWith(g.after, i)) return 0;
  // Past 15 digits the sum may round differently from Number() of the text, which the pattern's match gave.
  gutterNumber = digits > 15 ? Number(line.slice(from, i)) : n;
  return i + g.after.length;
}

/** Any gutter at all: a quick test before the exact ones (most outputs have none). */
const ANY_GUTTER = /^ *\d+(?:\||\u2192|:|\t)/;

/** The longest run of at least 3 consecutively numbered lines, or null. */
export function numberedBlock(lines: readonly string[]): NumberedBlock | null {
  let best: NumberedBlock | null = null;
  const probe = Math.min(lines.length, 400);
  let any = 0;
  for (let i = 0; i < probe && any < 3; i++) if (ANY_GUTTER.test(lines[i] ?? '')) any++;
  if (any < 3) return null;
  for (const gutter of GUTTERS) {
    let hits = 0;
    for (let i = 0; i < probe && hits < 3; i++) if (gutterAt(lines[i] ?? '', gutter) > 0) hits++;
    if (hits < 3) continue;
    let start = -1;
    let prev = 0;
    const widths = new Int32Array(lines.length);
    const close = (end: number): void => {
      if (start >= 0 && end - start >= 3 && (best === null || end - start > best.end - best.start)) {
        best = { gutter: gutter.re, start, end, first: prev - (end - start - 1), widths };
      }
    };
    for (let i = 0; i < lines.length; i++) {
      const width = gutterAt(lines[i] ?? '', gutter);
      widths[i] = width;
      const n = width > 0 ? gutterNumber : -1;
      if (n >= 0 && start >= 0 && n === prev + 1) {
        prev = n;
        continue;
      }
      close(i);
      start = n >= 0 ? i : -1;
      prev = n;
    }
    close(lines.length);
    if (best !== null) return best;
  }
  return best;
}

/** Lines a tool or harness puts before a file's text. */
const HEADER_LINE = [
  /^\[File: .+\(\d+ lines total\)\]$/,
  /^\(\d+ more lines above\)$/,
  /^Here's the result of running `cat -n` on .+:$/,
  /^<returncode>-?\d+<\/returncode>$/,
  /^<output>$/,
  /^(?:Exit code|Process exited with code):? -?\d+$/,
  /^(?:Wall time|Chunk ID|Original token count|Total output lines): .+$/,
  /^Output:$/,
  /^<file>$/,
  /^<path>.*<\/path>$/,
  /^<type>file<\/type>$/,
  /^<content>$/,
  /^IMPORTANT: The file content has been truncated\.$/,
  /^Status: Showing lines \d+-\d+ of \d+ total lines\.$/,
  /^Action: To read more of the file, .+$/,
  /^--- FILE CONTENT \(truncated\) ---$/,
];

/** Lines a tool or harness puts after a file's text. */
const TRAILER_LINE = [
  /^\(\d+ more lines below\)$/,
  /^\(Open file: .+\)$/,
  /^\(Current directory: .+\)$/,
  /^bash-\$ ?$/,
  /^<\/output>$/,
  /^<\/file>$/,
  /^<\/content>$/,
  /^\(End of file - total \d+ lines\)$/,
  /^\(File has more lines\..*\)$/,
];

/** Trailers saying the file goes on past what was shown. */
const MORE_BELOW =
  /^\((?:[1-9]\d* more lines below|File has more lines\..*)\)$|^Status: Showing lines \d+-(\d+) of (\d+) total lines\.$/;
const SHOWING = /^Status: Showing lines (\d+)-(\d+) of (\d+) total lines\.$/;

/**
 * The file's lines inside a read's output: a numbered block when there is one (the gutter gives
 * the numbers), else the lines between the header and trailer lines the tool or harness adds,
 * numbered from `info.firstLine` (null when it is unknown).
 */
export function fileLinesOf(lines: readonly string[], block: NumberedBlock | null, info: ReadInfo): FileLines | null {
  const count = lines.length;
  let openEnd = info.openEnd;
  for (let i = 0; i < count && i < 12; i++)
    if (MORE_BELOW.test(lines[i] ?? '') && moreBelow(lines[i] ?? '')) openEnd = true;
  for (let i = Math.max(0, count - 12); i < count; i++)
    if (MORE_BELOW.test(lines[i] ?? '') && moreBelow(lines[i] ?? '')) openEnd = true;
  if (block !== null) return { start: block.start, end: block.end, first: block.first, openEnd };
  // The header ends after its last header line; blank lines after it belong to the file.
  let start = 0;
  let first = info.firstLine;
  for (let i = 0; i < count && i < 12; i++) {
    const line = (lines[i] ?? '').replace(/\r$/, '');
    if (HEADER_LINE.some((re) => re.test(line))) {
      const showing = SHOWING.exec(line);
      if (showing) first = Number(showing[1]);
      start = i + 1;
    } else if (line.trim() !== '') break;
  }
  const end = trailerStart(lines, start, count);
  if (first === null || end - start < 1) return null;
  // Numbered lines without a consecutive block: the numbering is not understood, so not known.
  for (let i = start; i < Math.min(end, start + 5); i++)
    if (GUTTERS.some((g) => g.re.test(lines[i] ?? ''))) return null;
  return { start, end, first, openEnd };
}

function moreBelow(line: string): boolean {
  const showing = SHOWING.exec(line);
  return showing === null || Number(showing[2]) < Number(showing[3]);
}

/**
 * Where the trailer begins: at its first trailer line (or `<system-reminder>` block), with blank
 * lines among and after them; blank lines before it belong to the file.
 */
function trailerStart(lines: readonly string[], start: number, end: number): number {
  let e = end;
  for (let i = end - 1; i >= start && i >= end - 40; i--) {
    const line = (lines[i] ?? '').replace(/\r$/, '');
    if (TRAILER_LINE.some((re) => re.test(line))) {
      e = i;
      continue;
    }
    if (line.trim() === '') continue;
    if (line.trim() === '</system-reminder>') {
      let open = i;
      while (open > start && !(lines[open] ?? '').trimStart().startsWith('<system-reminder>')) open--;
      if (open <= start) break;
      e = open;
      i = open;
      continue;
    }
    break;
  }
  return e;
}

/** Words in tool names: a read verb, nouns that name files, and words that rule a read out. */
const READ_VERBS = new Set(['read', 'view', 'open', 'cat']);
const SOFT_VERBS = new Set(['get', 'show', 'fetch', 'load']);
const FILE_NOUNS = new Set(['file', 'files', 'text', 'content', 'contents', 'source', 'many', 'multiple', 'fs']);
const NOT_A_READ = new Set([
  'write',
  'edit',
  'patch',
  'create',
  'insert',
  'replace',
  'apply',
  'delete',
  'remove',
  'move',
  'rename',
  'search',
  'grep',
  'glob',
  'find',
  'list',
  'ls',
  'dir',
  'directory',
  'tree',
  'url',
  'web',
  'http',
  'page',
  'browser',
  'image',
  'log',
  'logs',
]);

/** Tool arguments that name the file read. */
const PATH_KEYS = [
  'path',
  'file_path',
  'filePath',
  'filename',
  'file',
  'target_file',
  'filepath',
  'absolute_path',
  'relative_path',
  'uri',
];
/** Tool arguments that ask for part of a file. */
const RANGE_KEYS = [
  'offset',
  'limit',
  'start_line',
  'end_line',
  'startLine',
  'endLine',
  'line',
  'line_number',
  'lineNumber',
  'view_range',
  'lines',
  'start',
  'end',
];
const EDITOR_ACTION_KEYS = ['command', 'action', 'operation', 'mode'];

/** Words of tool names seen, by name (a session uses a handful of tools, each called many times). */
const WORDS_CACHE = new Map<string, readonly string[]>();

/** The words of a tool name after its MCP server prefix (`mcp__fs__read_text_file` → read, text, file). */
export function toolWords(tool: string): readonly string[] {
  const hit = WORDS_CACHE.get(tool);
  if (hit !== undefined) return hit;
  const last =
    tool
      .split(/__|[./:]/)
      .filter((s) => s.length > 0)
      .pop() ?? '';
  const words = last
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[_\-\s]+/)
    .filter((w) => w.length > 0);
  if (WORDS_CACHE.size > 500) WORDS_CACHE.clear();
  WORDS_CACHE.set(tool, words);
  return words;
}

/** A tool whose name is a read verb, alone or with file nouns (`read`, `read_file`, `get_file_contents`). */
function isReadName(words: readonly string[]): boolean {
  if (words.length === 0) return false;
  let verb = false;
  let soft = false;
  let noun = false;
  for (const w of words) {
    if (READ_VERBS.has(w)) verb = true;
    else if (SOFT_VERBS.has(w)) soft = true;
    else if (FILE_NOUNS.has(w)) noun = true;
    else return false;
  }
  return verb || (soft && noun);
}

/** The path a tool call's arguments name, if any (`file://` stripped). */
export function argPath(args: Record<string, unknown>): string | undefined {
  for (const key of PATH_KEYS) {
    const value = args[key];
    if (typeof value === 'string' && value.trim().length > 0) return value.replace(/^file:\/\//, '');
  }
  return undefined;
}

function asksForRange(args: Record<string, unknown>): boolean {
  return RANGE_KEYS.some((key) => args[key] !== undefined && args[key] !== null);
}

const SWE_FILE_HEADER = /^\[File: (.+?) \(\d+ lines total\)\]/;

/** The path SWE-agent's `[File: path (N lines total)]` header names, if the output starts with one. */
export function headerPath(lines: readonly string[]): string | undefined {
  const head = lines[0];
  return head === undefined ? undefined : SWE_FILE_HEADER.exec(head)?.[1];
}

/** True for a tool whose name says it changes files (its output may echo them, but is no read). */
export function isEditTool(tool: string): boolean {
  return toolWords(tool).some((w) => EDIT_WORDS.has(w));
}

const EDIT_WORDS = new Set([
  'write',
  'edit',
  'patch',
  'create',
  'insert',
  'replace',
  'apply',
  'delete',
  'remove',
  'move',
  'rename',
  'undo',
]);

/**
 * A read by a tool (not a shell): by its name, by an editor's `view` command, or by arguments that
 * name a file and an output that is mostly one numbered listing. Null when it is not one.
 */
export function toolRead(
  tool: string,
  args: Record<string, unknown>,
  lines: readonly string[],
  block: NumberedBlock | null,
): ReadInfo | null {
  const words = toolWords(tool);
  const path = argPath(args) ?? headerPath(lines);
  const ranged = asksForRange(args);
  const info = (p: string | undefined): ReadInfo => ({
    ...(p !== undefined ? { path: p } : {}),
    firstLine: ranged ? null : 1,
    openEnd: ranged,
  });
  if (isReadName(words)) {
    if (path !== undefined) return info(path);
    const paths = args.paths ?? args.file_paths ?? args.files;
    if (Array.isArray(paths)) return { firstLine: null, openEnd: false };
    return null;
  }
  if (path === undefined) return null;
  // An editor's view command (str_replace_editor, text_editor…) on a file, or a numbered listing of one.
  const action = EDITOR_ACTION_KEYS.map((k) => args[k]).find((v) => typeof v === 'string');
  if (typeof action === 'string' && /^(?:view|read|open|cat)$/i.test(action) && (block !== null || hasExtension(path)))
    return info(path);
  if (words.some((w) => NOT_A_READ.has(w))) return null;
  return block !== null && mostlyNumbered(lines, block) ? info(path) : null;
}

function hasExtension(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.lastIndexOf('.') > 0;
}

/** The numbered block holds at least half the output's non-empty lines. */
function mostlyNumbered(lines: readonly string[], block: NumberedBlock): boolean {
  let nonEmpty = 0;
  for (const line of lines) if (line.trim() !== '') nonEmpty++;
  return (block.end - block.start) * 2 >= nonEmpty;
}
