/**
 * The state the brace scanner carries across lines and the cursor it moves along one line; shared
 * by the scanner's parts (code, strings, comments), each of which reads and advances them.
 *
 * Invariant: only the parts mutate this state, one token at a time, and never move the cursor
 * backwards, so a scan is linear in the text's length.
 */
import type { BraceLanguage } from './languages.js';

/** How an interpolation hole opens inside a literal. */
export type HoleKind =
  /** None: the literal is plain text. */
  | 'none'
  /** `${ … }` (JS/TS templates, Kotlin strings). */
  | 'dollar'
  /** `{ … }`, with `{{` an escaped brace (C# `$"…"`; `holeBraces` braces for C# `$$"""…"""`). */
  | 'brace'
  /** `{$ … }` and `${ … }` (PHP double-quoted strings and heredocs). */
  | 'php';

/** A literal being scanned: a string, template, regex, raw string, heredoc or inline HTML. */
export interface Literal {
  /** The text that ends it (`"`, `` ` ``, `"""`, `"##`, `<?`…). */
  close: string;
  /** `close`'s first character code (the quick test before comparing all of it). */
  closeFirst: number;
  /** A backslash escapes the next character. */
  escapes: boolean;
  /** A doubled closing quote stands for one quote (C# verbatim strings). */
  doubled: boolean;
  /** It may run past the end of a line (else the line's end ends it, as a syntax error would). */
  multiline: boolean;
  hole: HoleKind;
  /** Braces that open a hole when `hole` is 'brace' (1, or the number of `$` of a C# raw string). */
  holeBraces: number;
  /** PHP heredoc / nowdoc: the literal ends at a line starting (after indentation) with this name. */
  heredoc: string | null;
  /** A JS regex literal: `/` inside `[…]` does not end it, flags follow the closing `/`. */
  regex: boolean;
  /** The text may end inside it without confusion (PHP's inline HTML after a final `?>`). */
  mayEndOpen: boolean;
  /** JSX markup: inside a tag's attributes, among an element's children, or in a closing tag. */
  jsx: 'tag' | 'text' | 'close' | null;
  /** The literal to continue in when this one closes (a JSX attribute string returns to its tag); null: code. */
  after: Literal | null;
}

/** An open interpolation hole: braces opened inside it, and the literal to resume when it closes. */
export interface Hole {
  braces: number;
  resume: Literal;
  /** The JSX elements open around the hole (restored when it closes). */
  tags: number;
}

/** Everything the scan carries from one line to the next. */
export interface ScanState {
  lang: BraceLanguage;
  /** ASCII characters that may begin a comment or literal in `lang` (1 = maybe). */
  openers: Uint8Array;
  /** The literal being scanned; null in code or in a comment. */
  literal: Literal | null;
  /** Depth of block comments (0: not in one; more than 1 only where comments nest). */
  comment: number;
  /** Open interpolation holes, innermost last; while any is open, code is inside a literal. */
  holes: Hole[];
  /** Inside a regex literal, inside a `[…]` class. */
  inClass: boolean;
  /** The last significant token lets a `/` start a regex (JS/TS). */
  regexOk: boolean;
  /** Brace depth outside literals and comments. */
  depth: number;
  /** Depth of `(` and `[` outside literals and comments. */
  parens: number;
  /** False once the scan is confused (a brace depth below 0). */
  ok: boolean;
  /** `<Tag` in an expression starts JSX markup (JavaScript, TSX). */
  jsx: boolean;
  /** JSX elements open in the markup being scanned (their children are being read). */
  tags: number;
}

/** One line being scanned: where the cursor is, and the visible code gathered so far. */
export interface Cursor {
  line: string;
  i: number;
  /** The line's code, with literals replaced by placeholders and comments removed. */
  code: string;
  /** Where the current run of visible code began (-1: inside a literal or comment). */
  from: number;
  /** Something on the line is not comment. */
  nonComment: boolean;
  /** Lowest brace depth reached on the line. */
  depthMin: number;
  /** The line ends in a backslash inside a literal (a continued string). */
  escapedAtEnd: boolean;
  /** The line holds JSX markup. */
  markup: boolean;
}

export function newState(lang: BraceLanguage, openers: Uint8Array, jsx: boolean): ScanState {
  return {
    lang,
    openers,
    literal: null,
    comment: 0,
    holes: [],
    inClass: false,
    regexOk: true,
    depth: 0,
    parens: 0,
    ok: true,
    jsx,
    tags: 0,
  };
}

/** Ends the visible code run at the cursor, appending `placeholder` for the literal or comment that starts there. */
export function cut(cur: Cursor, placeholder: string): void {
  if (cur.from >= 0) {
    cur.code += cur.line.slice(cur.from, cur.i) + placeholder;
    cur.from = -1;
  }
}

/** Starts a new run of visible code at the cursor, unless inside an interpolation hole (whose code is the literal's). */
export function resumeCode(st: ScanState, cur: Cursor): void {
  if (st.holes.length === 0) cur.from = cur.i;
}

/** A literal of the given closing text; options override the defaults (escapes, one line, no holes). */
export function literal(close: string, options: Partial<Literal> = {}): Literal {
  return {
    close,
    closeFirst: close.charCodeAt(0),
    escapes: true,
    doubled: false,
    multiline: false,
    hole: 'none',
    holeBraces: 1,
    heredoc: null,
    regex: false,
    mayEndOpen: false,
    jsx: null,
    after: null,
    ...options,
  };
}

/** Ends the literal at the cursor: back to code, or on in the literal it belongs to (a JSX tag). */
export function close(st: ScanState, cur: Cursor): void {
  const after = st.literal?.after ?? null;
  st.literal = after;
  if (after !== null) return;
  st.regexOk = false;
  resumeCode(st, cur);
}

/** Opens an interpolation hole of `length` characters at the cursor: code runs inside it until its `}`. */
export function openHole(st: ScanState, cur: Cursor, lit: Literal, length: number): void {
  st.holes.push({ braces: 0, resume: lit, tags: st.tags });
  st.tags = 0;
  st.literal = null;
  st.regexOk = true;
  cur.i += length;
}

export const C_SLASH = 47;
export const C_STAR = 42;
export const C_DQ = 34;
export const C_SQ = 39;
export const C_BACKTICK = 96;
export const C_BACKSLASH = 92;
export const C_LBRACE = 123;
export const C_RBRACE = 125;
export const C_LPAREN = 40;
export const C_RPAREN = 41;
export const C_LBRACKET = 91;
export const C_RBRACKET = 93;
export const C_DOLLAR = 36;
export const C_HASH = 35;
export const C_AT = 64;

export function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === C_DOLLAR || c >= 128;
}

export function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}

export function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 12 || c === 11;
}

/**
 * The character code at `i`, or -1 past the end of the line (where `charCodeAt` gives NaN): the
 * same for every comparison the scanners make, and V8's optimised code does not have to be thrown
 * away and compiled again the first time a look-ahead runs off a line.
 */
export function codeAt(line: string, i: number): number {
  return i < line.length ? line.charCodeAt(i) : -1;
}
