/**
 * Shell commands that print one file (DESIGN §5; issue 8: reads through generic tools): after any
 * `cd … &&`, one pipeline whose first stage prints a file (`cat [-n]`, `nl -ba`, `head`, `tail`,
 * `sed -n 'A,Bp'`) and whose later stages only narrow it (`sed -n`, `head`, `tail`), also inside
 * `bash -lc '…'` or `["bash", "-lc", "…"]`. It tells which file, from which line (when known) and
 * whether the read may stop before the file's end.
 *
 * Invariant: anything beyond plain words is not a read — redirections, heredocs, globs, `$(…)`,
 * `;`, `||`, background jobs, a second command, several files — and neither is a log file.
 */
import type { ReadInfo } from './file-reads.js';

/** Extensions of files whose reads are logs (truncation may cut them), not files the agent studies. */
const LOG_EXTENSIONS = new Set(['log', 'out', 'err', 'trace']);

/** True for a path whose reads are logs rather than files (`server.log`, `/dev/…`, `/proc/…`). */
export function isLogPath(path: string): boolean {
  if (/^\/(?:dev|proc|sys)\//.test(path)) return true;
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 && LOG_EXTENSIONS.has(base.slice(dot + 1).toLowerCase());
}

/** The shell script a command runs: `bash -lc '…'` and `["bash", "-lc", "…"]` unwrapped. */
export function shellScript(command: unknown): string {
  if (Array.isArray(command)) {
    const parts = command.map(String);
    if (parts.length === 3 && /^(?:ba|z)?sh$/.test(parts[0]?.split('/').pop() ?? '') && /^-l?c$/.test(parts[1] ?? ''))
      return parts[2] ?? '';
    return parts.join(' ');
  }
  if (typeof command !== 'string') return '';
  const wrapped = /^\s*(?:\/\S*\/)?(?:ba|z)?sh\s+-l?c\s+(['"])([\s\S]*)\1\s*$/.exec(command);
  if (wrapped === null) return command;
  const body = wrapped[2] ?? '';
  return wrapped[1] === '"' ? body.replace(/\\(["\\$`])/g, '$1') : body;
}

/** One word of a simple command, its quotes removed; null for anything the shell would expand. */
function word(token: string): string | null {
  const m = /^(?:'([^']*)'|"([^"$`\\]*)"|([^'"$`\\*?[\]{}~]+))$/.exec(token);
  if (m === null) return null;
  return m[1] ?? m[2] ?? m[3] ?? null;
}

/** Splits a simple command into words (quotes kept per word); null when it holds shell syntax beyond words. */
function words(stage: string): string[] | null {
  const tokens = stage.trim().match(/'[^']*'|"[^"]*"|[^\s'"]+/g);
  if (tokens === null) return null;
  const out: string[] = [];
  for (const t of tokens) {
    if (t === '2>&1' || t === '2>/dev/null') continue;
    const w = word(t);
    if (w === null) return null;
    out.push(w);
  }
  return out;
}

const MAY_READ = /\b(?:cat|nl|head|tail|sed)\b/;
const SED_RANGE = /^(\d+)(?:,(\d+))?p$/;

/** A stage that prints (part of) one file: its path, first line (null: unknown) and whether it may stop early. */
function readerStage(
  ws: readonly string[],
): { path: string; first: number | null; numbered: boolean; openEnd: boolean } | null {
  const [cmd, ...rest] = ws;
  const operands = rest.filter((w) => !w.startsWith('-'));
  const flags = rest.filter((w) => w.startsWith('-'));
  switch (cmd) {
    case 'cat':
      if (operands.length !== 1 || flags.some((f) => f !== '-n')) return null;
      return { path: operands[0] as string, first: 1, numbered: flags.length > 0, openEnd: false };
    case 'nl':
      if (operands.length !== 1 || flags.length !== 1 || flags[0] !== '-ba') return null;
      return { path: operands[0] as string, first: 1, numbered: true, openEnd: false };
    case 'head': {
      const n = countArg(rest);
      return n === null ? null : { path: n.path, first: 1, numbered: false, openEnd: true };
    }
    case 'tail': {
      // `tail -n +N` starts at line N; a plain tail shows the end, from a line whose number is unknown.
      if (rest.length === 3 && rest[0] === '-n' && /^\+\d+$/.test(rest[1] ?? ''))
        return {
          path: rest[2] as string,
          first: Number((rest[1] as string).slice(1)),
          numbered: false,
          openEnd: false,
        };
      const n = countArg(rest);
      return n === null ? null : { path: n.path, first: null, numbered: false, openEnd: false };
    }
    case 'sed': {
      if (rest.length !== 3 || rest[0] !== '-n') return null;
      const m = SED_RANGE.exec(rest[1] ?? '');
      return m === null ? null : { path: rest[2] as string, first: Number(m[1]), numbered: false, openEnd: true };
    }
    default:
      return null;
  }
}

function countArg(rest: readonly string[]): { path: string } | null {
  if (rest.length === 3 && rest[0] === '-n' && /^\d+$/.test(rest[1] ?? '')) return { path: rest[2] as string };
  if (rest.length === 2 && /^-\d+$/.test(rest[0] ?? '')) return { path: rest[1] as string };
  if (rest.length === 1 && !(rest[0] as string).startsWith('-')) return { path: rest[0] as string };
  return null;
}

/**
 * A later stage that only narrows a listing: `sed -n 'A,Bp'` (skips A - 1 lines), `head -n N`
 * (skips none) or `tail -n N` (skips an unknown number: null).
 */
function rangeStage(ws: readonly string[]): { skip: number | null } | null {
  if (ws[0] === 'sed' && ws.length === 3 && ws[1] === '-n') {
    const m = SED_RANGE.exec(ws[2] ?? '');
    return m === null ? null : { skip: Number(m[1]) - 1 };
  }
  const count =
    (ws.length === 3 && ws[1] === '-n' && /^\d+$/.test(ws[2] ?? '')) || (ws.length === 2 && /^-\d+$/.test(ws[1] ?? ''));
  if (ws[0] === 'head' && count) return { skip: 0 };
  if (ws[0] === 'tail' && count) return { skip: null };
  return null;
}

/**
 * A shell command that prints one file, or null: `cat f`, `nl -ba f | sed -n '1,80p'`,
 * `cd repo && sed -n '40,80p' f`, inside `bash -lc '…'` or not. Logs (`cat x.log`) are not reads.
 */
export function shellRead(command: unknown): ReadInfo | null {
  // Most commands name no reader at all: a quick test before taking the command apart.
  if (typeof command === 'string' && !MAY_READ.test(command)) return null;
  const script = shellScript(command).trim();
  if (script === '' || /[<>`$(){};\n]|\|\||(?<!&)&(?!&)/.test(script.replace(/2>&1|2>\/dev\/null/g, ''))) return null;
  const segments = script.split('&&').map((s) => s.trim());
  while (segments.length > 1 && /^cd\s+\S+$/.test(segments[0] ?? '')) segments.shift();
  if (segments.length !== 1) return null;
  const stages = (segments[0] ?? '').split('|').map(words);
  const head = stages[0];
  if (head === null || head === undefined) return null;
  const reader = readerStage(head);
  if (reader === null || isLogPath(reader.path)) return null;
  let first = reader.first;
  let openEnd = reader.openEnd;
  for (const stage of stages.slice(1)) {
    if (stage === null) return null;
    const range = rangeStage(stage);
    if (range === null) return null;
    openEnd = true;
    first = first === null || range.skip === null ? null : first + range.skip;
  }
  // A numbered listing carries its own numbers (the gutter); plain text is numbered from `first`.
  return { path: reader.path, firstLine: reader.numbered ? null : first, openEnd };
}
