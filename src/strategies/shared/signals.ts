/**
 * Failure and importance detection shared by the layer-0 strategies: short-circuit asks "does
 * this output report any failure?", truncation asks "which cut lines matter?", placeholders ask
 * "which line says why it failed?".
 *
 * Invariant: err towards "failure" and "important". A false alarm only costs savings; a missed
 * failure hides a fact from the model (DESIGN §4.1). The one thing we do not call a failure is a
 * count of zero ("0 failed", "no errors", "errors=0", `"error": null`, "0 Fehler"), because every
 * passing test summary says so.
 *
 * Matching is case-insensitive (the original's safety net was case-sensitive and let `Panic`,
 * `fatal:` and `ERROR` through, reference §14 C), on word boundaries so that `terror` or
 * `failsafe` are not failures, while CamelCase exception names (`ModuleNotFoundError`,
 * `NullPointerException`, `ComparisonFailure`) are. Failures are also reported in other
 * languages (German, French, Spanish, Portuguese, Italian, Dutch, Polish, Turkish, Russian,
 * Chinese, Japanese, Korean) and by shape alone: failing-test marks (✗ ✕ ✘ ❌ ✖ ×, TAP `not ok`,
 * bun's `(fail)`), Kubernetes pod states, apt's `E:`, make's `***`, HTTP 5xx in access logs.
 * Context rules (a traceback's last line, a warning's detail lines) live in line-scores.ts. In a
 * package manager's progress line, package names are names (`es-errors`, `Deprecated`): the
 * words are looked for outside them (package-steps.ts).
 */
import { linesToCheck } from './lines-to-check.js';
import { withoutPackageNames } from './package-steps.js';

/** Zero counts and empty error fields, blanked out before looking for failure words. */
const ZERO_COUNTS: readonly RegExp[] = [
  // "0 failed", "0 errors", "0 Error(s)", "0 tests failed", "0 Fehler", "0 erreurs", "0 errores"
  /(?<![\w.])0\s+(?:tests?\s+)?(?:failed|failures?|failing|errors?|errored|fatal|conflicts?|rejected|denied|exceptions?|panics?|fehler|erreurs?|errore[si]?|erros?|échecs?|ошибок)(?:\(s\))?(?![\p{L}\p{N}_])/giu,
  // "no errors", "without failures", "no conflicts found", "keine Fehler", "aucune erreur", "sin errores", "sem erros", "nessun errore", "без ошибок"
  /(?<![\p{L}\p{N}_])(?:no|without|zero|keine|ohne|aucune?|sans|sin|sem|nessun|senza|без)\s+(?:errors?|failures?|conflicts?|exceptions?|panics?|problems|fehler|erreurs?|errore[si]?|errores|erros?|échecs?|ошибок)(?![\p{L}\p{N}_])/giu,
  // "failed: 0", "errors=0", "Failures: 0" (JUnit, Maven), "error count: 0"
  /\b(?:failed|failures?|failing|errors?|errored)(?:\s+count)?\s*[:=]\s*0(?![\d.])/gi,
  // JSON fields that say "nothing went wrong": "error": null, "errors": [], "failed": false
  /"(?:errors?|failures?|failed|stderr)"\s*:\s*(?:null|false|0(?![\d.])|""|\[\s*\]|\{\s*\})/gi,
  // CJK "no errors": 没有错误, 无错误, 錯誤: 0, エラーなし, エラーはありません, 오류 없음, 0 个错误
  /(?:没有|無|无)(?:错误|錯誤)|(?:错误|錯誤|エラー|오류)\s*[:：]\s*0(?![\d.])|エラー(?:なし|はありません)|오류\s*없음|(?<![\d.])0\s*(?:个|個)?\s*(?:错误|錯誤|エラー|오류)/gu,
];

/**
 * English words and shapes that report a failure. Kept as one alternation (one pass over the
 * text). `\b` is ASCII in JS, which is what we want for English log words.
 */
const FAILURE_WORDS =
  /\b(?:errors?|failed|failures?|failing|fail|fatal|panic(?:ked|s)?|traceback|exceptions?|rejected|conflicts?|denied|abort(?:ed|ing)?|crash(?:ed|es|ing)?|segmentation fault|segfault|core dumped|non-zero exit|nonzero exit|command not found|no such file|not found|cannot|can't|could not|couldn't|unable to|timed out|killed|unhandled|uncaught|undefined reference|terminate called|not ok)\b|\bundefined: /i;

/**
 * Failure words of other languages. Words written in ASCII (fehler, erreur, errore, fout, hata…)
 * are matched like English ones; words with other letters (échec, falló, błąd, ошибка, 错误,
 * エラー, 오류…) by a Unicode-aware pattern, run only on lines that hold such letters (it is
 * several times slower). Latin and Cyrillic words sit on letter boundaries (so `fout` is not found
 * inside `foutre`); CJK words match anywhere, since those scripts do not separate words.
 */
const FOREIGN_ASCII_WORDS = new RegExp(
  '\\b(?:' +
    [
      // German
      'fehler\\w*',
      'fehlgeschlagen',
      'ausnahme',
      'abgebrochen',
      'verweigert',
      'nicht gefunden',
      'nicht finden',
      'konnte nicht',
      'kann nicht',
      // French
      'erreurs?',
      'introuvable',
      "impossible d(?:e|')",
      "n'a pas pu",
      // Spanish, Portuguese, Italian
      'errores',
      'fallos?',
      'fallid[oa]s?',
      'no se pudo',
      'no encontrad[oa]',
      'denegad[oa]',
      'erros?',
      'falhas?',
      'falhou',
      'negad[oa]',
      'errore',
      'errori',
      'fallit[oaie]',
      'eccezione',
      'impossibile',
      'non trovat[oaie]',
      // Dutch, Polish, Turkish
      'fout(?:en)?',
      'mislukt',
      'niet gevonden',
      'niepowodzenie',
      'nie udalo',
      'hata\\w*',
    ].join('|') +
    ')\\b',
  'i',
);
const FOREIGN_OTHER_WORDS = new RegExp(
  '(?<![\\p{L}\\p{N}_])(?:' +
    [
      'abgestürzt',
      'échecs?',
      'échoué\\p{L}*',
      'échoue\\p{L}*',
      'refusée?s?',
      'falló',
      'excepción',
      'no se encontró',
      'exceção',
      'não foi possível',
      'não encontrad[oa]',
      'błąd\\p{L}*',
      'błęd\\p{L}*',
      'nie można',
      'nie udało',
      'başarısız',
      // Russian, Ukrainian
      'ошибк\\p{L}*',
      'сбо[йя]',
      'не удалось',
      'исключени\\p{L}*',
      'провал\\p{L}*',
      'отказано',
      'не найден\\p{L}*',
      'аварийн\\p{L}*',
      'помилк\\p{L}*',
    ].join('|') +
    ')(?![\\p{L}\\p{N}_])' +
    // Chinese (simplified and traditional), Japanese, Korean
    '|错误|錯誤|失败|失敗|异常|異常|无法|無法|找不到|报错|崩溃|エラー|例外|見つかりません|できません|오류|에러|실패|예외|찾을 수 없',
  'iu',
);
const NON_ASCII = /[^\x00-\x7f]/;

/** English and ASCII-written foreign failure words in one pass. */
const ASCII_FAILURE_WORDS = new RegExp(`${FAILURE_WORDS.source}|${FOREIGN_ASCII_WORDS.source}`, 'i');

/**
 * CamelCase exception classes (`TypeError`, `ModuleNotFoundError`, `IOException`,
 * `ComparisonFailure`) and Kubernetes' failing pod states: case-sensitive on purpose, so that
 * "exponential backoff" or "evicted 3 cache entries" stay ordinary words.
 */
const EXCEPTION_CLASS =
  /[a-z](?:Error|Exception|Failure|Fault)\b|\b(?:CrashLoopBackOff|ImagePullBackOff|ErrImagePull|OOMKilled|Evicted|CreateContainer(?:Config)?Error)\b/;

/** "exit code 2", "exit status 1", "exited with code 127", "returned exit code: -1" (never 0). */
const EXIT_CODE = /\bexit(?:ed)?\s+(?:with\s+)?(?:status|code)\s*[:=]?\s*(?:-\d+|0*[1-9]\d*)\b/i;

/**
 * Line-shaped failures: git's rejected refs (`! [rejected]`), pytest's `E   ` detail lines, npm's
 * `ERR!`, apt's `E:`, make's `***`, Elixir's `** (`, a failing-test mark at the start of a line,
 * bun's `(fail)`, and a 5xx status in an access log line. The indentation before a mark is
 * whitespace within the line: `^\s*` ran on across line breaks, from every line start, which was
 * quadratic on a run of blank lines (64 KB of them: 13 s; issue 19).
 */
const FAILURE_LINE =
  /^(?:[^\S\r\n\u2028\u2029]*! \[|E {3}|E: |make(?:\[\d+\])?: \*\*\*|[^\S\r\n\u2028\u2029]*\*\* \()|\bERR!|^[^\S\r\n\u2028\u2029]*(?:[│┃|][^\S\r\n\u2028\u2029]*)?(?:[✗✕✘❌✖×]|\(fail\))(?:\s|$)|HTTP\/[\d.]+" 5\d\d\b/m;
/** The same for one line: without the `m` flag its `^` is tried at the start only (much faster on long logs). */
const FAILURE_LINE_ONE = new RegExp(FAILURE_LINE.source);

/** The same test, line by line and global, to list every failure token of a line. */
const TOKEN_PATTERNS: readonly RegExp[] = [
  new RegExp(FAILURE_WORDS.source, 'gi'),
  new RegExp(FOREIGN_ASCII_WORDS.source, 'gi'),
  new RegExp(FOREIGN_OTHER_WORDS.source, 'giu'),
  // From a word's start (`\b`): an unanchored `\w*` rescanned a long word from each of its letters (issue 19).
  new RegExp(EXCEPTION_CLASS.source.replace('[a-z](?:', '\\b\\w*[a-z](?:'), 'g'),
  new RegExp(EXIT_CODE.source, 'gi'),
  new RegExp(FAILURE_LINE.source, 'gm'),
];

/** Blanks every zero count so the failure words inside it no longer match. */
function withoutZeroCounts(text: string): string {
  let out = text;
  for (const re of ZERO_COUNTS) out = out.replace(re, ' ');
  return out;
}

/** `wide`: the text holds non-ASCII characters (only then can a non-ASCII word be in it). */
function anyFailure(text: string, wide: boolean): boolean {
  const lineShaped = text.includes('\n') ? FAILURE_LINE : FAILURE_LINE_ONE;
  return (
    ASCII_FAILURE_WORDS.test(text) ||
    EXCEPTION_CLASS.test(text) ||
    EXIT_CODE.test(text) ||
    lineShaped.test(text) ||
    (wide && FOREIGN_OTHER_WORDS.test(text))
  );
}

function failureIn(text: string, wide: boolean): boolean {
  // Cheap path first: most outputs contain no failure word at all.
  if (!anyFailure(text, wide)) return false;
  return anyFailure(withoutZeroCounts(text), wide);
}

/**
 * True when the text reports any failure (error, failed, fatal, panic, traceback, exception,
 * rejected, conflict, denied, a non-zero exit, a failing-test mark, Fehler, échec, 错误…), zero
 * counts aside.
 */
export function reportsFailure(text: string): boolean {
  const checked = text.includes('\n') ? text : withoutPackageNames(text);
  return failureIn(checked, NON_ASCII.test(checked));
}

/**
 * True when some line of the text reports a failure the way truncation reads lines: a passing
 * test's line does not, whatever its title names (`✓ rejects invalid_json_異常系`). What the
 * invariant checker asks of an output before and after a cut.
 */
export function someLineReportsFailure(text: string): boolean {
  if (!reportsFailure(text)) return false;
  const lines = text.split('\n');
  const hot = linesToCheck(lines, lines.length, text);
  return lines.some((line, i) => hot[i] === 1 && reportsFailure(line) && !isPassingTestLine(line));
}

/**
 * The failure tokens of one line, lower-cased (`error`, `fehler`, `typeerror`, `exit code 1`,
 * `✕`…), zero counts aside; none for a passing test's line. Truncation keeps at least one line
 * for each distinct token, so no failure word of the input is missing from the output.
 */
export function failureTokens(line: string): string[] {
  if (!reportsFailure(line) || isPassingTestLine(line)) return [];
  const rest = withoutZeroCounts(withoutPackageNames(line));
  const tokens: string[] = [];
  for (const re of TOKEN_PATTERNS) {
    re.lastIndex = 0;
    for (const m of rest.matchAll(re)) tokens.push(m[0].trim().toLowerCase());
  }
  return tokens;
}

/**
 * A failing test's title, marked on its own line: a failure mark (✗ ✕ ✘ ❌ ✖ ×, `●` with jest's
 * `›` path), TAP `not ok`, bun's `(fail)`, pytest's `FAILED`, go's `--- FAIL:`, cargo's
 * `... FAILED`, gradle's `> x FAILED`, dotnet's `Failed X`, deno's `... FAILED`. These are always
 * kept by truncation, whatever its budget.
 */
const FAILING_TITLE =
  /^\s*(?:[│┃|]\s*)?(?:[✗✕✘❌✖×]\s+\S|●\s+\S.*›|not ok\b|\(fail\)\s|FAILED\s+\S|--- FAIL:|Failed\s+\S+\s+\[)|\s\.\.\.\s*FAILED\b|\s>\s.*\sFAILED\s*$/;

/** Every failing title holds one of these; most lines do not, and this test is cheap. */
const TITLE_HINT = /FAIL|Fail|not ok|\(fail\)|[✗✕✘❌✖×●]/;

export function isFailingTestTitle(line: string): boolean {
  return TITLE_HINT.test(line) && FAILING_TITLE.test(line);
}

/** Test-run summary lines: pytest banners, jest/vitest `Tests:`, cargo `test result:`, go `--- FAIL`, mocha `N passing`. */
const SUMMARY_LINE =
  /(?:^=+ .*\b(?:passed|failed|errors?|skipped|no tests ran)\b.*=+\s*$|^\s*(?:Tests?|Test Suites|Test Files|Snapshots)\s*:?\s+\d|^\s*test result:|^(?:--- )?(?:FAIL|PASS|ok)\b\s|^\s*\d+ (?:passing|failing|pending)\b|^(?:FAILED|ERROR|PASSED)\b|\b\d+ (?:passed|failed)\b|^Ran \d+ tests? in|^(?:OK|FAILED) \(|^\s*\d+ (?:examples?|tests?), \d+ failures?|^BUILD (?:SUCCESSFUL|FAILED)|^Found \d+ errors?)/;

/** True for a test-run or build summary line (`=== 3 failed in 1s ===`, `Tests: 2 failed`, `BUILD FAILED`). */
export function isSummaryLine(line: string): boolean {
  return SUMMARY_LINE.test(line);
}

/** Warnings and deprecations: not failures, but facts worth keeping from a cut middle. */
const WARNING_LINE =
  /\b(?:warn(?:ing|ings)?|deprecat\w*|abandoned|warnung|avertissement|advertencia|aviso|avviso)\b|^W: |[a-z0-9]Warning\b/i;
/** Other scripts' words, and the warning sign linters print (biome, oxlint: `⚠ Unexpected any`). */
const FOREIGN_WARNING = /предупреждени|警告|경고|⚠/;

/**
 * Locations and stack frames: `src/a.ts:12:5`, `File "x.py", line 3`, `    at f (x.js:1:2)`,
 * `#3 0x…`, `goroutine 7 [running]`. The `path.ext:line` test anchors on the dot so it stays linear.
 */
const LOCATION_LINE =
  /^In \S+ line \d+:$|\.[A-Za-z][A-Za-z0-9]{0,7}:\d+\b|^\s*File "[^"]*", line \d+|^\s+at \S|^\s*#\d+\s+0x[0-9a-f]+|^goroutine \d+ \[|\b(?:at|on) line \d+|, line \d+|\.[A-Za-z][A-Za-z0-9]{0,7}\(\d+,\d+\)/i;

/** Assertion details: `assert x == y`, jest's `Expected:` / `Received:`, Rust's `left:` / `right:`. */
const ASSERTION_LINE = /\bassert\w*\b|^\s*(?:Expected|Received|expected|actual|left|right|got|want)\s*[:=]/i;

/** True for a warning or deprecation line. */
export function reportsWarning(line: string): boolean {
  const checked = withoutPackageNames(line);
  return warningIn(checked, NON_ASCII.test(checked));
}

function warningIn(line: string, wide: boolean): boolean {
  return WARNING_LINE.test(line) || (wide && FOREIGN_WARNING.test(line));
}

/**
 * A passing test's own line: a pass mark (✓ ✔ √, go's `--- PASS:`, TAP `ok N -`, bun's `(pass)`) or
 * a verdict at its end (pytest's `PASSED [ 50%]`, cargo's `... ok`). Its title may name failure
 * words (a suite that tests error handling: `✓ reports a failure in "FATAL: out of memory"`)
 * without reporting any failure.
 */
const PASSING_TEST_LINE =
  /^\s*(?:[│┃|]\s*)?(?:[✓✔√]\s|--- PASS:|ok \d+ - |\(pass\)\s)|\s(?:PASSED|\.\.\. ok)(?:\s+\[\s*\d+%\])?\s*$/;

export function isPassingTestLine(line: string): boolean {
  return PASSING_TEST_LINE.test(line);
}

/**
 * How strongly a line matters when truncation has to choose: 3 summary, 2 failure, 1 other, 0 not
 * important (a passing test's line among them, whatever its title says).
 */
export function importance(line: string): 0 | 1 | 2 | 3 {
  if (isPassingTestLine(line)) return 0;
  if (SUMMARY_LINE.test(line) || isFailingTestTitle(line)) return 3;
  const checked = withoutPackageNames(line);
  const wide = NON_ASCII.test(checked);
  if (failureIn(checked, wide)) return 2;
  if (warningIn(checked, wide) || LOCATION_LINE.test(checked) || ASSERTION_LINE.test(checked)) return 1;
  return 0;
}

/**
 * True when a line is worth keeping from the middle of a cut log: errors, failures, warnings,
 * `file:line[:col]` locations, stack frames, assertion lines and test summary lines.
 */
export function isImportantLine(line: string): boolean {
  return importance(line) > 0;
}

/**
 * Context rules of line-scores.ts that look anywhere in a line (a traceback's opening, Python's
 * chaining sentences, a Rust panic, C++'s terminate, JavaScript's `[cause]:`).
 */
export const CONTEXT_ANYWHERE = /Traceback \(|above exception|panicked at|terminate called|\[cause\]:/;
