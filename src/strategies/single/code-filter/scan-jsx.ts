/**
 * The brace scanner's JSX markup (JavaScript, TSX): `<Tag attr="x" prop={expr}>children {expr}
 * </Tag>`, self-closing tags and fragments, nested to any depth. Markup is read like a literal
 * whose `{…}` holes are code, so braces, quotes and slashes in markup text (`Don't`, `a/b`) never
 * count as code, and the lines holding markup are known (a function whose body holds markup is a
 * component, kept whole).
 *
 * Invariant: JSX starts only where an expression may start (`return <div>`, `(<A/>`, `= <>`), and
 * never at a TSX generic (`<T,>`, `<T extends U>`); the markup ends with its outermost element.
 */
import type { Cursor, ScanState } from './scan-state.js';
import { C_DQ, C_LBRACE, C_SLASH, C_SQ, close, codeAt, isIdentStart, literal, openHole } from './scan-state.js';

const C_LT = 60;
const C_GT = 62;

/** Inside a tag: its name and attributes, until `>` or `/>`. */
const TAG = literal('>', { escapes: false, multiline: true, jsx: 'tag' });
/** An element's children: text, `{…}` holes and nested elements, until a closing tag. */
const TEXT = literal('<', { escapes: false, multiline: true, jsx: 'text' });
/** A closing tag `</Tag>`, until its `>`. */
const CLOSING = literal('>', { escapes: false, multiline: true, jsx: 'close' });
/** Attribute strings: no escapes, and back to the tag when they close. */
const ATTR_DQ = literal('"', { escapes: false, multiline: true, after: TAG });
const ATTR_SQ = literal("'", { escapes: false, multiline: true, after: TAG });

/** `<T,>` or `<T extends U>`: a TSX arrow function's type parameters, not markup. */
const GENERIC = /^<\s*[A-Za-z_$][\w$]*\s*(?:,|extends\b)/;

/** Where markup opens at `i` (a `<` in expression position), the literal to scan it as; else null. */
export function jsxAt(line: string, i: number): { literal: typeof TAG; length: number; placeholder: string } | null {
  const next = codeAt(line, i + 1);
  if (next !== C_GT && (!isIdentStart(next) || next === 36)) return null;
  if (GENERIC.test(line.slice(i, i + 120))) return null;
  // A fragment `<>` opens like a tag whose `>` comes at once.
  return { literal: TAG, length: 1, placeholder: '<jsx/>' };
}

/** Moves the cursor through markup until it ends (code resumes), a hole or attribute string opens, or the line ends. */
export function scanJsx(st: ScanState, cur: Cursor): void {
  cur.markup = true;
  const { line } = cur;
  const n = line.length;
  const part = st.literal?.jsx;
  while (cur.i < n) {
    const c = line.charCodeAt(cur.i);
    const next = line.charCodeAt(cur.i + 1);
    if (part === 'tag') {
      if (c === C_DQ || c === C_SQ) {
        st.literal = c === C_DQ ? ATTR_DQ : ATTR_SQ;
        cur.i++;
        return;
      }
      if (c === C_LBRACE) {
        openHole(st, cur, TAG, 1);
        return;
      }
      if (c === C_SLASH && next === C_GT) {
        cur.i += 2;
        elementEnded(st, cur);
        return;
      }
      if (c === C_GT) {
        cur.i++;
        st.tags++;
        st.literal = TEXT;
        return;
      }
    } else if (part === 'text') {
      if (c === C_LBRACE) {
        openHole(st, cur, TEXT, 1);
        return;
      }
      if (c === C_LT && next === C_SLASH) {
        cur.i += 2;
        st.literal = CLOSING;
        return;
      }
      if (c === C_LT && (next === C_GT || isIdentStart(next))) {
        cur.i++;
        st.literal = TAG;
        return;
      }
    } else if (c === C_GT) {
      cur.i++;
      st.tags--;
      elementEnded(st, cur);
      return;
    }
    cur.i++;
  }
}

/** An element closed: back among its parent's children, or, when it was the outermost, back to code. */
function elementEnded(st: ScanState, cur: Cursor): void {
  if (st.tags > 0) {
    st.literal = TEXT;
    return;
  }
  st.literal = TAG;
  close(st, cur);
}
