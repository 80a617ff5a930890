/**
 * The brace scanner's code: one token at a time outside literals and comments. Counts braces
 * (the structure the body elision follows), parentheses and brackets (multi-line signatures),
 * closes interpolation holes, and hands over to the literal and comment parts where those begin.
 *
 * Invariant: a brace is counted only here, so only in code; a `}` closing an interpolation hole
 * resumes its literal instead of changing the depth.
 */
import { commentAt } from './scan-comments.js';
import type { BraceLanguage } from './languages.js';
import type { Cursor, ScanState } from './scan-state.js';
import {
  C_LBRACE,
  C_LBRACKET,
  C_LPAREN,
  C_RBRACE,
  C_RBRACKET,
  C_RPAREN,
  isIdentPart,
  isIdentStart,
  isSpace,
} from './scan-state.js';
import { enterLiteral, literalAt } from './scan-strings.js';

/** Words after which a `/` starts a regex literal rather than a division (JS/TS). */
const REGEX_AFTER_WORDS: ReadonlySet<string> = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

/** The longest word in REGEX_AFTER_WORDS: a longer identifier is never looked up. */
const REGEX_WORD_MAX = 10;

/** REGEX_AFTER_WORDS by first character code: an identifier is compared in place, never sliced out. */
const REGEX_WORDS_BY_FIRST: readonly (readonly string[] | undefined)[] = (() => {
  const table: string[][] = [];
  for (const word of REGEX_AFTER_WORDS) (table[word.charCodeAt(0)] ??= []).push(word);
  return table;
})();

/** The identifier `line[i, j)` is one of REGEX_AFTER_WORDS. */
function isRegexWord(line: string, i: number, j: number): boolean {
  const length = j - i;
  if (length > REGEX_WORD_MAX) return false;
  const words = REGEX_WORDS_BY_FIRST[line.charCodeAt(i)];
  if (words === undefined) return false;
  for (const word of words) if (word.length === length && line.startsWith(word, i)) return true;
  return false;
}

/** ASCII characters that may begin a comment or literal, per language (a quick test before the real one). */
const OPENERS = new Map<BraceLanguage, Uint8Array>();

export function openers(lang: BraceLanguage): Uint8Array {
  let table = OPENERS.get(lang);
  if (table === undefined) {
    table = new Uint8Array(128);
    for (const ch of OPENING_CHARS[lang]) table[ch.charCodeAt(0)] = 1;
    OPENERS.set(lang, table);
  }
  return table;
}

const OPENING_CHARS: Record<BraceLanguage, string> = {
  javascript: '/"\'`<',
  typescript: '/"\'`<',
  go: '/"\'`',
  rust: '/"\'rbc',
  java: '/"\'',
  kotlin: '/"\'`',
  csharp: '/"\'@$',
  php: '/"\'`#<?',
};

/** Scans code from the cursor until a literal or comment opens, or the line ends. */
export function scanCode(st: ScanState, cur: Cursor): void {
  const { line } = cur;
  const n = line.length;
  while (cur.i < n && st.literal === null && st.comment === 0) {
    // A run of spaces at once (indentation is much of a source line; a space changes no state).
    let i = cur.i;
    while (i < n && isSpace(line.charCodeAt(i))) i++;
    cur.i = i;
    if (i < n) scanCodeToken(st, cur);
  }
}

/** Scans one token of code at the cursor (or one space). */
function scanCodeToken(st: ScanState, cur: Cursor): void {
  const { line } = cur;
  const c = line.charCodeAt(cur.i);
  if (isSpace(c)) {
    cur.i++;
    return;
  }
  if (c < 128 && st.openers[c] === 1) {
    if (commentAt(st, cur)) return;
    const opening = literalAt(st, cur);
    if (opening !== null) {
      cur.nonComment = true;
      enterLiteral(st, cur, opening);
      return;
    }
  }
  cur.nonComment = true;
  if (c === C_LBRACE) {
    const hole = st.holes[st.holes.length - 1];
    if (hole !== undefined) hole.braces++;
    else st.depth++;
    st.regexOk = true;
    cur.i++;
    return;
  }
  if (c === C_RBRACE) {
    closeBrace(st, cur);
    return;
  }
  if (c === C_LPAREN || c === C_LBRACKET) {
    if (st.holes.length === 0) st.parens++;
    st.regexOk = true;
    cur.i++;
    return;
  }
  if (c === C_RPAREN || c === C_RBRACKET) {
    if (st.holes.length === 0) st.parens--;
    st.regexOk = false;
    cur.i++;
    return;
  }
  if (isIdentStart(c)) {
    let j = cur.i + 1;
    while (j < line.length && isIdentPart(line.charCodeAt(j))) j++;
    st.regexOk = (st.lang === 'javascript' || st.lang === 'typescript') && isRegexWord(line, cur.i, j);
    cur.i = j;
    return;
  }
  if (c >= 48 && c <= 57) {
    let j = cur.i + 1;
    while (j < line.length && (isIdentPart(line.charCodeAt(j)) || line.charCodeAt(j) === 46)) j++;
    st.regexOk = false;
    cur.i = j;
    return;
  }
  st.regexOk = true;
  cur.i++;
}

function closeBrace(st: ScanState, cur: Cursor): void {
  cur.i++;
  st.regexOk = false;
  const hole = st.holes[st.holes.length - 1];
  if (hole === undefined) {
    st.depth--;
    if (st.depth < cur.depthMin) cur.depthMin = st.depth;
    if (st.depth < 0) st.ok = false;
    return;
  }
  if (hole.braces > 0) {
    hole.braces--;
    return;
  }
  // The hole's own `}`: back into the literal it interrupted (and the JSX elements around it).
  st.holes.pop();
  st.literal = hole.resume;
  st.tags = hole.tags;
}
