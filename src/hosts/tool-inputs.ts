/**
 * What a tool call's arguments carry when the call writes files: which files, and which arguments
 * are the bulk (a file's whole content, an edit's old and new text, a patch, a shell command
 * carrying a here-document). Read from the tool vocabulary (tools.ts) for every host HMC knows:
 * Hermes `write_file`/`patch`, Claude Code `Write`/`Edit`/`MultiEdit`, Codex `apply_patch` and
 * shell here-documents, OpenCode, Gemini CLI, SWE-agent's `edit`/`create`/`insert` and editor
 * tool, mini-swe-agent's `bash` here-documents.
 *
 * Invariant: unsure means null. A call is described only when its tool is a known write, edit or
 * editor tool, or a shell command whose here-document provably writes a file (shell-writes.ts);
 * a path or size is reported only as the arguments state it.
 */
import { toolKind } from './index.js';
import { commandOf } from './outputs/shell-command.js';
import { heredocWrites, lineCount } from './shell-writes.js';

/** Argument keys that name the file a tool works on, across hosts. */
export const PATH_KEYS = [
  'path',
  'file_path',
  'filename',
  'file',
  'target_file',
  'filepath',
  'absolute_path',
  'notebook_path',
];

/** An argument shorter than this (characters of its JSON) is never bulk: a flag, a mode, a line number. */
const BULK_MIN_CHARS = 64;

const PATCH_HEADER = /^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$/gm;
const DIFF_HEADER = /^\+\+\+ (?:b\/)?([^\s]+)/gm;

/** One argument whose value is bulk, with its size as the model sees it. */
export interface BulkArgument {
  key: string;
  /** Lines of a text value (a list or object: its items). */
  lines: number;
  /** Characters of the value as written in the arguments (a text's own length, else its JSON's). */
  chars: number;
  /** A list's items (MultiEdit's edits), when the value is a list. */
  items?: number;
}

/** A call that writes files, as its arguments say (or, from `bulkInputOf`, any call with bulky arguments). */
export interface FileInput {
  /**
   * `write`: whole files; `edit`: part of a file (an edit, a patch); `shell`: a command writing
   * files by here-document; from `bulkInputOf` only: `command`, a shell command that writes no
   * file (`python -c`, a pipeline, SQL); `agent`, a subagent's prompt; `other`, any other tool.
   */
  kind: 'write' | 'edit' | 'shell' | 'command' | 'agent' | 'other';
  /** The files it writes, as the arguments name them (none known: SWE-agent edits the file it has open). */
  paths: string[];
  /** The arguments that are bulk, in their order. */
  bulk: BulkArgument[];
  /** A shell command: what it runs besides the documents, the bodies left out (`cat > t.py << 'EOF' … EOF && python t.py`). */
  outline?: string;
  /** A shell command: each file written and its lines and characters. */
  writes?: { path: string; lines: number; chars: number }[];
}

/** The file input of one call (`args` parsed), or null when the call writes no file by its arguments. */
export function fileInputOf(tool: string, args: Readonly<Record<string, unknown>>): FileInput | null {
  const kind = toolKind(tool);
  if (kind === 'write' || kind === 'edit') return fromFileTool(kind, args);
  if (kind === 'editor') {
    const command = typeof args.command === 'string' ? args.command : '';
    if (command === 'create') return fromFileTool('write', args);
    if (command === 'str_replace' || command === 'insert') return fromFileTool('edit', args);
    return null;
  }
  if (kind === 'shell') return fromShell(args);
  return null;
}

/** Tools whose arguments are never shortened: HMC's own (what it is asked is small, and exactly as made). */
const OWN_TOOLS = new Set(['hmc_control']);
/** An outline (a command's or a prompt's first line) is cut to this many characters. */
const OUTLINE_CHARS = 160;

/**
 * The bulky arguments of a call (issue 25): a file write or edit as `fileInputOf` says; else a
 * shell command that writes no file (a long inline script, a pipeline, a query: `command`), a
 * subagent's prompt (`agent`), or any other tool's arguments of at least BULK_MIN_CHARS
 * (`other`), outlined by the first line of the first bulky text. Reads and searches (their
 * arguments name what they looked at) and HMC's own tool: never. Null when nothing is bulky.
 */
export function bulkInputOf(tool: string, args: Readonly<Record<string, unknown>>): FileInput | null {
  const file = fileInputOf(tool, args);
  if (file) return file;
  const kind = toolKind(tool);
  if (
    OWN_TOOLS.has(tool.toLowerCase()) ||
    kind === 'read' ||
    kind === 'search' ||
    kind === 'write' ||
    kind === 'edit' ||
    kind === 'editor'
  )
    return null;
  const bulk: BulkArgument[] = [];
  let outline: string | undefined;
  for (const [key, value] of Object.entries(args)) {
    if (PATH_KEYS.includes(key)) continue;
    const size = sizeOf(value);
    if (size === null || size.chars < BULK_MIN_CHARS) continue;
    bulk.push({ key, ...size });
    const text = key === 'command' || key === 'cmd' ? commandOf(args) : typeof value === 'string' ? value : '';
    if (outline === undefined && text.trim()) outline = firstLine(text);
  }
  if (bulk.length === 0) return null;
  return {
    kind: kind === 'shell' ? 'command' : kind === 'agent' ? 'agent' : 'other',
    paths: [],
    bulk,
    ...(outline !== undefined ? { outline } : {}),
  };
}

/** A text's first non-blank line, cut to OUTLINE_CHARS, with `…` when anything was left out. */
function firstLine(text: string): string {
  const trimmed = text.trimStart();
  const end = trimmed.indexOf('\n');
  const line = (end < 0 ? trimmed : trimmed.slice(0, end)).trimEnd();
  const cut = line.length > OUTLINE_CHARS ? line.slice(0, OUTLINE_CHARS) : line;
  return cut.length < trimmed.trimEnd().length ? `${cut}…` : cut;
}

function fromFileTool(kind: 'write' | 'edit', args: Readonly<Record<string, unknown>>): FileInput | null {
  const paths = new Set<string>();
  const path = firstPath(args);
  if (path) paths.add(path);
  for (const p of patchPaths(args)) paths.add(p);
  const bulk: BulkArgument[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (PATH_KEYS.includes(key)) continue;
    const size = sizeOf(value);
    if (size !== null && size.chars >= BULK_MIN_CHARS) bulk.push({ key, ...size });
  }
  if (bulk.length === 0) return null;
  // SWE-agent's `edit 4:9\n…\nend_of_edit` keeps its header line: it says which lines changed.
  const command = typeof args.command === 'string' ? args.command : '';
  const outline = bulk.some((b) => b.key === 'command') && command.includes('\n') ? editOutline(command) : undefined;
  return { kind, paths: [...paths], bulk, ...(outline !== undefined ? { outline } : {}) };
}

function fromShell(args: Readonly<Record<string, unknown>>): FileInput | null {
  const key =
    typeof args.command === 'string' || Array.isArray(args.command)
      ? 'command'
      : typeof args.cmd === 'string' || Array.isArray(args.cmd)
        ? 'cmd'
        : null;
  if (key === null) return null;
  const command = commandOf(args);
  const docs = heredocWrites(command);
  if (docs.length === 0) return null;
  const size = sizeOf(args[key]);
  if (size === null) return null;
  let outline = '';
  let at = 0;
  for (const d of docs) {
    outline += `${command.slice(at, d.bodyStart)}…\n`;
    at = d.bodyEnd;
  }
  outline += command.slice(at);
  return {
    kind: 'shell',
    paths: [...new Set(docs.map((d) => d.path))],
    bulk: [{ key, ...size }],
    outline,
    writes: docs.map((d) => ({ path: d.path, lines: d.lines, chars: d.chars })),
  };
}

/** `edit 4:9` … `end_of_edit`: the first and last lines of an editor command, the body left out. */
function editOutline(command: string): string {
  const lines = command.split('\n');
  const last = lines[lines.length - 1] ?? '';
  return lines.length > 2 ? `${lines[0] ?? ''}\n…\n${last}` : command;
}

/** A value's size: a text's lines and characters; a list's items and JSON characters; null for scalars. */
function sizeOf(value: unknown): Omit<BulkArgument, 'key'> | null {
  if (typeof value === 'string') return { lines: lineCount(value), chars: value.length };
  if (typeof value !== 'object' || value === null) return null;
  const chars = JSON.stringify(value).length;
  if (Array.isArray(value)) return { lines: value.length, chars, items: value.length };
  return { lines: Object.keys(value).length, chars };
}

function firstPath(args: Readonly<Record<string, unknown>>): string | undefined {
  for (const key of PATH_KEYS) {
    const value = args[key];
    if (typeof value === 'string' && value.trim().length > 0) return value.trim();
  }
  return undefined;
}

/** Paths named by patch text anywhere in the arguments (`*** Update File:`, `+++ b/…`), or by a list of changes (`changes: [{path}]`). */
export function patchPaths(args: Readonly<Record<string, unknown>>): Set<string> {
  const out = new Set<string>();
  for (const value of Object.values(args)) {
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
        const path = (item as Record<string, unknown>).path;
        if (typeof path === 'string' && path.trim()) out.add(path.trim());
        continue;
      }
      if (typeof item !== 'string' || (!item.includes('***') && !item.includes('+++'))) continue;
      for (const m of item.matchAll(PATCH_HEADER)) out.add((m[1] ?? m[2]) as string);
      for (const m of item.matchAll(DIFF_HEADER)) if (m[1] !== '/dev/null') out.add(m[1] as string);
    }
  }
  return out;
}
