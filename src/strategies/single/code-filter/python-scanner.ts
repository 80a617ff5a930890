/**
 * A tokenising pass over Python source that finds logical lines: which physical lines start a
 * statement (outside any string, bracket or `\` continuation) and which only continue one. It
 * understands '…', "…", triple-quoted strings with any r/b/f/u prefix, `#` comments and bracket
 * nesting, carrying state across lines.
 *
 * Invariant: linear, never throws; `ok` is false when brackets close that never opened, `open`
 * when the text ends inside a string or bracket; callers leave such text whole unless it is
 * known to stop early.
 */
import { codeAt } from './scan-state.js';

/** What the scanner learnt about one physical line. */
export interface PyLine {
  /** The line's code: string literals (with their prefixes) become `""`, comments vanish. */
  code: string;
  /** The line begins a logical line (a statement), so its indentation is meaningful. */
  logicalStart: boolean;
  /** Everything on the line that is not whitespace is a comment. */
  commentOnly: boolean;
  /** The logical line goes on to the next physical line (open string, bracket or `\`). */
  continues: boolean;
}

export interface PyScan {
  lines: PyLine[];
  /** False when a closing bracket has no opening one (the scan lost its way). */
  ok: boolean;
  /** The text ends inside a string, a bracket or a `\` continuation (whole source never does). */
  open: boolean;
}

const CODE = 0;
const TRIPLE = 1;
const SINGLE = 2;

const C_HASH = 35;
const C_BACKSLASH = 92;
const C_DQ = 34;
const C_SQ = 39;

function isIdentPart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || (c >= 48 && c <= 57) || c >= 128;
}

/** r, b, f, u (either case) — the letters a string prefix may use. */
function isPrefixLetter(c: number): boolean {
  const lower = c | 32;
  return lower === 114 || lower === 98 || lower === 102 || lower === 117;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 12 || c === 11;
}

/** Scans `lines[start..end)` as one Python text. */
export function scanPython(lines: readonly string[], start: number, end: number, openStart = false): PyScan {
  const out: PyLine[] = [];
  let mode = CODE;
  let quote = C_DQ;
  let depth = 0;
  let backslash = false;
  let ok = true;

  for (let li = start; li < end; li++) {
    const line = lines[li] ?? '';
    const n = line.length;
    const logicalStart = mode === CODE && depth === 0 && !backslash;
    let nonComment = mode !== CODE;
    let code = '';
    let from = mode === CODE ? 0 : -1;
    let escapedAtEnd = false;
    backslash = false;
    let i = 0;
    while (i < n) {
      const c = line.charCodeAt(i);
      if (mode === CODE) {
        if (isSpace(c)) {
          i++;
          continue;
        }
        if (c === C_HASH) {
          if (from >= 0) code += line.slice(from, i);
          from = -1;
          break;
        }
        nonComment = true;
        if (c === C_BACKSLASH) {
          if (line.slice(i + 1).trim() === '') {
            backslash = true;
            break;
          }
          i++;
          continue;
        }
        if (c === C_DQ || c === C_SQ) {
          // Take an r/b/f/u prefix into the literal (rb"…", F'…'), but not the tail of a name.
          let p = i;
          while (p > i - 2 && p > 0 && isPrefixLetter(line.charCodeAt(p - 1))) p--;
          if (p > 0 && isIdentPart(line.charCodeAt(p - 1))) p = i;
          if (from >= 0) code += `${line.slice(from, p)}""`;
          from = -1;
          quote = c;
          if (codeAt(line, i + 1) === c && codeAt(line, i + 2) === c) {
            mode = TRIPLE;
            i += 3;
          } else {
            mode = SINGLE;
            i++;
          }
          continue;
        }
        if (c === 40 || c === 91 || c === 123) depth++;
        else if (c === 41 || c === 93 || c === 125) {
          depth--;
          // A text starting mid-file may close a bracket opened before it.
          if (depth < 0 && openStart) depth = 0;
          else if (depth < 0) ok = false;
        } else if (isIdentPart(c)) {
          while (i + 1 < n && isIdentPart(codeAt(line, i + 1))) i++;
        }
        i++;
        continue;
      }
      if (c === C_BACKSLASH) {
        if (i + 1 >= n || (i + 2 === n && codeAt(line, i + 1) === 13)) escapedAtEnd = true;
        i += 2;
        continue;
      }
      if (c === quote) {
        if (mode === SINGLE) {
          mode = CODE;
          i++;
          from = i;
          continue;
        }
        if (codeAt(line, i + 1) === quote && codeAt(line, i + 2) === quote) {
          mode = CODE;
          i += 3;
          from = i;
          continue;
        }
      }
      i++;
    }
    // A one-quote string cannot span lines without a trailing `\` (a syntax error otherwise).
    if (mode === SINGLE && !escapedAtEnd) mode = CODE;
    if (mode === CODE && from >= 0) code += line.slice(from);
    out.push({
      code,
      logicalStart,
      commentOnly: !nonComment && line.trim() !== '',
      continues: mode !== CODE || depth > 0 || backslash,
    });
  }
  return { lines: out, ok, open: mode !== CODE || depth !== 0 || backslash };
}
