/**
 * How much each line of a log matters, read in context: the per-line signals of signals.ts, raised
 * by what the neighbouring lines say. A traceback's last line names the exception whatever its
 * name (`KeyboardInterrupt`, `payments.CardDeclined`); the line before a run of `at` frames is a
 * headline; `Caused by:` and Python's chaining sentences lead to the root cause; the indented or
 * gutter lines under a warning or error (rustc's `-->` and `|`, terraform's `│`, a deprecation's
 * source line) are its detail; the less indented line above an indented problem names its file
 * or test (eslint, pytest's warnings summary); a numbered entry in a failing run is a test title.
 *
 * A passing test's line (`✓ reports a failure in "FATAL: …"`) scores 0 and is never raised.
 *
 * A diagnostic printed over several lines has a message and a location on different lines (ruff,
 * rustc and oxlint print the location under the message, `--> path:12:5` or `╭─[path:12:5]`;
 * deno lint ends with `at path:12:5` under a code frame; shellcheck heads it `In path line 12:`).
 * The two are partners: a cut that keeps one keeps the other, so the model never learns where
 * without what (issue 15). A detail line's partner is its header.
 *
 * Invariant: context only ever raises a score (never lowers one), and every rule looks at a
 * bounded window, so scoring stays linear in the number of lines.
 */
import { linesToCheck } from './lines-to-check.js';
import { CONTEXT_ANYWHERE, importance, isPassingTestLine, reportsFailure, reportsWarning } from './signals.js';

/** 3 summary / headline / root cause / failing title, 2 failure or its detail, 1 warning / location, 0 none. */
export type Score = 0 | 1 | 2 | 3;

const PY_TRACEBACK = /Traceback \(most recent call last\):/;
const PY_FRAME = /^\s+File "/;
const CHAIN_SENTENCE =
  /The above exception was the direct cause of the following exception|During handling of the above exception, another exception occurred/;
const CAUSE_LINE = /^\s*Caused by:|\[cause\]:|^\s*--->\s|^\s*\*\* \(EXIT\)/;
const CAUSE_HEADER = /^\s*Caused by:\s*$/;
const FRAME = /^(?:\s+at\s|\tat\s|\s+from\s|\tfrom\s)/;
const RUST_PANIC = /panicked at\b/;
const GO_PANIC = /^panic: /;
const GO_RUNNING = /^goroutine \d+ \[running\]:/;
const CPP_TERMINATE = /terminate called after throwing/;
const CPP_WHAT = /^\s*what\(\):/;
const NODE_CARET = /^\s*\^+\s*$/;
const NUMBERED_TITLE = /^\s*\d+\) \S/;
/** Lines shaped like diagnostic detail: code gutters, `-->` spans, `= note:`, caret/tilde underlines, tree ends. */
const DETAIL_SHAPE = /^\s*(?:\d+\s*)?[|│]|^\s*-->|^\s*= \w|^\s*[\^~-]+\s*(?:\S.*)?$|^\s*└─|^\s*\d+\s{2,}\S/;
const BOX_PREFIX = /^\s*[│┃]/;
const BOX_END = /^\s*[╵└]/;
/**
 * Any line a context rule starts from, in two cheap passes: shapes at the start of a line, and
 * words anywhere (the rules below test the line again precisely).
 */
const TRIGGER_AT_START = /^(?:\s|panic: |goroutine |\d+\) |Caused by:|In \S+ line \d+:$)/;
/**
 * The first characters TRIGGER_AT_START can match (`\s`, `p`, `g`, a digit, `C`, `I`): most lines
 * start with none of them and skip the regex. Every character beyond ASCII is let through (`\s`
 * holds Unicode spaces), so this only ever says "maybe".
 */
function mayTriggerAtStart(line: string): boolean {
  if (line.length === 0) return false;
  const c = line.charCodeAt(0);
  return (
    c <= 32 ||
    c >= 127 ||
    c === 112 /* p */ ||
    c === 103 /* g */ ||
    c === 67 /* C */ ||
    c === 73 /* I */ ||
    (c >= 48 && c <= 57)
  );
}
/** A location printed under its diagnostic's message: rustc/ruff `--> path:1:2`, oxlint/miette `╭─[path:1:2]`. */
const ARROW_LOCATION = /^\s*(?:-->|[╭┌]─+\[)\s*\S+:\d+/;
/** A frame that is a location alone (deno lint), not a function's frame (`at log (x.ts:1:2)`). */
const BARE_AT = /^\s+at \S+:\d+:\d+\s*$/;
/** shellcheck's header above a diagnostic: `In path line 12:`. */
const LOCATION_HEADER = /^In \S+ line \d+:$/;
const BLANK = /^\s*$/;
const INDENT = /^\s*/;

/** Lines after a header that may be its detail. */
const DETAIL_CAP = 12;
/** A blank-terminated paragraph this short is read as one diagnostic (webpack, elixir, npm). */
const PARAGRAPH_CAP = 7;
/** How far up the parent of an indented problem may be. */
const PARENT_REACH = 6;

function indentOf(line: string): number {
  return (INDENT.exec(line)?.[0] ?? '').replace(/\t/g, '    ').length;
}

/**
 * Scores every line of `lines[0, count)`; see the header for the rules. `hot` (from
 * `linesToCheck`) says which lines may matter at all: the others are never tested one by one.
 */
export function lineScores(
  lines: readonly string[],
  count: number,
  hot: Uint8Array = linesToCheck(lines, count),
): Uint8Array {
  return lineContext(lines, count, hot).scores;
}

/** Each line's score, and its partner (the line a cut keeping it must keep too; -1: none). */
export interface LineContext {
  scores: Uint8Array;
  partners: Int32Array;
  /**
   * 1 on a diagnostic's message line (issue 25): the message above a location (`--> path:1:2`,
   * `╭─[path:1:2]`, deno's `at path:1:2`, under shellcheck's `In path line 1:`), or a line that is
   * a diagnostic and its location at once (`src/a.c:1:2: error: …`, `error: … at src/a.ts:1:2`).
   * A cut keeps every one of them, whatever happens to their snippets.
   */
  messages: Uint8Array;
}

/** A diagnostic and its location on one line: gcc/tsc/go vet style, or a codeframe's `error: … at path:1:2`. */
const INLINE_DIAGNOSTIC =
  /^\S+:\d+:\d+:?\s+(?:fatal error|error|warning)\b|^(?:error|warning)(?:\[[\w-]+\])?:\s.*\s(?:at\s)?\S+:\d+:\d+:?\s*$/i;

export function lineContext(
  lines: readonly string[],
  count: number,
  hot: Uint8Array = linesToCheck(lines, count),
): LineContext {
  const scores = new Uint8Array(count);
  const partners = new Int32Array(count).fill(-1);
  const messages = new Uint8Array(count);
  // `a` is a location, `b` its diagnostic's message.
  const pair = (a: number, b: number): void => {
    if (a < 0 || b < 0 || a >= count || b >= count) return;
    partners[a] = b;
    partners[b] = a;
    messages[b] = 1;
  };
  // A passing test's line stays 0 whatever its title names or its neighbours say.
  const passing = new Uint8Array(count);
  const at = (i: number): string => lines[i] ?? '';
  const raise = (i: number, s: Score): void => {
    if (i >= 0 && i < count && (scores[i] ?? 0) < s && passing[i] === 0) scores[i] = s;
  };
  let failing = false;
  for (let i = 0; i < count; i++) {
    if (hot[i] === 0) continue;
    const line = at(i);
    if (isPassingTestLine(line)) {
      passing[i] = 1;
      continue;
    }
    const s = importance(line);
    scores[i] = s;
    if (s >= 2) failing = true;
    if (s >= 1 && INLINE_DIAGNOSTIC.test(line)) messages[i] = 1;
  }

  for (let i = 0; i < count; i++) {
    const line = at(i);
    if (
      passing[i] === 1 ||
      (!(mayTriggerAtStart(line) && TRIGGER_AT_START.test(line)) && !(hot[i] === 1 && CONTEXT_ANYWHERE.test(line)))
    )
      continue;
    if (PY_TRACEBACK.test(line)) {
      raise(i, 2);
      pythonTraceback(i);
    }
    if (CHAIN_SENTENCE.test(line)) raise(i, 2);
    if (CAUSE_LINE.test(line)) raise(i, 3);
    if (CAUSE_HEADER.test(line)) {
      for (let j = i + 1; j < Math.min(count, i + 1 + DETAIL_CAP) && !BLANK.test(at(j)) && indentOf(at(j)) > 0; j++)
        raise(j, 3);
    }
    if (FRAME.test(line) && !FRAME.test(at(i - 1))) {
      raise(i, 2);
      // The headline of a run of frames: the message just above it (Java, Node, Ruby, .NET).
      const head = BLANK.test(at(i - 1)) ? i - 2 : i - 1;
      if (head >= 0 && !BLANK.test(at(head)) && !FRAME.test(at(head))) raise(head, 3);
      // A lone bare location under a code frame (deno lint's `at /app/x.ts:12:5`, no function
      // named): its message is the nearest less indented line above.
      if (BARE_AT.test(line) && !FRAME.test(at(i + 1))) {
        const message = lessIndentedAbove(i);
        if (message >= 0) {
          raise(message, 2);
          pair(i, message);
        }
      }
    }
    if (ARROW_LOCATION.test(line)) {
      const message = messageAbove(i);
      if (message >= 0) {
        raise(message, Math.max(1, scores[i] ?? 0) as Score);
        pair(i, message);
      }
    }
    if (LOCATION_HEADER.test(line)) {
      for (let j = i + 1; j <= i + 3 && j < count && !BLANK.test(at(j)); j++) {
        if ((scores[j] ?? 0) > 0 && hot[j] === 1 && (reportsFailure(at(j)) || reportsWarning(at(j)))) {
          raise(i, scores[j] as Score);
          pair(i, j);
          break;
        }
      }
    }
    if (RUST_PANIC.test(line)) {
      raise(i, 3);
      if (/:\s*$/.test(line)) raise(i + 1, 3);
    }
    if (GO_PANIC.test(line)) {
      raise(i, 3);
      if (/^\[signal /.test(at(i + 1))) raise(i + 1, 2);
    }
    if (GO_RUNNING.test(line)) {
      raise(i + 1, 2);
      raise(i + 2, 2);
    }
    if (CPP_TERMINATE.test(line)) {
      raise(i, 3);
      if (CPP_WHAT.test(at(i + 1))) raise(i + 1, 3);
    }
    if (NODE_CARET.test(line) && i >= 2 && /:\d+\s*$/.test(at(i - 2))) {
      raise(i - 2, 2);
      raise(i - 1, 2);
    }
    if (failing && NUMBERED_TITLE.test(line)) {
      raise(i, 3);
      // mocha prints a title's last part on the next, deeper line, ending with ':'.
      for (let j = i + 1; j <= i + 2 && indentOf(at(j)) > indentOf(line) && /:\s*$/.test(at(j)); j++) raise(j, 3);
    }
  }

  // Detail and parents read the scores the rules above settled, so they run after them.
  for (let i = 0; i < count; i++) {
    const line = at(i);
    const base = scores[i] ?? 0;
    // A traceback's structure is read above; its paragraph is not one diagnostic.
    if (base === 0 || PY_TRACEBACK.test(line) || !(reportsFailure(line) || reportsWarning(line))) continue;
    const detail: Score = base >= 2 ? 2 : 1;
    diagnosticDetail(i, detail);
    const own = indentOf(line);
    if (own > 0) {
      for (let j = i - 1; j >= Math.max(0, i - PARENT_REACH); j--) {
        const above = at(j);
        if (BLANK.test(above)) continue;
        if (indentOf(above) < own) {
          raise(j, detail);
          break;
        }
      }
    }
  }
  return { scores, partners, messages };

  /** The line naming the diagnostic whose location `i` is: the nearest line above that is not blank nor detail. */
  function messageAbove(i: number): number {
    for (let j = i - 1; j >= Math.max(0, i - 3); j--) {
      const above = at(j);
      if (BLANK.test(above) || DETAIL_SHAPE.test(above)) continue;
      return ARROW_LOCATION.test(above) ? -1 : j;
    }
    return -1;
  }

  /** The nearest non-blank line above `i` that is less indented, within reach. */
  function lessIndentedAbove(i: number): number {
    const own = indentOf(at(i));
    for (let j = i - 1; j >= Math.max(0, i - PARENT_REACH); j--) {
      const above = at(j);
      if (!BLANK.test(above) && indentOf(above) < own) return j;
    }
    return -1;
  }

  /** Python: the frames after `Traceback`, the exception line under them, the last frame's code. */
  function pythonTraceback(start: number): void {
    let j = start + 1;
    let lastFrame = -1;
    while (j < count && (/^\s/.test(at(j)) || (BLANK.test(at(j)) === false && PY_FRAME.test(at(j))))) {
      if (PY_FRAME.test(at(j))) lastFrame = j;
      j++;
    }
    if (j >= count || BLANK.test(at(j))) return;
    raise(j, 3);
    for (let k = j + 1; k <= j + 3 && /^\s+\S/.test(at(k)) && !PY_TRACEBACK.test(at(k)); k++) raise(k, 3);
    if (lastFrame >= 0) for (let k = lastFrame; k < j; k++) raise(k, 2);
  }

  /** Line `j` is detail of header `i`: raised to `s`, and a cut keeping it keeps its header. */
  function detailOf(j: number, i: number, s: Score): void {
    raise(j, s);
    if (partners[j] === -1 && passing[j] === 0) partners[j] = i;
  }

  /** The lines under a warning or failure: its paragraph when short, else its detail-shaped lines. */
  function diagnosticDetail(i: number, s: Score): void {
    const header = at(i);
    let end = -1;
    for (let j = i + 1; j <= i + PARAGRAPH_CAP + 1 && j <= count; j++) {
      if (j === count || BLANK.test(at(j))) {
        end = j;
        break;
      }
    }
    if (end > i + 1) {
      for (let j = i + 1; j < end; j++) detailOf(j, i, s);
    }
    const boxed = BOX_PREFIX.test(header);
    const own = indentOf(header);
    let j = Math.max(end, i + 1);
    let taken = j - i - 1;
    while (j < count && taken < DETAIL_CAP) {
      const line = at(j);
      if (BLANK.test(line)) {
        // A blank line ends the detail unless indented or gutter lines carry on after it (tsc).
        const next = at(j + 1);
        if (BLANK.test(next) || !(indentOf(next) > own || DETAIL_SHAPE.test(next))) break;
        j++;
        continue;
      }
      if (boxed ? BOX_END.test(line) || !BOX_PREFIX.test(line) : !(indentOf(line) > own || DETAIL_SHAPE.test(line)))
        break;
      if (j > i + 1 && hot[j] === 1 && (reportsFailure(line) || reportsWarning(line)) && indentOf(line) <= own) break;
      detailOf(j, i, s);
      taken++;
      j++;
    }
  }
}
