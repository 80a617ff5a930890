import { describe, expect, it } from 'vitest';
import { lineContext, lineScores } from '../../../src/strategies/shared/line-scores.js';

const scored = (text: string): Array<[number, string]> => {
  const lines = text.split('\n');
  const s = lineScores(lines, lines.length);
  return lines.map((l, i) => [s[i] ?? 0, l]);
};
const scoreOf = (text: string, line: string): number => scored(text).find(([, l]) => l === line)?.[0] ?? -1;

describe('lineScores', () => {
  it("raises a python traceback's last line whatever the exception's name, and the failing frame", () => {
    const t = [
      'INFO start',
      'Traceback (most recent call last):',
      '  File "/a.py", line 3, in main',
      '    time.sleep(1)',
      'KeyboardInterrupt',
      'INFO bye',
    ].join('\n');
    expect(scoreOf(t, 'KeyboardInterrupt')).toBe(3);
    expect(scoreOf(t, '    time.sleep(1)')).toBe(2);
    expect(scoreOf(t, 'INFO bye')).toBe(0);
  });

  it('raises the headline above a run of frames, Caused by lines and an anyhow cause list', () => {
    const t = [
      'PoolExhausted: db pool exhausted',
      '    at Pool.acquire (/app/db.js:41:13)',
      'Caused by: java.net.ConnectException',
      'Error: loading configuration',
      'Caused by:',
      '    0: reading /etc/app.toml',
    ].join('\n');
    expect(scoreOf(t, 'PoolExhausted: db pool exhausted')).toBe(3);
    expect(scoreOf(t, 'Caused by: java.net.ConnectException')).toBe(3);
    expect(scoreOf(t, '    0: reading /etc/app.toml')).toBe(3);
  });

  it("raises a rust panic's message line and a C++ what() line", () => {
    const t = [
      "thread 'main' panicked at src/p.rs:8:2:",
      'index out of bounds: the len is 3 but the index is 7',
      "terminate called after throwing an instance of 'std::out_of_range'",
      '  what():  vector::_M_range_check',
    ].join('\n');
    expect(scoreOf(t, 'index out of bounds: the len is 3 but the index is 7')).toBe(3);
    expect(scoreOf(t, '  what():  vector::_M_range_check')).toBe(3);
  });

  it("keeps a warning's detail lines and the heading above an indented problem", () => {
    const t = [
      'warning: unused variable: `x`',
      ' --> src/main.rs:2:9',
      '  |',
      '2 |     let x = 5;',
      '',
      'plain',
      '/app/src/Cart.jsx',
      "  88:5  error  missing dependency: 'total'",
    ].join('\n');
    expect(scoreOf(t, '2 |     let x = 5;')).toBeGreaterThanOrEqual(1);
    expect(scoreOf(t, '/app/src/Cart.jsx')).toBe(2);
    expect(scoreOf(t, 'plain')).toBe(0);
  });

  it('raises numbered titles only in an output that reports a failure', () => {
    const failing = [
      '  2 failing',
      '',
      '  1) Checkout',
      '       rejects an empty cart:',
      '     AssertionError: nope',
    ].join('\n');
    expect(scoreOf(failing, '  1) Checkout')).toBe(3);
    expect(scoreOf(failing, '       rejects an empty cart:')).toBe(3);
    expect(scoreOf(['Steps:', '1) install', '2) run'].join('\n'), '1) install')).toBe(0);
  });
});

describe('lineContext: a diagnostic message and its location are partners', () => {
  const partnerOf = (lines: string[], i: number): string | undefined => {
    const p = lineContext(lines, lines.length).partners[i] ?? -1;
    return p < 0 ? undefined : lines[p];
  };

  it('ruff and rustc: the arrow location partners the message above it, which scores at least as a location', () => {
    const lines = [
      'F841 Local variable `x` is assigned to but never used',
      '  --> app/jobs/sync.py:88:5',
      '   |',
      '88 |     x = load()',
      '   |     ^',
    ];
    const { scores } = lineContext(lines, lines.length);
    expect(scores[0]).toBeGreaterThanOrEqual(1);
    expect(partnerOf(lines, 1)).toBe(lines[0]);
    expect(partnerOf(lines, 0)).toBe(lines[1]);
  });

  it('oxlint: the box location partners the ⚠ message', () => {
    const lines = [
      "  ⚠ eslint(no-unused-vars): Variable 'tmp' is declared but never used.",
      '   ╭─[src/a.ts:3:9]',
      ' 3 │   const tmp = 1;',
      '   ╰────',
    ];
    expect(partnerOf(lines, 1)).toBe(lines[0]);
  });

  it('deno lint: a lone bare `at` location partners the message above its code frame, not a jest console frame', () => {
    const deno = [
      '(no-explicit-any) `any` type is not allowed',
      '    export function parse(raw: any) {',
      '                               ^^^',
      '    at /app/src/config/parse.ts:14:32',
      '',
      '    hint: Use a specific type',
    ];
    expect(partnerOf(deno, 3)).toBe(deno[0]);
    const jest = [
      '  console.log',
      '    2025-11-29 00:06:18 [INFO ] Analyzing repository',
      '',
      '      at log (src/utils/logger.ts:116:13)',
      '',
    ];
    expect(partnerOf(jest, 3)).toBeUndefined();
  });

  it('shellcheck: the `In path line N:` header partners its warning', () => {
    const lines = [
      'In scripts/deploy.sh line 42:',
      'rm -rf $BUILD_DIR/*',
      '       ^--------^ SC2115 (warning): Use "${var:?}" to ensure this never expands to /* .',
      '',
    ];
    expect(partnerOf(lines, 0)).toBe(lines[2]);
    expect(lineContext(lines, lines.length).scores[0]).toBeGreaterThanOrEqual(1);
  });
});
