/**
 * A string- and comment-aware scanner for the brace languages. It walks the lines once, carrying
 * state across them (scan-state.ts), and reports for each line its code with literals and
 * comments blanked out, the brace depth before / lowest within / after it, and the bracket depth.
 * The work is split by what is being scanned: code (scan-code.ts), literals (scan-strings.ts),
 * JSX markup (scan-jsx.ts) and comments (scan-comments.ts); reference §14 B7 lists what the
 * original got wrong.
 *
 * Invariant: the scan is linear and never throws. It reports a brace depth that goes below 0, a
 * text ending inside a comment, template or raw string, and its final depth (not 0 when braces
 * stay open); callers leave such text whole rather than guess, unless the read is known to start
 * mid-file (a depth below 0) or to stop early (something left open at the end).
 */
import { openers, scanCode } from './scan-code.js';
import { scanComment } from './scan-comments.js';
import type { Cursor } from './scan-state.js';
import { newState } from './scan-state.js';
import { PHP_HTML, endOfLine, scanLiteral } from './scan-strings.js';
import type { BraceLanguage } from './languages.js';

/** What the scanner learnt about one line. */
export interface ScannedLine {
  /** The line's code: literals become `""`, regexes `/r/`, comments vanish. */
  code: string;
  /** The line begins inside a string, template or block comment. */
  startsInside: boolean;
  /** Everything on the line that is not whitespace is comment. */
  commentOnly: boolean;
  /** Brace depth before the line. */
  depthStart: number;
  /** Lowest brace depth reached on the line. */
  depthMin: number;
  /** Brace depth after the line. */
  depthEnd: number;
  /** Depth of `(` and `[` after the line, counted from the start of the scan. */
  parenEnd: number;
  /** The line holds JSX markup. */
  markup: boolean;
}

export interface ScanResult {
  lines: ScannedLine[];
  /** A brace closed that never opened in the text (confusion, unless the text starts mid-file). */
  negative: boolean;
  /** The text ends inside a literal, comment or interpolation hole (confusion, unless it was cut short). */
  endsInside: boolean;
  /** Brace depth at the end (0 for a whole, balanced text; more for a text cut short). */
  depthEnd: number;
  /** Lowest brace depth reached (below 0 only when `negative`). */
  depthMin: number;
}

/** Scans `lines[start..end)` as one source text in `lang` (with JSX markup when `jsx`). */
export function scanBraces(
  lines: readonly string[],
  start: number,
  end: number,
  lang: BraceLanguage,
  jsx = false,
): ScanResult {
  const st = newState(lang, openers(lang), jsx);
  // A PHP file is HTML until its first `<?php` (a snippet without one is all code).
  if (lang === 'php' && hasPhpOpenTag(lines, start, end)) st.literal = PHP_HTML;
  const out: ScannedLine[] = [];
  // One cursor, reset for each line (a fresh object per line was a measurable share of a read's cost).
  const cur: Cursor = {
    line: '',
    i: 0,
    code: '',
    from: 0,
    nonComment: false,
    depthMin: 0,
    escapedAtEnd: false,
    markup: false,
  };
  for (let li = start; li < end; li++) {
    const line = lines[li] ?? '';
    const inCode = st.literal === null && st.comment === 0;
    const startsInside = !inCode || st.holes.length > 0;
    cur.line = line;
    cur.i = 0;
    cur.code = '';
    cur.from = inCode && st.holes.length === 0 ? 0 : -1;
    cur.nonComment = st.literal !== null || st.holes.length > 0;
    cur.depthMin = st.depth;
    cur.escapedAtEnd = false;
    cur.markup = false;
    const depthStart = st.depth;
    while (cur.i < line.length) {
      if (st.comment > 0) scanComment(st, cur);
      else if (st.literal !== null) {
        cur.nonComment = true;
        scanLiteral(st, cur);
      } else scanCode(st, cur);
    }
    endOfLine(st, cur);
    if (cur.from >= 0) cur.code += line.slice(cur.from);
    out.push({
      code: cur.code,
      startsInside,
      commentOnly: !cur.nonComment && NOT_BLANK.test(line),
      depthStart,
      depthMin: cur.depthMin,
      depthEnd: st.depth,
      parenEnd: st.parens,
      markup: cur.markup,
    });
  }
  const openLiteral = st.literal !== null && !st.literal.mayEndOpen;
  let depthMin = 0;
  for (const line of out) if (line.depthMin < depthMin) depthMin = line.depthMin;
  return {
    lines: out,
    negative: !st.ok,
    endsInside: openLiteral || st.comment > 0 || st.holes.length > 0,
    depthEnd: st.depth,
    depthMin,
  };
}

const NOT_BLANK = /\S/;

function hasPhpOpenTag(lines: readonly string[], start: number, end: number): boolean {
  for (let li = start; li < end; li++) if (/<\?(?:php\b|=)/.test(lines[li] ?? '')) return true;
  return false;
}
