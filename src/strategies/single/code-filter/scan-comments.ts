/**
 * The brace scanner's comments: `//` line comments (and PHP's `#`, but not its `#[` attributes)
 * and `/* … *\/` block comments, which nest in Rust and Kotlin. A comment vanishes from the
 * line's code (a block comment leaves one space, so the code on either side does not fuse).
 *
 * Invariant: inside a comment nothing is code: no brace, quote or bracket counts, except that a
 * PHP line comment ends at `?>` (the rest of the line is inline HTML).
 */
import type { Cursor, ScanState } from './scan-state.js';
import { C_HASH, C_LBRACKET, C_SLASH, C_STAR, codeAt, cut, resumeCode } from './scan-state.js';
import { PHP_HTML } from './scan-strings.js';

/** Block comments nest in these languages (`/* /* *\/ *\/` is one comment). */
function nests(st: ScanState): boolean {
  return st.lang === 'rust' || st.lang === 'kotlin';
}

/**
 * Opens a comment at the cursor when one starts there: a line comment ends the line's scan, a
 * block comment moves the scan into it. Answers whether one did.
 */
export function commentAt(st: ScanState, cur: Cursor): boolean {
  const { line, i } = cur;
  const c = line.charCodeAt(i);
  const next = codeAt(line, i + 1);
  if (c === C_SLASH && next === C_STAR) {
    cut(cur, ' ');
    st.comment = 1;
    cur.i += 2;
    return true;
  }
  const lineComment = (c === C_SLASH && next === C_SLASH) || (c === C_HASH && st.lang === 'php' && next !== C_LBRACKET);
  if (!lineComment) return false;
  cut(cur, '');
  const tag = st.lang === 'php' ? line.indexOf('?>', i) : -1;
  if (tag < 0) {
    cur.i = line.length;
    return true;
  }
  st.literal = PHP_HTML;
  cur.i = tag + 2;
  return true;
}

/** Moves the cursor through a block comment until it closes (then code resumes) or the line ends. */
export function scanComment(st: ScanState, cur: Cursor): void {
  const { line } = cur;
  if (!nests(st)) {
    const end = line.indexOf('*/', cur.i);
    if (end < 0) {
      cur.i = line.length;
      return;
    }
    st.comment = 0;
    cur.i = end + 2;
    resumeCode(st, cur);
    return;
  }
  const n = line.length;
  while (cur.i < n) {
    const c = line.charCodeAt(cur.i);
    if (c === C_SLASH && line.charCodeAt(cur.i + 1) === C_STAR) {
      st.comment++;
      cur.i += 2;
    } else if (c === C_STAR && line.charCodeAt(cur.i + 1) === C_SLASH) {
      st.comment--;
      cur.i += 2;
      if (st.comment === 0) {
        resumeCode(st, cur);
        return;
      }
    } else cur.i++;
  }
}
