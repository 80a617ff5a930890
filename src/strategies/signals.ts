/**
 * Failure and importance detection shared by the layer-0 strategies: short-circuit asks "does
 * this output report any failure?", truncation asks "which cut lines matter?", placeholders ask
 * "which line says why it failed?".
 *
 * Invariant: err towards "failure" and "important". A false alarm only costs savings; a missed
 * failure hides a fact from the model (DESIGN §4.1). The one thing we do not call a failure is a
 * count of zero ("0 failed", "no errors", "errors=0", `"error": null`), because every passing
 * test summary says so.
 *
 * Matching is case-insensitive (the original's safety net was case-sensitive and let `Panic`,
 * `fatal:` and `ERROR` through, reference §14 C), on word boundaries so that `terror` or
 * `failsafe` are not failures, while CamelCase exception names (`ModuleNotFoundError`,
 * `NullPointerException`) are.
 */

/** Zero counts and empty error fields, blanked out before looking for failure words. */
const ZERO_COUNTS: readonly RegExp[] = [
  // "0 failed", "0 errors", "0 Error(s)", "0 tests failed"
  /(?<![\w.])0\s+(?:tests?\s+)?(?:failed|failures?|failing|errors?|errored|fatal|conflicts?|rejected|denied|exceptions?|panics?)(?:\(s\))?(?!\w)/gi,
  // "no errors", "without failures", "no conflicts found"
  /\b(?:no|without|zero)\s+(?:errors?|failures?|conflicts?|exceptions?|panics?|problems)\b/gi,
  // "failed: 0", "errors=0", "Failures: 0" (JUnit, Maven), "error count: 0"
  /\b(?:failed|failures?|failing|errors?|errored)(?:\s+count)?\s*[:=]\s*0(?![\d.])/gi,
  // JSON fields that say "nothing went wrong": "error": null, "errors": [], "failed": false
  /"(?:errors?|failures?|failed|stderr)"\s*:\s*(?:null|false|0(?![\d.])|""|\[\s*\]|\{\s*\})/gi,
];

/**
 * Words and shapes that report a failure. Kept as one alternation (one pass over the text).
 * `\b` is ASCII in JS, which is what we want: log words are ASCII.
 */
const FAILURE_WORDS =
  /\b(?:errors?|failed|failures?|failing|fail|fatal|panic(?:ked|s)?|traceback|exceptions?|rejected|conflicts?|denied|abort(?:ed|ing)?|segmentation fault|segfault|core dumped|non-zero exit|nonzero exit|command not found|no such file|not found|cannot|can't|could not|couldn't|unable to|timed out|killed|unhandled|uncaught|undefined reference)\b/i;

/** CamelCase exception classes (`TypeError`, `ModuleNotFoundError`, `IOException`): case-sensitive on purpose. */
const EXCEPTION_CLASS = /[a-z](?:Error|Exception)\b/;

/** "exit code 2", "exit status 1", "exited with code 127", "returned exit code: -1" (never 0). */
const EXIT_CODE = /\bexit(?:ed)?\s+(?:with\s+)?(?:status|code)\s*[:=]?\s*(?:-\d+|0*[1-9]\d*)\b/i;

/** Line-shaped failures: git's rejected refs (`! [rejected]`), pytest's `E   ` detail lines, npm's `ERR!`. */
const FAILURE_LINE = /^(?:\s*! \[|E {3})|\bERR!/m;

/** Blanks every zero count so the failure words inside it no longer match. */
function withoutZeroCounts(text: string): string {
  let out = text;
  for (const re of ZERO_COUNTS) out = out.replace(re, ' ');
  return out;
}

/**
 * True when the text reports any failure (error, failed, fatal, panic, traceback, exception,
 * rejected, conflict, denied, a non-zero exit…), zero counts aside.
 */
export function reportsFailure(text: string): boolean {
  // Cheap path first: most outputs contain no failure word at all.
  if (!FAILURE_WORDS.test(text) && !EXCEPTION_CLASS.test(text) && !EXIT_CODE.test(text) && !FAILURE_LINE.test(text)) {
    return false;
  }
  const rest = withoutZeroCounts(text);
  return FAILURE_WORDS.test(rest) || EXCEPTION_CLASS.test(rest) || EXIT_CODE.test(rest) || FAILURE_LINE.test(rest);
}

/** Test-run summary lines: pytest banners, jest/vitest `Tests:`, cargo `test result:`, go `--- FAIL`, mocha `N passing`. */
const SUMMARY_LINE =
  /(?:^=+ .*\b(?:passed|failed|errors?|skipped|no tests ran)\b.*=+\s*$|^\s*(?:Tests?|Test Suites|Test Files|Snapshots)\s*:?\s+\d|^\s*test result:|^(?:--- )?(?:FAIL|PASS|ok)\b\s|^\s*\d+ (?:passing|failing|pending)\b|^(?:FAILED|ERROR|PASSED)\b|\b\d+ (?:passed|failed)\b|^Ran \d+ tests? in|^(?:OK|FAILED) \()/;

/** Warnings and deprecations: not failures, but facts worth keeping from a cut middle. */
const WARNING_LINE = /\b(?:warn(?:ing|ings)?|deprecat\w*)\b/i;

/**
 * Locations and stack frames: `src/a.ts:12:5`, `File "x.py", line 3`, `    at f (x.js:1:2)`,
 * `#3 0x…`, `goroutine 7 [running]`. The `path.ext:line` test anchors on the dot so it stays linear.
 */
const LOCATION_LINE =
  /\.[A-Za-z][A-Za-z0-9]{0,7}:\d+\b|^\s*File "[^"]*", line \d+|^\s+at \S|^\s*#\d+\s+0x[0-9a-f]+|^goroutine \d+ \[|\b(?:at|on) line \d+|, line \d+/i;

/** Assertion details: `assert x == y`, jest's `Expected:` / `Received:`, Rust's `left:` / `right:`. */
const ASSERTION_LINE = /\bassert\w*\b|^\s*(?:Expected|Received|expected|actual|left|right)\s*[:=]/i;

/** How strongly a line matters when truncation has to choose: 3 summary, 2 failure, 1 other, 0 not important. */
export function importance(line: string): 0 | 1 | 2 | 3 {
  if (SUMMARY_LINE.test(line)) return 3;
  if (reportsFailure(line)) return 2;
  if (WARNING_LINE.test(line) || LOCATION_LINE.test(line) || ASSERTION_LINE.test(line)) return 1;
  return 0;
}

/**
 * True when a line is worth keeping from the middle of a cut log: errors, failures, warnings,
 * `file:line[:col]` locations, stack frames, assertion lines and test summary lines.
 */
export function isImportantLine(line: string): boolean {
  return importance(line) > 0;
}
