/**
 * Whether a text is a log, by its lines: what test runners, compilers, services and tools print
 * (timestamps, levels, tags, `file:line` locations, frames, progress, test results, tracebacks).
 * A file printed by a shell command is read as a file, except a plain-text file whose lines are a
 * log: `cat logs/pytest_failing.txt` is the same log `pytest` printed (issue 17, finding 5: sent
 * whole, while the run itself was cut from 8,863 to 1,765 characters).
 *
 * Invariant: prose, data and code are not logs (a guess towards "not a log" only costs savings);
 * a short text is never called one.
 */

/** Lines a log prints: timestamps, levels, bracketed tags, locations, frames, progress. */
export const LOG_SHAPED =
  /^\s*(?:\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d|\[[^\]]{1,40}\]|(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE|FATAL)\b|[\w./-]+:\d+(?::\d+)?[:\s]|at\s|#\d+\s|>\s|\$\s|npm |\d+%|[✓✔✕✗✘×○●↓√]\s|=+>|\.{3,}|[│└├]|\d+\s*[│|]|(?:PASS|FAIL|ok|not ok)\s)/;

/**
 * Lines of a test run: a result per test (pytest `::name PASSED`, unittest `... ok`, cargo and go
 * `ok`/`--- FAIL`), pytest's `E` details, section rules and summaries, Python's traceback frames.
 */
const TEST_SHAPED =
  /(?:\s(?:PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b|\.\.\.\s*(?:ok|FAIL|ERROR|skipped|ignored)\b)|^(?:E\s{2,}\S|[_=-]{3,}|(?:FAILED|ERROR|PASSED|SKIPPED)\s|=== RUN\s|--- (?:PASS|FAIL|SKIP):|Ran \d+ tests?\b|Traceback \(most recent call last\)|\s+File ".+", line \d+|\S+\.py\s+[.FEsxX]+\s)/;

/**
 * Lines of a build or a tool: compiler diagnostics and their spans (`error[E0425]:`, `  --> f:3:5`,
 * `   |`), make and its recipes, package managers' and containers' progress, a carriage-return
 * progress bar.
 */
const TOOL_SHAPED =
  /\r|^(?:(?:warning|error|note|help|fatal)(?:\[[\w-]+\])?:\s|\s*-->\s|\s*\|\s|\s+\d+\s\|\s|make(?:\[\d+\])?:\s|(?:CC|CXX|LD|AR|AS)\s+\S|\s+(?:Compiling|Downloading|Downloaded|Building|Finished|Running|Checking|Installing|Fetching|Pulling|Extracting)\s|\S+: (?:Pulling|Downloading|Extracting|Pull complete|Waiting|Verifying)|remote:\s|To\s+\S+:|\s*\+\s+\S+\s+\S+ -> )/;

/** Fewer non-blank lines than this are never a log here: nothing worth cutting. */
const MIN_LINES = 20;
const SAMPLE_LINES = 200;
/** The share of log-, test- or tool-shaped lines that makes a text a log; less when its name says so. */
const LOG_SHARE = 0.4;
const NAMED_LOG_SHARE = 0.2;
/** A path that names a log: a `logs/` folder, `build_output.txt`, `pytest-results.txt`, `ci.stderr`. */
const LOG_NAME = /(?:^|[/_.-])(?:logs?|output|out|stdout|stderr|results?|trace|console)(?:[/_.-]|$)/i;

/** True when a text's lines are what a log prints (see the header); `path` names the file printed. */
export function looksLikeLog(lines: readonly string[], path = ''): boolean {
  let nonBlank = 0;
  let shaped = 0;
  let previous = '';
  for (let i = 0; i < lines.length && nonBlank < SAMPLE_LINES; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '') continue;
    nonBlank++;
    // A tool prints the same opening line after line ("Compiling …", "Requirement already satisfied: …").
    const opening = line.trim().split(/\s+/, 2).join(' ');
    if (LOG_SHAPED.test(line) || TEST_SHAPED.test(line) || TOOL_SHAPED.test(line) || opening === previous) shaped++;
    previous = opening;
  }
  return nonBlank >= MIN_LINES && shaped >= nonBlank * (LOG_NAME.test(path) ? NAMED_LOG_SHARE : LOG_SHARE);
}

/** A plain-text file (`.txt`, or no extension): it may hold a log as well as prose. */
export function isPlainTextPath(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 || base.slice(dot + 1).toLowerCase() === 'txt';
}
