/**
 * One scan of a whole output that says which lines may matter (`linesToCheck`), so that truncation
 * and line-scores.ts test only those lines one by one with the exact patterns of signals.ts; in a
 * long log most lines are never looked at again.
 *
 * Invariant: the scan finds a superset: a line it leaves unmarked has importance 0, is no passing
 * test's line, reports no failure or warning and holds no context trigger that looks anywhere in a
 * line (`test/strategies/shared/lines-to-check.test.ts` holds every pattern of signals.ts to it).
 */
/**
 * The words and shapes a line must hold somewhere for `importance` to rank it above 0,
 * `isPassingTestLine` to hold or a context rule of line-scores.ts to look at it, as one scan of
 * the whole (lower-cased) text: lines it does not touch need no closer look, and in a long log
 * that is most of them. Each exact pattern of signals.ts has its stem here: a failure or warning word,
 * a location's `.ext:12`, a test verdict. The scan finds a superset; the exact per-line tests
 * then decide, for the lines it touched only. (`test/strategies/shared/signals.test.ts` holds
 * every pattern to it.)
 */
const CANDIDATE_WORDS = [
  // English failure words (FAILURE_WORDS, EXIT_CODE), test verdicts and summaries (SUMMARY_LINE, TITLE_HINT, PASSING_TEST_LINE)
  'err',
  'fail',
  'fatal',
  'panic',
  'trace',
  'exception',
  'reject',
  'conflict',
  'denied',
  'abort',
  'crash',
  'segment',
  'segf',
  'core dump',
  'non-zero',
  'nonzero',
  'exit',
  'command not',
  'no such',
  'not found',
  'cannot',
  "can't",
  'could',
  'unable',
  'timed out',
  'killed',
  'unhandled',
  'uncaught',
  'undefined',
  'terminate',
  'not ok',
  'pass',
  'skipped',
  'no tests',
  // other languages written in ASCII (FOREIGN_ASCII_WORDS)
  'fehl',
  'ausnahme',
  'abgebrochen',
  'verweigert',
  'nicht',
  'konnte',
  'kann nicht',
  'introuvable',
  'impossib',
  "n'a pas",
  'fallo',
  'fallid',
  'fallit',
  'falh',
  'negad',
  'denegad',
  'no se',
  'no encontrad',
  'eccezione',
  'non trovat',
  'fout',
  'mislukt',
  'niet',
  'niepowodzenie',
  'nie udalo',
  'hata',
  // Kubernetes states (EXCEPTION_CLASS), access logs, warnings, locations, assertions, context rules
  'imagepull',
  'oom',
  'evicted',
  'warn',
  'deprecat',
  'abandoned',
  'avertissement',
  'advertencia',
  'aviso',
  'avviso',
  'file "',
  'assert',
];
const CANDIDATE_SCAN_SOURCE = `\\b(?:${CANDIDATE_WORDS.map((w) => w.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})|\\Bwarning|http\\/|traceback \\(|above exception|panicked at|terminate called|\\[cause\\]:|\\.[a-z][a-z0-9]{0,7}[:(]\\d| line \\d|\\.\\.\\. ok`;
/** For a text of ASCII only, lower-cased first (the same length, so offsets hold); else case-insensitive. */
const CANDIDATE_SCAN = new RegExp(CANDIDATE_SCAN_SOURCE, 'g');
const CANDIDATE_SCAN_I = new RegExp(CANDIDATE_SCAN_SOURCE, 'gi');
/** CamelCase exception classes and warnings in the middle of a word (`TypeError`, `DeprecationWarning`). */
const CANDIDATE_CAMEL = /[a-z](?:Error|Exception|Failure|Fault)/g;
/** The patterns above that hold only at a line's start, tested on each line not yet marked (a start-anchored test is cheap). */
const CANDIDATE_AT_START =
  /^(?:\s*! \[|E {3}|[EW]: |make|\s*\*\* \(|\s+at |\s*#\d|goroutine |\s*(?:expected|received|actual|left|right|got|want)\s*[:=]|\s*(?:tests?|test suites|test files|snapshots)\s*:?\s+\d|\s*test result:|(?:--- )?ok\s|\s*\d+ (?:passing|failing|pending)|ran \d|ok \(|build |\s*(?:\|\s*)?ok \d)/i;
const NON_ASCII = /[^\x00-\x7f]/;
const NON_ASCII_G = /[^\x00-\x7f]/g;

/**
 * The lines of `lines[0, count)` that may matter (1) and those that surely do not (0): a line
 * marked 0 has importance 0, is no passing test's line, reports no failure or warning and holds
 * no context trigger that looks anywhere in a line. `text` is `lines.join('\n')` when the caller
 * has it (a text of another length is not used). A line holding any character beyond ASCII is
 * marked (failure marks, other scripts' words: the exact tests decide).
 */
export function linesToCheck(lines: readonly string[], count: number, text?: string): Uint8Array {
  const hot = new Uint8Array(count);
  if (count === 0) return hot;
  let joined = lines.length - 1;
  for (const line of lines) joined += line.length;
  const whole = text !== undefined && text.length === joined ? text : lines.join('\n');
  const wide = NON_ASCII.test(whole);
  if (wide) {
    markMatches(CANDIDATE_SCAN_I, whole, lines, count, hot);
    markMatches(NON_ASCII_G, whole, lines, count, hot);
  } else {
    markMatches(CANDIDATE_SCAN, whole.toLowerCase(), lines, count, hot);
  }
  markMatches(CANDIDATE_CAMEL, whole, lines, count, hot);
  for (let i = 0; i < count; i++) if (hot[i] === 0 && CANDIDATE_AT_START.test(lines[i] ?? '')) hot[i] = 1;
  return hot;
}

/** Marks every line a match of `re` (global) touches. */
function markMatches(re: RegExp, text: string, lines: readonly string[], count: number, hot: Uint8Array): void {
  re.lastIndex = 0;
  let line = 0;
  // The offset of the line break ending `line` (the text's length for the last line).
  let lineEnd = (lines[0] ?? '').length;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    if (end === start) re.lastIndex++;
    while (start > lineEnd && line < count - 1) lineEnd += 1 + (lines[++line] ?? '').length;
    if (start > lineEnd) break;
    hot[line] = 1;
    for (let l = line, e = lineEnd; end > e + 1 && l < count - 1; ) {
      e += 1 + (lines[++l] ?? '').length;
      hot[l] = 1;
    }
  }
}
