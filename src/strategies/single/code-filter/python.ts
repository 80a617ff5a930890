/**
 * Body elision for Python, by indentation over logical lines. Every `def` / `async def` found
 * outside an elided body keeps its whole signature (all lines of a multi-line one) and, when
 * preserved, its docstring; the rest of its body becomes `# … N lines elided (a–b)` at the
 * body's own indentation, when that is at least `MIN_ELIDED_LINES` lines, around any `raise`
 * carrying a written message (error-text.ts), which stays. Classes, decorators, imports,
 * constants and every other statement are kept line for line, so methods are reached one by one.
 *
 * Invariants (reference §14 B6):
 * - A body ends only at a *statement* indented no deeper than its `def`: lines inside strings
 *   (even at column 0), brackets and comments never end it.
 * - A one-liner `def f(): return 1` stays as it is (no marker).
 * - `#` lines inside strings are code, never comments; shebang and encoding lines are kept.
 * - Comment-only lines outside bodies are kept when `preserve` is on; when it is off a run of
 *   them becomes a marker (runs under 3 lines stay).
 */
import type { LinePlanItem } from '../../../core/strategy.js';
import { raisesWithMessage } from './error-text.js';
import type { BlockOptions, BlockResult } from './plan.js';
import { elidedMarker, elideRange, indentWidth, leadingWhitespace, markerIndent } from './plan.js';
import type { PyLine } from './python-scanner.js';
import { scanPython } from './python-scanner.js';

const DEF = /^\s*(?:async\s+)?def\s+[^\s(]/;
/** `#!…` or a PEP 263 coding declaration; both only mean something on the first two lines. */
const SHEBANG_OR_CODING = /^(?:#!|[ \t\f]*#.*coding[:=])/;

/** Filters `lines[start..end)` as one Python text; the plan covers exactly that range. */
export function filterPythonBlock(
  lines: readonly string[],
  start: number,
  end: number,
  opts: BlockOptions,
): BlockResult {
  const scan = scanPython(lines, start, end, opts.openStart);
  // A window starting mid-file may start inside a string, which would turn code and text around:
  // such a window must at least end outside any string or bracket.
  if (!scan.ok || (scan.open && (!opts.openEnd || opts.openStart)))
    return { ok: false, reason: 'unterminated string or unbalanced brackets' };
  const preserve = opts.preserve;
  const info = scan.lines;
  const count = info.length;
  const at = (k: number): PyLine => info[k] ?? BLANK;
  const raw = (k: number): string => lines[start + k] ?? '';
  const blank = (k: number): boolean => raw(k).trim() === '';
  const plan: LinePlanItem[] = [];
  const keep = (k: number): void => {
    plan.push(start + k);
  };
  /** The last physical line of the logical line starting at `k`. */
  const logicalEnd = (k: number): number => {
    let e = k;
    while (e + 1 < count && at(e).continues) e++;
    return e;
  };

  /** Lines of `from..to` in `raise` statements that carry a written message (error-text.ts). */
  const raiseStatements = (from: number, to: number): Set<number> => {
    const kept = new Set<number>();
    for (let k = from; k <= to; k++) {
      if (!at(k).logicalStart) continue;
      const e = Math.min(logicalEnd(k), to);
      let code = '';
      for (let t = k; t <= e; t++) code += at(t).code;
      if (raisesWithMessage('python', code)) for (let t = k; t <= e; t++) kept.add(t);
      k = e;
    }
    return kept;
  };

  let i = 0;
  while (i < count) {
    const s = at(i);
    if (blank(i) || !s.logicalStart) {
      keep(i++);
      continue;
    }
    if (s.commentOnly) {
      if (preserve || (i < 2 && SHEBANG_OR_CODING.test(raw(i)))) {
        keep(i++);
        continue;
      }
      // Comments dropped (preserve off): a run of them becomes one marker, like a body.
      let e = i;
      while (e + 1 < count && at(e + 1).commentOnly && at(e + 1).logicalStart) e++;
      const indent = leadingWhitespace(raw(i));
      elideRange(
        plan,
        start + i,
        start + e,
        (a, b) => elidedMarker('python', indent, opts.lineNumber(a), opts.lineNumber(b)),
        () => false,
      );
      i = e + 1;
      continue;
    }
    if (!DEF.test(s.code)) {
      keep(i++);
      continue;
    }
    const j = logicalEnd(i);
    let header = '';
    for (let k = i; k <= j; k++) {
      keep(k);
      header += at(k).code;
    }
    // `def f(): return 1` has its body on the signature line: nothing to elide.
    if (!header.trimEnd().endsWith(':')) {
      i = j + 1;
      continue;
    }
    const defIndent = indentWidth(raw(i));
    let first = -1;
    let last = j;
    let k = j + 1;
    while (k < count) {
      const t = at(k);
      if (t.logicalStart && !t.commentOnly && !blank(k)) {
        if (indentWidth(raw(k)) <= defIndent) break;
        if (first < 0) first = k;
        last = logicalEnd(k);
        k = last + 1;
        continue;
      }
      k++;
    }
    if (first < 0) {
      i = j + 1;
      continue;
    }
    // Comments indented under the body after its last statement still belong to it.
    for (let t = last + 1; t < count; t++) {
      if (blank(t)) continue;
      if (!at(t).commentOnly || indentWidth(raw(t)) <= defIndent) break;
      last = t;
    }
    let elideFrom = j + 1;
    const docEnd = logicalEnd(first);
    if (preserve && isStringStatement(info, first, docEnd)) {
      for (let d = j + 1; d <= docEnd; d++) keep(d);
      elideFrom = docEnd + 1;
    }
    const indent = markerIndent(raw(i), raw(first), 'python');
    const kept = raiseStatements(elideFrom, last);
    elideRange(
      plan,
      start + elideFrom,
      start + last,
      (a, b) => elidedMarker('python', indent, opts.lineNumber(a), opts.lineNumber(b)),
      (index) => kept.has(index - start),
    );
    i = last + 1;
  }
  return { ok: true, plan };
}

/** True when the logical line `from..to` is a lone string literal (a docstring). */
function isStringStatement(info: readonly PyLine[], from: number, to: number): boolean {
  let code = '';
  for (let k = from; k <= to; k++) code += info[k]?.code ?? '';
  return code.trim() === '""';
}

const BLANK: PyLine = { code: '', logicalStart: false, commentOnly: false, continues: false };
