/**
 * Body elision for the brace languages (JavaScript, TypeScript, Rust, Go, PHP, Java, C#, Kotlin).
 * Walks the scanned lines with a stack of containers (the file, class/impl/trait bodies,
 * namespaces and modules, struct/interface/enum field lists). A function or method header found
 * at container level (headers.ts) keeps all of its lines (multi-line signatures, `where` and
 * `throws` clauses); its body becomes one marker naming its line range when it is at least
 * `MIN_ELIDED_LINES` long, and its closing line stays. Statements raising an error with a written
 * message stay (error-text.ts), splitting the marker. In JavaScript and TSX a function whose body
 * holds markup is a component and is kept whole. A read that starts mid-file begins in a
 * container of unknown kind; one that stops early may end inside a body, elided to its end.
 *
 * Invariants (reference §14 B7):
 * - Only lines strictly inside a function body's braces are ever elided; everything this code
 *   does not recognise (object literals, `module.exports`, Go `import (` / `var (` groups, Rust
 *   attributes and macros, statements, fields) is kept byte for byte.
 * - Methods are never lost: class/impl/trait bodies are descended into, not elided.
 * - Comment-only lines outside bodies are kept when `preserve` is on; when it is off a run of
 *   them becomes a marker (runs under 3 lines stay), except tool directives (`//go:build`,
 *   `/// <reference`, `// @ts-…`, shebangs), which always stay.
 * - A scan that ends confused yields a reason, never a plan (unless the read is known to start
 *   or stop mid-file, and only in the way that explains).
 */
import type { LinePlanItem } from '../../../core/strategy.js';
import type { BraceLanguage } from './languages.js';
import { looksLikeJsx } from './languages.js';
import { errorStatements } from './error-text.js';
import type { BlockOptions, BlockResult } from './plan.js';
import { elidedMarker, elideRange, firstNonBlank, indentWidth, leadingWhitespace, markerIndent } from './plan.js';
import type { ContainerKind, HeaderKind } from './headers.js';
import {
  ARROW_BODY,
  CONTINUATION,
  DIRECTIVE,
  FUNCTION_VALUE,
  METHOD_SHAPE,
  VAR_CONTINUES,
  classifyHeader,
} from './headers.js';
import type { ScannedLine } from './scanner.js';
import { scanBraces } from './scanner.js';

interface Frame {
  depth: number;
  kind: ContainerKind;
}

/** Filters `lines[start..end)` as one source text; the plan covers exactly that range. */
export function filterBraceBlock(
  lines: readonly string[],
  start: number,
  end: number,
  lang: BraceLanguage,
  opts: BlockOptions,
): BlockResult {
  const scan = scanBraces(lines, start, end, lang, opts.jsx);
  // TypeScript outside .tsx has no markup; code that looks like it would be misread, so stays whole.
  if (lang === 'typescript' && !opts.jsx && scan.lines.some((l) => looksLikeJsx(l.code)))
    return { ok: false, reason: 'JSX markup outside a .tsx file' };
  const cutShort = scan.endsInside || scan.depthEnd > scan.depthMin;
  if ((scan.negative && !opts.openStart) || (cutShort && !opts.openEnd)) {
    return { ok: false, reason: 'unbalanced braces or an unterminated string/comment' };
  }
  const preserve = opts.preserve;
  const info = scan.lines;
  const count = info.length;
  const at = (k: number): ScannedLine => info[k] ?? EMPTY;
  const raw = (k: number): string => lines[start + k] ?? '';
  const plan: LinePlanItem[] = [];
  const keep = (k: number): void => {
    plan.push(start + k);
  };
  // A read starting mid-file stands inside containers it never saw (a class body, a function):
  // its root is of unknown kind, and sinks a level each time a brace closes one of them.
  const root: Frame = { depth: 0, kind: opts.openStart ? 'unknown' : 'module' };
  const frames: Frame[] = [root];
  const top = (): Frame => frames[frames.length - 1] ?? root;

  /** After line `k` was kept, closes containers it closed and keeps any block it opened whole. */
  const settle = (k: number): number => {
    let cur = k;
    for (;;) {
      const s = at(cur);
      while (frames.length > 1 && top().depth > s.depthMin) frames.pop();
      if (frames.length === 1 && s.depthMin < root.depth) root.depth = s.depthMin;
      if (s.depthEnd <= top().depth) return cur + 1;
      let m = cur + 1;
      while (m < count && at(m).depthMin > top().depth) keep(m++);
      if (m >= count) return count;
      keep(m);
      cur = m;
    }
  };

  /** The last line of a header starting at `i` (a signature may span lines). */
  const headerEnd = (i: number, kind: HeaderKind): number => {
    const depth = top().depth;
    const parenBase = i > 0 ? at(i - 1).parenEnd : 0;
    const indent = indentWidth(raw(i));
    let sawBrace = false;
    for (let j = i; ; j++) {
      const s = at(j);
      if (s.depthMin < depth || j + 1 >= count) return j;
      const parens = s.parenEnd - parenBase;
      if (s.code.includes('{')) sawBrace = true;
      if (parens > 0) continue;
      if (s.depthEnd > depth) return j;
      const code = s.code.trimEnd();
      if (sawBrace || code.endsWith(';')) return j;
      if (kind === 'maybe-function' && !VAR_CONTINUES.test(code)) return j;
      const next = at(j + 1);
      const nextRaw = raw(j + 1);
      if (BLANK.test(nextRaw) || next.startsInside || next.commentOnly) return j;
      if (!CONTINUATION.test(next.code) && indentWidth(nextRaw) <= indent) return j;
    }
  };

  let i = 0;
  while (i < count) {
    const s = at(i);
    const line = raw(i);
    if (BLANK.test(line)) {
      keep(i++);
      continue;
    }
    if (s.commentOnly) {
      if (preserve || DIRECTIVE.test(line)) {
        keep(i++);
        continue;
      }
      // Comments dropped (preserve off): a run of them becomes one marker, like a body.
      let e = i;
      while (e + 1 < count && at(e + 1).commentOnly && !DIRECTIVE.test(raw(e + 1))) e++;
      const indent = leadingWhitespace(line);
      elideRange(
        plan,
        start + i,
        start + e,
        (a, b) => elidedMarker(lang, indent, opts.lineNumber(a), opts.lineNumber(b)),
        () => false,
      );
      i = e + 1;
      continue;
    }
    const frame = top();
    const kind = s.startsInside ? null : classifyHeader(s.code, lang, frame.kind);
    if (kind === null) {
      keep(i);
      i = settle(i);
      continue;
    }
    const j = headerEnd(i, kind);
    for (let k = i; k <= j; k++) keep(k);
    const last = at(j);
    if (last.depthMin < frame.depth || last.depthEnd <= frame.depth) {
      i = settle(j);
      continue;
    }
    let isFunction = kind === 'function';
    if (kind === 'maybe-function' || kind === 'maybe-method') {
      let header = '';
      for (let k = i; k <= j; k++) header += `${at(k).code.trim()} `;
      header = header.trimEnd();
      isFunction =
        kind === 'maybe-method'
          ? METHOD_SHAPE.test(header) && !ARROW_BODY.test(header)
          : ARROW_BODY.test(header) || (header.endsWith('{') && FUNCTION_VALUE.test(header));
    }
    if (isFunction) {
      let k = j + 1;
      while (k < count && at(k).depthMin > frame.depth) k++;
      // A body still open where a partial read stops runs to the end of what was shown.
      if (k >= count && !opts.openEnd) return { ok: false, reason: 'a function body never closes' };
      // A component (its body holds markup, or builds it) is kept whole (docs/engine.md, TSX).
      if (opts.jsx && isComponent(info, i, k)) {
        for (let b = j + 1; b < Math.min(k + 1, count); b++) keep(b);
        if (k >= count) return { ok: true, plan };
        i = settle(k);
        continue;
      }
      const indent = markerIndent(raw(i), firstNonBlank(lines, start + j + 1, start + k), lang);
      const kept = errorStatements(lang, info, j + 1, k, (l) => l?.parenEnd ?? 0);
      elideRange(
        plan,
        start + j + 1,
        start + k - 1,
        (a, b) => elidedMarker(lang, indent, opts.lineNumber(a), opts.lineNumber(b)),
        (index) => kept.has(index - start),
      );
      if (k >= count) return { ok: true, plan };
      keep(k);
      i = settle(k);
      continue;
    }
    if ((kind === 'class' || kind === 'module' || kind === 'fields') && last.depthEnd === frame.depth + 1) {
      frames.push({ depth: frame.depth + 1, kind });
      i = j + 1;
      continue;
    }
    i = settle(j);
  }
  return { ok: true, plan };
}

/** A line of whitespace only (tested, not trimmed: no string per line). */
const BLANK = /^\s*$/;

const BUILDS_MARKUP = /\b(?:createElement|_?jsxs?|jsxDEV)\(/;

/** True when a function's header or body (lines `from..to` of the scan) holds JSX markup or builds elements. */
function isComponent(info: readonly ScannedLine[], from: number, to: number): boolean {
  for (let k = from; k <= to && k < info.length; k++) {
    const line = info[k] as ScannedLine;
    if (line.markup || BUILDS_MARKUP.test(line.code)) return true;
  }
  return false;
}

const EMPTY: ScannedLine = {
  code: '',
  startsInside: false,
  commentOnly: false,
  depthStart: 0,
  depthMin: 0,
  depthEnd: 0,
  parenEnd: 0,
  markup: false,
};
