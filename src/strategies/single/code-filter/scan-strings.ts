/**
 * The brace scanner's literals: which text opens a string, template, raw string or regex in each
 * language, and how the scan moves through one until it closes (escapes, doubled quotes,
 * interpolation holes such as `${ … }`).
 *
 * Understood: "…" and '…' with escapes; JS/TS template literals and regexes (`/[{}]/g` after `=`,
 * `(`, `return`… versus division); Go raw strings and runes; Rust raw strings `r#"…"#`, multi-line
 * "…" and char literals versus lifetimes (`'a`, `'{'`, `'\n'`); Java text blocks (three quotes);
 * Kotlin raw strings and `${…}` templates, backtick names; C# verbatim `@"…"`, interpolated
 * `$"…{x}…"` and raw strings (three or more quotes, `$$` for `{{x}}` holes); PHP's multi-line
 * strings with `{$…}` holes, heredocs and nowdocs, and the inline HTML outside `<?php … ?>`.
 *
 * Invariant: a literal never hides code it does not contain; where a language's rule is unclear,
 * the literal ends at the end of its line (as a syntax error would) so one mistake cannot swallow
 * the rest of a file.
 */
import { jsxAt, scanJsx } from './scan-jsx.js';
import type { Cursor, Literal, ScanState } from './scan-state.js';
import {
  C_AT,
  C_BACKSLASH,
  C_DOLLAR,
  C_DQ,
  C_HASH,
  C_LBRACE,
  C_LBRACKET,
  C_RBRACKET,
  C_SLASH,
  C_SQ,
  close,
  codeAt,
  cut,
  isIdentPart,
  literal,
  openHole,
  resumeCode,
} from './scan-state.js';

/**
 * What opens at the cursor (a code position where a token starts): a literal to scan into, a
 * literal complete on this line (`length` characters, then back to code), or null.
 */
export interface Opening {
  /** The literal now open, or null when the whole literal was `length` characters. */
  literal: Literal | null;
  length: number;
  /** What the literal looks like in the line's code. */
  placeholder: string;
}

function opening(lit: Literal, placeholder: string, length = 1): Opening {
  return { literal: lit, length, placeholder };
}

const TRIPLE = '"""';
const JS_DQ = opening(literal('"'), '""');
const JS_SQ = opening(literal("'"), "''");
const JS_TEMPLATE = opening(literal('`', { multiline: true, hole: 'dollar' }), '``');
const JS_REGEX = opening(literal('/', { regex: true }), '/r/');
const GO_RAW = opening(literal('`', { escapes: false, multiline: true }), '``');
const RUST_DQ = opening(literal('"', { multiline: true }), '""');
const JAVA_TEXT_BLOCK = opening(literal(TRIPLE, { multiline: true }), '""', 3);
const KOTLIN_DQ = opening(literal('"', { hole: 'dollar' }), '""');
const KOTLIN_RAW = opening(literal(TRIPLE, { escapes: false, multiline: true, hole: 'dollar' }), '""', 3);
const KOTLIN_NAME = opening(literal('`', { escapes: false }), '``');
const PHP_DQ = opening(literal('"', { multiline: true, hole: 'php' }), '""');
const PHP_SQ = opening(literal("'", { multiline: true }), "''");
const PHP_EXEC = opening(literal('`', { multiline: true }), '``');
/** PHP's inline HTML, outside `<?php … ?>`: text until the next opening tag; a file may end in it. */
export const PHP_HTML = literal('<?', { escapes: false, multiline: true, mayEndOpen: true });
const PHP_CLOSE_TAG = opening(PHP_HTML, '', 2);
const PHP_HEREDOC = /^<<<[ \t]*(["']?)([A-Za-z_]\w*)\1[ \t]*\r?$/;

/** Literals made per shape (Rust raw strings by their `#`s, C# strings, heredocs by name): few per file. */
const shaped = new Map<string, Literal>();

function cachedLiteral(key: string, make: () => Literal): Literal {
  let lit = shaped.get(key);
  if (lit === undefined) {
    if (shaped.size > 1000) shaped.clear();
    shaped.set(key, (lit = make()));
  }
  return lit;
}

/** The literal (if any) that starts at `cur.i` in `st.lang`; a regex only when `st.regexOk`. */
export function literalAt(st: ScanState, cur: Cursor): Opening | null {
  const { line, i } = cur;
  const c = line.charCodeAt(i);
  switch (st.lang) {
    case 'javascript':
    case 'typescript':
      if (c === C_DQ) return JS_DQ;
      if (c === C_SQ) return JS_SQ;
      if (c === 96) return JS_TEMPLATE;
      if (c === C_SLASH && st.regexOk) return JS_REGEX;
      return st.jsx && c === 60 && st.regexOk ? jsxAt(line, i) : null;
    case 'go':
      if (c === C_DQ) return JS_DQ;
      if (c === C_SQ) return JS_SQ;
      if (c === 96) return GO_RAW;
      return null;
    case 'rust':
      return rustLiteralAt(line, i, c);
    case 'java':
      if (c === C_DQ) return line.startsWith(TRIPLE, i) ? JAVA_TEXT_BLOCK : JS_DQ;
      return c === C_SQ ? JS_SQ : null;
    case 'kotlin':
      if (c === C_DQ) return line.startsWith(TRIPLE, i) ? KOTLIN_RAW : KOTLIN_DQ;
      if (c === C_SQ) return JS_SQ;
      return c === 96 ? KOTLIN_NAME : null;
    case 'csharp':
      return c === C_SQ ? JS_SQ : csharpStringAt(line, i);
    case 'php':
      return phpLiteralAt(line, i, c);
  }
}

function rustLiteralAt(line: string, i: number, c: number): Opening | null {
  if (c === C_DQ) return RUST_DQ;
  if (c === C_SQ) {
    // A char literal ('x', '\n', '{', '😀') or a lifetime / label ('a, 'static): the latter is code.
    if (codeAt(line, i + 1) === C_BACKSLASH) {
      const close = line.indexOf("'", i + 3);
      return close >= 0 ? { literal: null, length: close + 1 - i, placeholder: "''" } : null;
    }
    const cp = line.codePointAt(i + 1);
    const width = cp !== undefined && cp > 0xffff ? 2 : 1;
    return cp !== undefined && line.charCodeAt(i + 1 + width) === C_SQ
      ? { literal: null, length: 2 + width, placeholder: "''" }
      : null;
  }
  // r"…", r#"…"#, br"…", cr#"…"#: a word of one or two letters, then hashes, then a quote.
  const j = c === 98 || c === 99 ? i + 1 : i;
  if (line.charCodeAt(j) !== 114) return null;
  let k = j + 1;
  while (line.charCodeAt(k) === C_HASH) k++;
  if (line.charCodeAt(k) !== C_DQ) return null;
  const hashes = k - j - 1;
  const raw = cachedLiteral(`rs-${hashes}`, () =>
    literal(`"${'#'.repeat(hashes)}`, { escapes: false, multiline: true }),
  );
  return { literal: raw, length: k + 1 - i, placeholder: '""' };
}

/** C# strings: "…", @"…" (verbatim), $"…" (interpolated), $@"…", and raw strings of 3+ quotes after any `$`s. */
function csharpStringAt(line: string, i: number): Opening | null {
  let k = i;
  let dollars = 0;
  let verbatim = false;
  for (; k < i + 8; k++) {
    const c = line.charCodeAt(k);
    if (c === C_DOLLAR) dollars++;
    else if (c === C_AT && !verbatim) verbatim = true;
    else break;
  }
  if (line.charCodeAt(k) !== C_DQ || (verbatim && dollars > 1)) return null;
  let quotes = 0;
  while (line.charCodeAt(k + quotes) === C_DQ) quotes++;
  const prefix = k - i;
  if (quotes >= 3 && !verbatim) {
    const lit = cachedLiteral(`cs-raw-${quotes}-${dollars}`, () =>
      literal('"'.repeat(quotes), {
        escapes: false,
        multiline: true,
        hole: dollars > 0 ? 'brace' : 'none',
        holeBraces: Math.max(dollars, 1),
      }),
    );
    return { literal: lit, length: prefix + quotes, placeholder: '""' };
  }
  const lit = cachedLiteral(`cs-${verbatim}-${dollars > 0}`, () =>
    literal('"', { escapes: !verbatim, doubled: verbatim, multiline: verbatim, hole: dollars > 0 ? 'brace' : 'none' }),
  );
  return { literal: lit, length: prefix + 1, placeholder: '""' };
}

function phpLiteralAt(line: string, i: number, c: number): Opening | null {
  if (c === C_DQ) return PHP_DQ;
  if (c === C_SQ) return PHP_SQ;
  if (c === 96) return PHP_EXEC;
  if (c === 63 && codeAt(line, i + 1) === 62) return PHP_CLOSE_TAG;
  if (c !== 60 || !line.startsWith('<<<', i)) return null;
  const m = PHP_HEREDOC.exec(line.slice(i));
  if (m === null) return null;
  const name = m[2] as string;
  const nowdoc = m[1] === "'";
  const lit = cachedLiteral(`php-${nowdoc}-${name}`, () =>
    literal(name, { escapes: !nowdoc, multiline: true, hole: nowdoc ? 'none' : 'php', heredoc: name }),
  );
  return { literal: lit, length: line.length - i, placeholder: '""' };
}

/**
 * Moves the cursor through the literal `st.literal` until it closes (then code resumes after it),
 * a hole opens (then code runs inside it), or the line ends.
 */
export function scanLiteral(st: ScanState, cur: Cursor): void {
  const lit = st.literal as Literal;
  if (lit.jsx !== null) {
    scanJsx(st, cur);
    return;
  }
  const { line } = cur;
  const n = line.length;
  if (lit.heredoc !== null && cur.i === 0) {
    const end = heredocEnd(line, lit.heredoc);
    if (end >= 0) {
      cur.i = end;
      close(st, cur);
      return;
    }
  }
  while (cur.i < n) {
    const i = cur.i;
    const c = line.charCodeAt(i);
    if (lit.regex) {
      if (c === C_BACKSLASH) {
        cur.i += 2;
        continue;
      }
      if (c === C_LBRACKET) st.inClass = true;
      else if (c === C_RBRACKET) st.inClass = false;
      else if (c === C_SLASH && !st.inClass) {
        cur.i++;
        while (cur.i < n && isIdentPart(line.charCodeAt(cur.i))) cur.i++;
        close(st, cur);
        return;
      }
      cur.i++;
      continue;
    }
    if (c === C_BACKSLASH && lit.escapes) {
      if (i + 1 >= n || (i + 2 === n && codeAt(line, i + 1) === 13)) cur.escapedAtEnd = true;
      cur.i += 2;
      continue;
    }
    if (lit.hole !== 'none' && (c === C_DOLLAR || c === C_LBRACE)) {
      const length = holeAt(lit, line, i);
      if (length > 0) {
        openHole(st, cur, lit, length);
        return;
      }
      if (c === C_LBRACE) {
        // Braces too few to open a hole are text (`{{` in $"…").
        while (line.charCodeAt(cur.i) === C_LBRACE) cur.i++;
        continue;
      }
    }
    if (c === lit.closeFirst && lit.heredoc === null && (lit.close.length === 1 || line.startsWith(lit.close, i))) {
      if (lit.doubled && codeAt(line, i + 1) === c) {
        cur.i += 2;
        continue;
      }
      // A run of quotes longer than the closing one ends it at its last quotes (Kotlin, Java).
      let end = i + lit.close.length;
      if (lit.close.length > 1) while (line.charCodeAt(end) === c) end++;
      cur.i = end;
      close(st, cur);
      return;
    }
    cur.i++;
  }
}

/** The length of the hole opener at `i` inside `lit` (0 when none opens there). */
function holeAt(lit: Literal, line: string, i: number): number {
  const c = line.charCodeAt(i);
  const next = codeAt(line, i + 1);
  switch (lit.hole) {
    case 'dollar':
      return c === C_DOLLAR && next === C_LBRACE ? 2 : 0;
    case 'php':
      if (c === C_LBRACE) return next === C_DOLLAR ? 1 : 0;
      return next === C_LBRACE ? 2 : 0;
    case 'brace': {
      if (c !== C_LBRACE) return 0;
      let run = 0;
      while (line.charCodeAt(i + run) === C_LBRACE) run++;
      // `{{` is an escaped brace in $"…"; a raw string needs as many braces as it has `$`.
      if (lit.close.length === 1) return run % 2 === 1 ? run : 0;
      return run >= lit.holeBraces ? run : 0;
    }
    default:
      return 0;
  }
}

/** Where a heredoc's closing line ends its name (-1 when `line` does not close it). */
function heredocEnd(line: string, name: string): number {
  let k = 0;
  while (k < line.length && (line.charCodeAt(k) === 32 || line.charCodeAt(k) === 9)) k++;
  if (!line.startsWith(name, k)) return -1;
  const after = line.charCodeAt(k + name.length);
  return Number.isNaN(after) || !isIdentPart(after) ? k + name.length : -1;
}

/** Opens `opening` at the cursor (which stands on its first character). */
export function enterLiteral(st: ScanState, cur: Cursor, opening: Opening): void {
  cut(cur, opening.placeholder);
  cur.i += opening.length;
  if (opening.literal === null) {
    st.regexOk = false;
    resumeCode(st, cur);
    return;
  }
  st.literal = opening.literal;
  st.inClass = false;
}

/** At a line's end: a literal that cannot span lines ends here, unless a backslash continues it. */
export function endOfLine(st: ScanState, cur: Cursor): void {
  const lit = st.literal;
  if (lit === null || lit.multiline) return;
  if (lit.regex || !cur.escapedAtEnd) st.literal = null;
}
