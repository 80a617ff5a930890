/**
 * What a tool call did to a file, read from its name, arguments and output: a read (which lines),
 * a write (the whole file), or a patch (part of it), across hosts: Hermes (`read_file`,
 * `write_file`, `patch`), Claude Code (`Read`, `Write`, `Edit`, `MultiEdit`), Codex (`apply_patch`,
 * shell `sed -n`), editor tools with a `command` (`view`, `create`, `str_replace`, `insert`),
 * Gemini (`replace`), SWE-agent (`open`, `edit`, `create`), and shell redirections and `sed -i`.
 *
 * Invariant: unsure means null. A write or patch is claimed only on positive evidence (a known tool,
 * a patch header, `sed -i`, a redirection), so an earlier read is never called stale by guesswork.
 */
import type { ToolOutput } from '../../core/strategy.js';
import { toolKind } from '../../hosts/index.js';
import { PATH_KEYS, patchPaths } from '../../hosts/tool-inputs.js';

/** Lines of a file, 1-based and inclusive; `last` may be Infinity (to the end). */
export interface LineSpan {
  first: number;
  last: number;
}

export type FileOp = { op: 'read'; path: string; span: LineSpan } | { op: 'write' | 'patch'; paths: string[] };

const SED_INPLACE =
  /(?:^|[;&|]\s*)sed\s+(?:-[a-zA-Z]*i[a-zA-Z]*\S*|--in-place\S*)\s+(?:-\S+\s+)*(?:'[^']*'|"[^"]*"|\S+)\s+([^\s;&|<>]+)/;
const REDIRECT = /(?:^|[^0-9&>])>{1,2}\s*([^\s;&|<>]+)/g;
const TEE = /\btee\s+(?:-a\s+)?([^\s;&|<>]+)/g;
const SED_PRINT = /^\s*sed\s+-n\s+['"]?(\d+),(\d+)p['"]?\s+([^\s|;&]+)\s*$/;

/** The file operation of one tool call, or null when it is none (or unclear). */
export function fileOpOf(output: ToolOutput): FileOp | null {
  const kind = toolKind(output.tool);
  const args = output.args;
  const command =
    typeof args.command === 'string'
      ? args.command
      : Array.isArray(args.command)
        ? args.command.filter((x) => typeof x === 'string').join(' ')
        : '';
  // Editor tools take a `command` argument (Anthropic's text editor, SWE-agent's).
  if (kind === 'editor') {
    const path = firstString(args, PATH_KEYS);
    if (path && command === 'create') return { op: 'write', paths: [path] };
    if (path && ['str_replace', 'insert', 'undo_edit'].includes(command)) return { op: 'patch', paths: [path] };
  }
  if (kind === 'write') {
    const path = firstString(args, PATH_KEYS) ?? output.path;
    return path ? { op: 'write', paths: [path] } : null;
  }
  if (kind === 'edit') {
    const paths = patchPaths(args);
    const path = firstString(args, PATH_KEYS) ?? output.path;
    if (path) paths.add(path);
    return paths.size > 0 ? { op: 'patch', paths: [...paths] } : null;
  }
  if (output.kind === 'file' && output.path !== undefined)
    return { op: 'read', path: output.path, span: readSpan(output) };
  if (command) {
    const printed = SED_PRINT.exec(command);
    if (printed)
      return { op: 'read', path: printed[3] as string, span: { first: Number(printed[1]), last: Number(printed[2]) } };
    const paths = patchPaths(args);
    const sed = SED_INPLACE.exec(command)?.[1];
    if (sed) paths.add(sed);
    if (paths.size > 0) return { op: 'patch', paths: [...paths] };
    const written = new Set<string>();
    for (const m of command.matchAll(REDIRECT)) if (isFilePath(m[1] as string)) written.add(m[1] as string);
    for (const m of command.matchAll(TEE)) if (isFilePath(m[1] as string)) written.add(m[1] as string);
    if (written.size > 0) return { op: 'write', paths: [...written] };
  }
  return null;
}

/** The lines a read shows: from its line numbers, else from its arguments, else the whole file. */
function readSpan(output: ToolOutput): LineSpan {
  const shown = output.fileLines;
  if (shown && shown.end > shown.start)
    return { first: shown.first, last: shown.first + (shown.end - shown.start) - 1 };
  const a = output.args;
  const range = Array.isArray(a.view_range) ? a.view_range : Array.isArray(a.line_range) ? a.line_range : null;
  if (range && typeof range[0] === 'number') {
    const last = typeof range[1] === 'number' && range[1] >= 0 ? range[1] : Infinity;
    return { first: range[0], last };
  }
  const start = num(a.start_line) ?? num(a.line_start) ?? num(a.offset) ?? num(a.startLine);
  const end = num(a.end_line) ?? num(a.line_end) ?? num(a.endLine);
  const limit = num(a.limit) ?? num(a.max_lines) ?? num(a.lines);
  if (start === undefined && end === undefined && limit === undefined) return { first: 1, last: Infinity };
  const first = Math.max(1, start ?? 1);
  return { first, last: end ?? (limit !== undefined ? first + limit - 1 : Infinity) };
}

/** A redirection target that names a file (not /dev/null, not a descriptor, not a variable). */
function isFilePath(target: string): boolean {
  return (
    target.length > 0 &&
    !target.startsWith('/dev/') &&
    !target.startsWith('&') &&
    !target.startsWith('$') &&
    /[\w.]/.test(target)
  );
}

/**
 * A path in a comparable form: `./` and duplicate slashes removed, and relative to `project` when it
 * lies inside it.
 */
export function normalizePath(path: string, project = ''): string {
  let p = path
    .trim()
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/');
  const root = project.replace(/\\/g, '/').replace(/\/+$/, '');
  if (root && p.startsWith(`${root}/`)) p = p.slice(root.length + 1);
  while (p.startsWith('./')) p = p.slice(2);
  return p;
}

/**
 * The file name of a normalised path: only events on the same name can be the same file
 * (`samePath`), so stale reads, input clearing and quiet calls group by it.
 */
export function fileName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Two normalised paths name the same file: equal, or an absolute one ending in a relative one of 2+ segments. */
export function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  const [abs, rel] = a.startsWith('/') ? [a, b] : [b, a];
  return abs.startsWith('/') && !rel.startsWith('/') && rel.includes('/') && abs.endsWith(`/${rel}`);
}

function firstString(args: Readonly<Record<string, unknown>>, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = args[key];
    if (typeof value === 'string' && value.trim().length > 0) return value.trim();
  }
  return undefined;
}

function num(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : undefined;
}
