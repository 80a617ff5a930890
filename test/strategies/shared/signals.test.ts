import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HmcConfig } from '../../../src/config/keys.js';
import type { StrategyResult, ToolOutput } from '../../../src/core/strategy.js';
import { shortCircuit } from '../../../src/strategies/single/short-circuit.js';
import {
  failureTokens,
  importance,
  isImportantLine,
  isPassingTestLine,
  reportsFailure,
} from '../../../src/strategies/shared/signals.js';
import { truncate } from '../../../src/strategies/single/truncation.js';

describe('reportsFailure', () => {
  const failures: string[] = [
    'Error: file already exists',
    "fatal: destination path 'x' already exists and is not an empty directory.",
    'FATAL: out of memory',
    'ERROR: could not open file',
    'error[E0425]: cannot find value `x` in this scope',
    '3 failed, 5 passed',
    '=== 1 failed, 3 passed in 0.12s ===',
    'test result: FAILED. 3 passed; 1 failed; 0 ignored',
    'FAILED tests/x.py - 3 passed, 0 failed?',
    'FAIL src/app.test.js',
    '--- FAIL: TestParse (0.00s)',
    'Tests:       1 failed, 4 passed, 5 total',
    "thread 'main' panicked at src/main.rs:2:5",
    'Panic: something broke',
    'panic: runtime error: index out of range',
    'Traceback (most recent call last):',
    "ModuleNotFoundError: No module named 'x'",
    'java.lang.NullPointerException',
    'Uncaught TypeError: x is not a function',
    ' ! [rejected]        main -> main (fetch first)',
    'error: failed to push some refs',
    ' ! [remote rejected] main -> main (pre-receive hook declined)',
    'CONFLICT (content): Merge conflict in a.txt',
    'Permission denied (publickey).',
    'Aborted (core dumped)',
    'Segmentation fault',
    'subprocess.CalledProcessError: Command returned non-zero exit status 1.',
    'Process exited with code 2',
    'exit status 1',
    'bash: foo: command not found',
    'cat: x: No such file or directory',
    'cannot open shared object file',
    'Could not resolve host: example.com',
    'Unable to locate package foo',
    'npm ERR! code ENOENT',
    'E       assert 1 == 2',
    '{"error": "x"}',
    '{"status": "ok", "error": "disk full"}',
    'The operation timed out',
    'Killed',
    'Failures: 1, Errors: 0',
    'errors=2',
    '10 failed',
    '0 passed, 1 error',
  ];
  it.each(failures)('reports a failure in %j', (text) => {
    expect(reportsFailure(text)).toBe(true);
  });

  const successes: string[] = [
    '',
    'ok',
    '5 passed, 0 failed',
    '=== 5 passed in 0.12s ===',
    'test result: ok. 42 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out',
    'Tests run: 5, Failures: 0, Errors: 0, Skipped: 0',
    'found 0 errors',
    'Build succeeded. 0 Warning(s) 0 Error(s)',
    'no errors found',
    'Compiled without errors',
    'failed: 0',
    'errors=0',
    'error count: 0',
    '{"status": "ok", "error": null}',
    '{"output": "hi", "exit_code": 0, "error": null}',
    '{"errors": [], "failed": false}',
    'exit code 0',
    'Process exited with code 0',
    'a state of terror',
    'the failsafe engaged',
    'nothing to commit, working tree clean',
    'Already up to date.',
    '日本語のテキスト 🎉',
    '\r\r\r',
  ];
  it.each(successes)('finds no failure in %j', (text) => {
    expect(reportsFailure(text)).toBe(false);
  });

  it('sees a failure beside a zero count on another line', () => {
    expect(reportsFailure('0 failed\nerror: boom')).toBe(true);
    expect(reportsFailure('no errors\nFAILED test_x')).toBe(true);
  });

  it('does not mistake a count ending in zero for a zero count', () => {
    expect(reportsFailure('20 failed')).toBe(true);
    expect(reportsFailure('1.0 errors')).toBe(true);
  });
});

describe('isImportantLine', () => {
  const important: string[] = [
    'error: expected `;`',
    'WARNING: deprecated option --foo',
    'warning: unused variable `x`',
    'src/app.ts:12:5 - error TS2322',
    'src/app.ts:12',
    '  File "/a/b.py", line 3, in <module>',
    '    at Object.<anonymous> (/x/y.js:1:2)',
    '    assert x == 2',
    '    Expected: 3',
    '    Received: 4',
    '=== 3 failed, 2 passed in 1.2s ===',
    '=== 5 passed in 0.1s ===',
    'Tests: 1 failed, 3 passed, 4 total',
    'test result: FAILED. 3 passed; 1 failed',
    'goroutine 7 [running]:',
    '#3 0x00007f in main ()',
  ];
  it.each(important)('keeps %j', (line) => {
    expect(isImportantLine(line)).toBe(true);
  });

  const ordinary: string[] = [
    '',
    'Downloading foo-1.2.tar.gz',
    'INFO processed item 42',
    'collecting ... done',
    '日本語 🎉',
    '\r',
    'return x + y',
  ];
  it.each(ordinary)('does not keep %j', (line) => {
    expect(isImportantLine(line)).toBe(false);
  });

  it('ranks summaries above failures above warnings', () => {
    expect(importance('=== 1 failed, 3 passed ===')).toBe(3);
    expect(importance('error: boom')).toBe(2);
    expect(importance('warning: meh')).toBe(1);
    expect(importance('plain')).toBe(0);
  });
});

describe('isPassingTestLine', () => {
  const passing = [
    ' ✓ test/signals.test.ts > reportsFailure > reports a failure in "FATAL: out of memory" 0ms',
    '  ✔ rejects a bad token (12ms)',
    '  √ handles Traceback (most recent call last): lines',
    'tests/test_errors.py::test_raises_permission_denied PASSED                  [ 50%]',
    'test parser::reports_syntax_error ... ok',
    '--- PASS: TestPanicRecovery (0.00s)',
    'ok 3 - throws on fatal input',
  ];
  const other = [
    ' × test/error-purge.test.ts > purges a failure 5ms',
    ' FAIL  test/error-purge.test.ts > purges a failure',
    'tests/test_errors.py::test_raises FAILED',
    'test parser::reports ... FAILED',
    '--- FAIL: TestParse (0.00s)',
    '=== 1 failed, 3 passed in 0.12s ===',
    'ERROR: could not open file',
  ];
  for (const line of passing) {
    it(`reads a passing test in ${JSON.stringify(line)}: not important, no failure token`, () => {
      expect(isPassingTestLine(line)).toBe(true);
      expect(importance(line)).toBe(0);
      expect(failureTokens(line)).toEqual([]);
    });
  }
  for (const line of other)
    it(`reads no passing test in ${JSON.stringify(line)}`, () => expect(isPassingTestLine(line)).toBe(false));
});

describe('contract shared by the pure text strategies (property)', () => {
  const VOCAB = [
    '5 passed, 0 failed',
    '======== 3 passed in 0.12s ========',
    'test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out',
    'nothing to commit, working tree clean',
    'On branch main',
    'Already up to date.',
    'Requirement already satisfied: x in /y (1.0)',
    '{"status": "ok"}',
    'Error: file already exists',
    'FAILED tests/x.py - 3 passed, 0 failed?',
    ' ! [rejected]        main -> main (fetch first)',
    'Panic: boom',
    'src/a.ts:3:4 warning: unused',
    'INFO step done',
    '',
    '\r',
    '日本語 🎉',
  ];
  const line = fc.oneof(
    fc.constantFrom(...VOCAB),
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
  );
  const text = fc
    .tuple(fc.array(line, { maxLength: 120 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
    .map(([lines, eol, final]) => lines.join(eol) + (final ? eol : ''));
  const asOutput = (t: string, isError = false): ToolOutput => ({
    tool: 'terminal',
    args: {},
    text: t,
    lines: t.split('\n'),
    kind: 'log',
    isError,
  });
  const TRUNC: HmcConfig['truncation'] = {
    enabled: true,
    max_lines: 12,
    head_lines: 3,
    tail_lines: 3,
    min_content_length: 0,
    keep_important: true,
    max_important_lines: 4,
    keep_whole_chars: 32_000,
  };

  function rendered(o: ToolOutput, r: StrategyResult): string {
    if (r.kind === 'text') return r.text;
    if (r.kind === 'skipped') return o.text;
    return r.lines.map((item) => (typeof item === 'number' ? (o.lines[item] ?? '') : item.marker)).join('\n');
  }

  it('no result is longer than its input', () => {
    fc.assert(
      fc.property(text, (t) => {
        const o = asOutput(t);
        for (const r of [shortCircuit(o, { enabled: true }), truncate(o, TRUNC)]) {
          if (r.kind !== 'skipped') expect(rendered(o, r).length).toBeLessThan(t.length);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a short-circuit never fires on text that reports a failure, nor on a failed call', () => {
    fc.assert(
      fc.property(text, (t) => {
        if (reportsFailure(t)) expect(shortCircuit(asOutput(t), { enabled: true }).kind).toBe('skipped');
        expect(shortCircuit(asOutput(t, true), { enabled: true }).kind).toBe('skipped');
      }),
      { numRuns: 300 },
    );
  });

  it('truncation keeps strictly increasing in-range indices, and kept + omitted = all lines', () => {
    fc.assert(
      fc.property(text, (t) => {
        const o = asOutput(t);
        const r = truncate(o, TRUNC);
        if (r.kind !== 'lines') return;
        let last = -1;
        let kept = 0;
        let omitted = 0;
        for (const item of r.lines) {
          if (typeof item === 'number') {
            expect(item).toBeGreaterThan(last);
            expect(item).toBeLessThan(o.lines.length);
            last = item;
            kept++;
          } else {
            // A gap marker, or a collapsed run of repeats ("previous line repeated N more times").
            const n = Number(
              (/^\.\.\. \((\d+) lines? omitted\)$/.exec(item.marker) ??
                /^\.\.\. \(previous line repeated (\d+) more times?\)$/.exec(item.marker))?.[1],
            );
            expect(n).toBeGreaterThan(0);
            omitted += n;
          }
        }
        expect(kept + omitted).toBe(o.lines.length);
      }),
      { numRuns: 300 },
    );
  });
});
