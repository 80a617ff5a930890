import { describe, expect, it } from 'vitest';
import type { HmcConfig } from '../../../src/config/keys.js';
import type { OutputKind, StrategyResult, ToolOutput } from '../../../src/core/strategy.js';
import { omittedMarker, truncate, windowSizes } from '../../../src/strategies/single/truncation.js';

type Cfg = HmcConfig['truncation'];
const BASE: Cfg = {
  enabled: true,
  max_lines: 50,
  head_lines: 10,
  tail_lines: 10,
  min_content_length: 0,
  keep_important: true,
  max_important_lines: 20,
  keep_whole_chars: 32_000,
};
const cfg = (over: Partial<Cfg> = {}): Cfg => ({ ...BASE, ...over });

function out(text: string, over: Partial<ToolOutput> & { kind?: OutputKind } = {}): ToolOutput {
  return { tool: 'terminal', args: {}, text, lines: text.split('\n'), kind: 'log', isError: false, ...over };
}

function render(o: ToolOutput, r: StrategyResult): string {
  if (r.kind === 'text') return r.text;
  if (r.kind === 'skipped') return o.text;
  return r.lines.map((item) => (typeof item === 'number' ? (o.lines[item] ?? '') : item.marker)).join('\n');
}

const numbered = (n: number, prefix = 'line'): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix} ${String(i).padStart(4, '0')}`);

describe('truncate keeps head and tail with one honest marker', () => {
  it('cuts 100 lines to 10 + marker + 10 (the original test_gap_marker_shows_count)', () => {
    const lines = numbered(100);
    const o = out(lines.join('\n'));
    const text = render(o, truncate(o, cfg({ max_lines: 25 })));
    expect(text).toBe([...lines.slice(0, 10), '... (80 lines omitted)', ...lines.slice(90)].join('\n'));
  });

  it('keeps only the head when tail_lines is 0 (test_head_only_when_tail_zero)', () => {
    const lines = numbered(100);
    const o = out(lines.join('\n'));
    expect(render(o, truncate(o, cfg({ tail_lines: 0 })))).toBe(
      [...lines.slice(0, 10), '... (90 lines omitted)'].join('\n'),
    );
  });

  it('scales head and tail to fit max_lines - 1 as the original does', () => {
    expect(windowSizes(cfg({ max_lines: 5, head_lines: 10, tail_lines: 10 }))).toEqual({ head: 2, tail: 2 });
    const o = out(numbered(10, 'x').join('\n') + 'y'.repeat(600));
    const r = truncate(o, cfg({ max_lines: 5 }));
    expect(r.kind === 'lines' && r.lines).toEqual([0, 1, { marker: omittedMarker(6) }, 8, 9]);
  });

  it('regression: one omitted line is "1 line omitted", not "1 lines"', () => {
    expect(omittedMarker(1)).toBe('... (1 line omitted)');
    expect(omittedMarker(2)).toBe('... (2 lines omitted)');
  });

  it('leaves an output of exactly max_lines lines alone (test_exact_boundary_no_gap)', () => {
    const o = out(numbered(50).join('\n'));
    expect(truncate(o, cfg()).kind).toBe('skipped');
  });

  it('does not count the empty string after a final newline as a line, and keeps the newline', () => {
    const o50 = out(numbered(50).join('\n') + '\n');
    expect(truncate(o50, cfg()).kind).toBe('skipped');
    const o = out(numbered(80).join('\n') + '\n');
    const rendered = render(o, truncate(o, cfg()));
    expect(rendered.endsWith('line 0079\n')).toBe(true);
    expect(rendered).toContain('... (60 lines omitted)');
  });

  it('keeps the original worked example at 222 characters', () => {
    const text = Array.from({ length: 80 }, (_, i) => `line ${String(i).padStart(4, '0')}`).join('\n');
    const o = out(text);
    expect(render(o, truncate(o, cfg({ min_content_length: 500 }))).length).toBe(222);
  });

  it('keeps CRLF line ends and counts CR-only lines as part of their line', () => {
    const o = out(numbered(80).join('\r\n'));
    const r = truncate(o, cfg());
    expect(r.kind).toBe('lines');
    expect(render(o, r).split('\n')[0]).toBe('line 0000\r');
    const cr = out(Array.from({ length: 80 }, () => '\r'.repeat(20)).join('\n'));
    expect(truncate(cr, cfg()).kind).toBe('lines');
  });

  it('keeps CJK and emoji lines intact', () => {
    const lines = Array.from({ length: 80 }, (_, i) => `行 ${i} 🎉 日本語のログ`);
    const o = out(lines.join('\n'));
    const rendered = render(o, truncate(o, cfg()));
    expect(rendered.split('\n')[0]).toBe(lines[0]);
    expect(rendered.split('\n').at(-1)).toBe(lines[79]);
  });
});

describe('truncate keeps what matters from the middle', () => {
  const failingLog = (): string[] => {
    const lines = numbered(200, 'INFO step');
    lines[50] = 'Traceback (most recent call last):';
    lines[51] = '  File "/app/main.py", line 3, in <module>';
    lines[52] = "ModuleNotFoundError: No module named 'x'";
    lines[120] = 'warning: disk almost full';
    return lines;
  };

  it('keeps error runs with their frames and a warning, each gap counted', () => {
    const lines = failingLog();
    const o = out(lines.join('\n'), { isError: true });
    const r = truncate(o, cfg());
    expect(render(o, r)).toBe(
      [
        ...lines.slice(0, 10),
        '... (40 lines omitted)',
        ...lines.slice(50, 53),
        '... (67 lines omitted)',
        lines[120],
        '... (69 lines omitted)',
        ...lines.slice(190),
      ].join('\n'),
    );
  });

  it('keeps only one line per failure word from the middle when keep_important is off', () => {
    const lines = failingLog();
    const o = out(lines.join('\n'));
    const kept = render(o, truncate(o, cfg({ keep_important: false })));
    expect(kept).toBe(
      [
        ...lines.slice(0, 10),
        '... (40 lines omitted)',
        ...lines.slice(50, 53),
        '... (137 lines omitted)',
        ...lines.slice(190),
      ].join('\n'),
    );
    expect(kept).not.toContain('warning: disk almost full');
  });

  it('keeps the final summary and failures, not warnings, when the budget is spent', () => {
    const lines = numbered(300, 'INFO step');
    lines[40] = 'warning: early';
    lines[100] = 'E       assert 1 == 2';
    lines[200] = '=== 1 failed, 3 passed in 1.2s ===';
    const o = out(lines.join('\n'));
    const r = truncate(o, cfg({ tail_lines: 0, max_important_lines: 0 }));
    const kept = render(o, r);
    expect(kept).toContain(lines[200]);
    expect(kept).toContain(lines[100]);
    expect(kept).not.toContain('warning: early');
  });

  it('keeps a short one-line gap between important lines rather than a marker', () => {
    const lines = numbered(100, 'INFO step');
    lines[40] = 'error: first';
    lines[42] = 'error: second';
    const o = out(lines.join('\n'));
    const r = truncate(o, cfg());
    expect(render(o, r)).toContain(['error: first', lines[41], 'error: second'].join('\n'));
    const longGap = [...lines];
    longGap[41] = 'x'.repeat(500);
    const o2 = out(longGap.join('\n'));
    expect(render(o2, truncate(o2, cfg()))).toContain(
      ['error: first', '... (1 line omitted)', 'error: second'].join('\n'),
    );
  });

  it('keeps a one-line gap as the line itself rather than a longer marker', () => {
    const lines = numbered(60, 'l');
    lines[11] = 'error: boom';
    const o = out(lines.join('\n'));
    const r = truncate(o, cfg());
    expect(r.kind === 'lines' && r.lines.slice(0, 12)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });
});

describe('truncate reads passing tests as passing', () => {
  /** `vitest run -v` of a suite that tests failure detection, three tests failing (as in a real Hermes session). */
  const words = [
    'Error: file already exists',
    'FATAL: out of memory',
    'error[E0425]: cannot find value',
    '3 failed, 5 passed',
    '=== 1 failed, 3 passed in 0.12s ===',
    'FAIL src/app.test.js',
    '--- FAIL: TestParse (0.00s)',
    "thread 'main' panicked at src/main.rs:2:5",
    'Traceback (most recent call last):',
    "ModuleNotFoundError: No module named 'x'",
    'java.lang.NullPointerException',
    'Uncaught TypeError: x is not a function',
    'CONFLICT (content): Merge conflict',
    'Permission denied (publickey).',
    'Aborted (core dumped)',
    'Segmentation fault',
    'exit status 1',
    'bash: foo: command not found',
    'npm ERR! code ENOENT',
    'The operation timed out',
    'Killed',
    'Failures: 1, Errors: 0',
    '10 failed',
    '0 passed, 1 error',
  ];
  const failure = (n: number, title: string, got: string, want: string): string[] => [
    ` FAIL  test/strategies/error-purge.test.ts > findStaleErrors > ${title}`,
    `AssertionError: expected ${got} to deeply equal ${want}`,
    '',
    '- Expected',
    '+ Received',
    '',
    `- ${want}`,
    `+ ${got}`,
    '',
    ` ❯ test/strategies/error-purge.test.ts:${10 + n}:51`,
    `     ${10 + n}|     expect([...findStaleErrors(entries, 6, CFG)]).toEqual(${want});`,
    '       |                                                   ^',
    '',
    ` ⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[${n}/3]⎯`,
    '',
  ];
  const log = (): string[] => [
    ' RUN  v4.1.12 /work/hmc',
    '',
    ...numbered(20, ' ✓ test/strategies/truncation.test.ts > truncate > keeps case'),
    ...words.map((w) => ` ✓ test/strategies/signals.test.ts > reportsFailure > reports a failure in "${w}" 0ms`),
    ...words.map((w) => ` ✓ test/strategies/signals.test.ts > isImportantLine > keeps "${w}" 0ms`),
    ...numbered(20, ' ✓ test/strategies/placeholders.test.ts > failureReason > finds case'),
    ' × test/strategies/error-purge.test.ts > findStaleErrors > purges a failure exactly `turns` turns old 5ms',
    "   → expected [] to deeply equal [ 'a' ]",
    ' × test/strategies/error-purge.test.ts > findStaleErrors > never purges the current turn 1ms',
    "   → expected [] to deeply equal [ 'b' ]",
    ' × test/strategies/error-purge.test.ts > findStaleErrors > returns every stale failure 1ms',
    "   → expected [ 'a' ] to deeply equal [ 'a', 'c' ]",
    '',
    ' ⎯⎯⎯⎯⎯⎯⎯ Failed Tests 3 ⎯⎯⎯⎯⎯⎯⎯',
    '',
    ...failure(1, 'purges a failure exactly `turns` turns old', '[]', "[ 'a' ]"),
    ...failure(2, 'never purges the current turn', '[]', "[ 'b' ]"),
    ...failure(3, 'returns every stale failure', "[ 'a' ]", "[ 'a', 'c' ]"),
    '',
    ' Test Files  1 failed | 5 passed (6)',
    '      Tests  3 failed | 249 passed (252)',
    '   Start at  23:00:18',
    '   Duration  2.96s (transform 336ms, setup 0ms)',
  ];

  it('regression: titles of passing tests that name failure words do not crowd out the real failures', () => {
    const lines = log();
    const o = out(lines.join('\n'), { isError: true });
    const shown = render(o, truncate(o, cfg())).split('\n');
    // Which test failed and why, for each of the three (the budget keeps more of their detail).
    for (const line of lines.filter((l) => /^ (?:FAIL|×) |^AssertionError/.test(l)))
      expect(shown, `lost ${line}`).toContain(line);
    expect(shown.filter((l) => l.startsWith(' ✓') && /reports a failure|keeps "/.test(l))).toEqual([]);
  });
});

describe('truncate skips what it must not or need not cut', () => {
  const long = numbered(200).join('\n');
  const cases: Array<[string, ToolOutput, Cfg]> = [
    ['when disabled', out(long), cfg({ enabled: false })],
    ['a file read', out(long, { kind: 'file', path: 'a.txt' }), cfg()],
    ['text shorter than min_content_length', out(long), cfg({ min_content_length: 100_000 })],
    ['at most max_lines lines', out(numbered(20).join('\n')), cfg()],
    ['empty text', out(''), cfg()],
    [
      'a plan that would save nothing (every gap cheaper than its marker)',
      out('a\nb\nc\nd'),
      cfg({ max_lines: 3, head_lines: 1, tail_lines: 1 }),
    ],
  ];
  it.each(cases)('skips %s', (_name, o, c) => {
    expect(truncate(o, c).kind).toBe('skipped');
  });

  it('truncates binary junk like any other text', () => {
    const junk = Array.from({ length: 100 }, (_, i) => `\u0000\u0001\ufffd${i}\u0007`.repeat(5)).join('\n');
    const o = out(junk);
    const r = truncate(o, cfg());
    expect(r.kind).toBe('lines');
    expect(render(o, r).length).toBeLessThan(junk.length);
  });

  it('cuts a 5 MB log in linear time', () => {
    const lines = Array.from({ length: 100_000 }, (_, i) =>
      i % 997 === 0
        ? `src/mod${i}.ts:${i}:3 - error TS2322: bad`
        : `INFO worker ${i} handled request /api/v1/items?id=${i} ok`,
    );
    const text = lines.join('\n');
    expect(text.length).toBeGreaterThan(5_000_000);
    const o = out(text);
    const start = performance.now();
    const r = truncate(o, cfg());
    const ms = performance.now() - start;
    expect(r.kind).toBe('lines');
    // A guard against quadratic behaviour, not a benchmark (bench/ measures speed); typically ~20 ms.
    expect(ms).toBeLessThan(500);
  });
});
