import { describe, expect, it } from 'vitest';
import {
  dedupPlaceholder,
  errorPlaceholder,
  failureReason,
  MAX_REASON_CHARS,
} from '../../../src/strategies/list-wide/placeholders.js';

describe('dedupPlaceholder', () => {
  it("keeps the original's wording for same-args duplicates (em dash, multiplication sign)", () => {
    expect(dedupPlaceholder({ tool: 'search_files', count: 3, by: 'args' })).toBe(
      '[Output removed \u2014 search_files called 3\u00d7 with same args, showing last result only]',
    );
  });

  it('does not claim "same args" for content duplicates', () => {
    const text = dedupPlaceholder({ tool: 'terminal', count: 2, by: 'content' });
    expect(text).toBe('[Output removed — same output as a later terminal call (2 alike), showing last result only]');
    expect(text).not.toContain('same args');
  });

  it('names an unknown tool "tool" as the original does', () => {
    expect(dedupPlaceholder({ tool: '', count: 2, by: 'args' })).toContain('— tool called 2×');
  });

  it('has a minimal style', () => {
    expect(dedupPlaceholder({ tool: 'x', count: 2, by: 'args' }, 'minimal')).toBe('[output removed: duplicate]');
    expect(dedupPlaceholder({ tool: 'x', count: 2, by: 'content' }, 'minimal')).toBe('[output removed: duplicate]');
  });
});

const TRACEBACK = `Traceback (most recent call last):
  File "/app/main.py", line 1, in <module>
    import x
ModuleNotFoundError: No module named 'x'`;

describe('errorPlaceholder', () => {
  it('gives the real age and keeps why the call failed', () => {
    expect(errorPlaceholder({ tool: 'terminal', age: 5, text: TRACEBACK })).toBe(
      "[Error output removed - terminal failed 5 turns ago: ModuleNotFoundError: No module named 'x']",
    );
  });

  it('says "1 turn ago" in the singular and never prints a literal N', () => {
    const text = errorPlaceholder({ tool: 'terminal', age: 1 });
    expect(text).toBe('[Error output removed - terminal failed 1 turn ago]');
    expect(text).not.toMatch(/\bN\b/);
  });

  it('leaves the reason out when no line reports a failure', () => {
    expect(errorPlaceholder({ tool: 'terminal', age: 4, text: 'some output\nmore output' })).toBe(
      '[Error output removed - terminal failed 4 turns ago]',
    );
    expect(errorPlaceholder({ tool: 'terminal', age: 4, text: '' })).toBe(
      '[Error output removed - terminal failed 4 turns ago]',
    );
    expect(errorPlaceholder({ tool: 'terminal', age: 4, text: null })).toBe(
      '[Error output removed - terminal failed 4 turns ago]',
    );
  });

  it('has a minimal style', () => {
    expect(errorPlaceholder({ tool: 'terminal', age: 4, text: TRACEBACK }, 'minimal')).toBe('[error output removed]');
  });
});

describe('failureReason', () => {
  const cases: Array<[string, string, string | null]> = [
    ['the last exception line of a Python traceback', TRACEBACK, "ModuleNotFoundError: No module named 'x'"],
    [
      'a chained traceback ends on its final exception',
      `${TRACEBACK}\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File "b.py", line 2\nRuntimeError: setup failed`,
      'RuntimeError: setup failed',
    ],
    [
      'the first failure line of a compiler log',
      'Compiling x\nerror[E0425]: cannot find value `y` in this scope\n --> src/main.rs:2:5\nerror: could not compile `x`',
      'error[E0425]: cannot find value `y` in this scope',
    ],
    [
      'git',
      'fatal: not a git repository (or any of the parent directories): .git',
      'fatal: not a git repository (or any of the parent directories): .git',
    ],
    ['a shell', 'bash: foo: command not found', 'bash: foo: command not found'],
    ['CRLF lines, without the CR', 'ok\r\nError: boom\r\n', 'Error: boom'],
    ['CJK and emoji', '処理中 🎉\nエラー: error 失敗しました', 'エラー: error 失敗しました'],
    [
      'the text inside a JSON envelope',
      JSON.stringify({ output: TRACEBACK, exit_code: 1, error: null }),
      "ModuleNotFoundError: No module named 'x'",
    ],
    [
      "an envelope's error field first",
      JSON.stringify({ output: 'warning: x failed', error: 'Permission denied: /etc/x' }),
      'Permission denied: /etc/x',
    ],
    [
      'the exit code of an envelope whose texts report nothing',
      JSON.stringify({ output: 'done', exit_code: 2, error: null }),
      'exit code 2',
    ],
    ['nothing for an envelope that reports nothing', JSON.stringify({ output: 'done', exit_code: 0 }), null],
    ['nothing for a success', 'all good', null],
    ['nothing for empty text', '', null],
    ['nothing for CR-only lines', '\r\n\r\n\r', null],
    ['nothing for banners alone', '=== FAILURES ===\n____ test_x ____', null],
  ];
  it.each(cases)('finds %s', (_name, text, reason) => {
    expect(failureReason(text)).toBe(reason);
  });

  it(`cuts a reason longer than ${MAX_REASON_CHARS} characters, counting emoji as one`, () => {
    const reason = failureReason(`Error: ${'🎉'.repeat(300)}`);
    expect(reason).not.toBeNull();
    expect(Array.from(reason ?? '').length).toBe(MAX_REASON_CHARS);
    expect(reason?.endsWith('…')).toBe(true);
    expect(reason).not.toMatch(/[\ud800-\udbff]…$/);
  });

  it('survives binary junk and a 5 MB failing log', () => {
    expect(() => failureReason('\u0000\u0001\ufffd\u0007')).not.toThrow();
    const big =
      Array.from({ length: 100_000 }, (_, i) => `INFO step ${i} of the long build`).join('\n') + '\nFATAL: disk full';
    expect(failureReason(big)).toBe('FATAL: disk full');
  });
});
