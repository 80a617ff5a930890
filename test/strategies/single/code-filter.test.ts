/**
 * Code filter: when it applies (reference §14 B5, B8: the original erased search results, web
 * pages and YAML), fenced blocks, hard inputs (binary junk, 5 MB sources). The property test over
 * random inputs (every plan well-formed, every marker honest) is in code-filter-property.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolOutput } from '../../../src/core/strategy.js';
import { codeFilter, languageForPath } from '../../../src/strategies/single/code-filter/index.js';
import { CFG, checkPlan, fileRead, otherOutput, render } from './code-filter-helpers.js';

const PY = ['import os', 'def f(a):', '    x = a + 1', '    y = x * 2', '    return x + y', ''].join('\n');
const TS = [
  'import { a } from "../a.js";',
  'export function f(x: number): number {',
  '  const y = x + 1;',
  '  const z = y * 2;',
  '  return y + z;',
  '}',
  '',
].join('\n');

describe('code filter: when it applies', () => {
  const cases: { name: string; output: ToolOutput; cfg?: Partial<typeof CFG>; reason: RegExp }[] = [
    { name: 'disabled in config', output: fileRead('a.py', PY), cfg: { enabled: false }, reason: /disabled/ },
    { name: 'an error output', output: { ...fileRead('a.py', PY), isError: true }, reason: /error/ },
    {
      name: 'fewer lines than min_lines',
      output: fileRead('a.py', PY),
      cfg: { min_lines: 30 },
      reason: /fewer than 30/,
    },
    {
      name: 'a language missing from code_filter.languages',
      output: fileRead('a.py', PY),
      cfg: { languages: ['rust'] },
      reason: /python is not in/,
    },
    {
      name: 'a read whose line numbers are unknown',
      output: { ...fileRead('a.ts', TS), fileLines: undefined },
      cfg: { min_lines: 1 },
      reason: /line numbers/,
    },
    {
      name: 'a short window into the file that does not start at line 1',
      output: fileRead('a.ts', TS, { first: 40 }),
      reason: /window/,
    },
    {
      name: 'B5: search results listing .ts files, whatever code they quote',
      output: otherOutput(
        'search',
        [
          'src/a.ts:2: export function f(x: number): number {',
          'src/a.ts:3:   const y = x + 1;',
          'src/b.ts:9: class B {',
          'src/b.ts:10:   m() {',
          'src/b.ts:11:     return 1;',
          'src/b.ts:12:   }',
        ].join('\n'),
        'search_files',
      ),
      reason: /not a source file/,
    },
    {
      name: 'B5: a web page about Next.js that quotes code without fences',
      output: otherOutput(
        'text',
        [
          'Next.js 15 release notes',
          'function Page() {',
          '  const data = await fetch(url);',
          '  const json = await data.json();',
          '  return json;',
          '}',
          'Read more at nextjs.org',
        ].join('\n'),
        'web_extract',
      ),
      reason: /not a source file/,
    },
    {
      name: 'B5: a YAML file read that looks like TypeScript to a content sniffer',
      output: fileRead(
        'openapi.yaml',
        [
          'properties:',
          '  id:',
          '    type: string',
          '  count: number',
          'function: f',
          'class: A',
          'interface X:',
          '  a: 1',
        ].join('\n'),
      ),
      reason: /not a source file/,
    },
    {
      name: 'a Markdown file read with only a shell fence',
      output: fileRead(
        'README.md',
        ['# Tool', '', '```bash', 'npm install', 'npm test', 'npm run build', '```', 'def f(): see above'].join('\n'),
      ),
      reason: /not a source file/,
    },
    {
      name: 'B8: a failing pytest log whose arguments name a .py file',
      output: {
        ...otherOutput(
          'log',
          [
            'Traceback (most recent call last):',
            '  File "tests/test_x.py", line 3, in test_f',
            'def test_f():',
            '    assert f() == 2',
            '    x = 1',
            'AssertionError',
          ].join('\n'),
        ),
        args: { command: 'pytest tests/test_x.py' },
      },
      reason: /not a source file/,
    },
    {
      name: 'binary content (NUL bytes)',
      output: fileRead('blob.rs', `fn f() {\n\u0000\u0001\n  a();\n  b();\n  c();\n}`),
      reason: /binary/,
    },
  ];
  for (const c of cases) {
    it(`is skipped for ${c.name}`, () => {
      const result = codeFilter(c.output, { ...CFG, ...c.cfg });
      expect(result.kind).toBe('skipped');
      if (result.kind === 'skipped') expect(result.reason).toMatch(c.reason);
    });
  }

  it('maps source extensions to languages and nothing else', () => {
    const table: [string, string | null][] = [
      ['a.py', 'python'],
      ['a.pyw', 'python'],
      ['a.pyi', 'python'],
      ['a.js', 'javascript'],
      ['a.mjs', 'javascript'],
      ['a.cjs', 'javascript'],
      ['a.ts', 'typescript'],
      ['a.mts', 'typescript'],
      ['a.cts', 'typescript'],
      ['A.RS', 'rust'],
      ['C:\\src\\main.go', 'go'],
      ['a.jsx', 'javascript'],
      ['a.tsx', 'typescript'],
      ['a.php', 'php'],
      ['A.java', 'java'],
      ['a.cs', 'csharp'],
      ['a.kt', 'kotlin'],
      ['build.gradle.kts', 'kotlin'],
      ['a.yaml', null],
      ['a.md', null],
      ['a.json', null],
      ['Makefile', null],
      ['.py', null],
      ['dir.py/file', null],
      ['a.phtml', null],
      ['a.class', null],
    ];
    for (const [path, lang] of table) expect([path, languageForPath(path)]).toEqual([path, lang]);
  });
});

describe('code filter: fenced blocks', () => {
  const run = (text: string, kind: 'text' | 'file' = 'text'): string | null => {
    const output = kind === 'file' ? fileRead('NOTES.md', text) : otherOutput('text', text);
    return render(output, codeFilter(output, CFG));
  };

  it('filters only the body of a python fence inside Markdown prose; the closing fence stays on its own line (B6)', () => {
    const text = [
      'Here is the fix:',
      '',
      '```python',
      'import os',
      'def f():',
      '    a = 1',
      '    b = 2',
      '    return a + b',
      '```',
      '',
      'def not_code(): this is prose',
    ].join('\n');
    expect(run(text, 'file')).toBe(
      [
        'Here is the fix:',
        '',
        '```python',
        'import os',
        'def f():',
        '    # … 3 lines elided (6–8)',
        '```',
        '',
        'def not_code(): this is prose',
      ].join('\n'),
    );
  });

  it('recognises info strings, tilde fences and CRLF fences, each block in its own language', () => {
    const text = [
      '```python title="x.py"\r',
      'def f():\r',
      '    a = 1\r',
      '    b = 2\r',
      '    return a + b\r',
      '```\r',
      '~~~rust',
      'fn g() {',
      '    let a = 1;',
      '    let b = 2;',
      '    a + b',
      '}',
      '~~~',
    ].join('\n');
    expect(run(text)).toBe(
      [
        '```python title="x.py"\r',
        'def f():\r',
        '    # … 3 lines elided (3–5)',
        '```\r',
        '~~~rust',
        'fn g() {',
        '    // … 3 lines elided (9–11)',
        '}',
        '~~~',
      ].join('\n'),
    );
  });

  it('keeps untagged, unknown-language and unclosed fences line for line', () => {
    const body = ['def f():', '    a = 1', '    b = 2', '    return a + b'];
    const text = ['```', ...body, '```', '```ruby', ...body, '```', '```python', ...body].join('\n');
    expect(run(text)).toBeNull();
  });

  it('does not pair a ``` line inside a ```` fence as its close', () => {
    const text = ['````python', 'def f():', '    s = """', '```', '"""', '    return s', '````', 'after'].join('\n');
    expect(run(text)).toBe(['````python', 'def f():', '    # … 4 lines elided (3–6)', '````', 'after'].join('\n'));
  });
});

describe('code filter: hard inputs', () => {
  it('filters a 5 MB TypeScript file completely and honestly', () => {
    const unit = [
      '/** Doc. */',
      'export function f(x: number): number {',
      '  const y = x + 1;',
      '  const z = y * 2;',
      '  return y + z;',
      '}',
      '',
    ];
    const copies = Math.ceil(5_000_000 / unit.join('\n').length);
    const text = Array.from({ length: copies }, () => unit.join('\n')).join('\n');
    const output = fileRead('big.ts', text);
    const result = codeFilter(output, { ...CFG, min_lines: 30 });
    expect(result.kind).toBe('lines');
    const markers = result.kind === 'lines' ? result.lines.filter((item) => typeof item !== 'number') : [];
    expect(markers).toHaveLength(copies);
    expect(markers.every((m, k) => m.marker === `  // … 3 lines elided (${7 * k + 3}–${7 * k + 5})`)).toBe(true);
  });

  it('filters a 5 MB Python file completely', () => {
    const unit = ['def f(x):', '    """Doc."""', '    y = x + 1', '    z = y * 2', '    return y + z', ''];
    const copies = Math.ceil(5_000_000 / unit.join('\n').length);
    const output = fileRead('big.py', Array.from({ length: copies }, () => unit.join('\n')).join('\n'));
    const result = codeFilter(output, { ...CFG, min_lines: 30 });
    expect(result.kind === 'lines' ? result.lines.filter((item) => typeof item !== 'number').length : 0).toBe(copies);
  });

  it('finishes on pathological lines (regexes must not backtrack: many decorators, long fences, long runs)', () => {
    const body = ['  m() {', '    a();', '    b();', '    c();', '  }'];
    const inputs: ToolOutput[] = [
      fileRead('a.ts', ['class A {', `  ${'@a(x) '.repeat(60)}!`, ...body, '}'].join('\n')),
      fileRead('a.ts', ['class A {', `  x${'<'.repeat(50_000)}(`, '}'].join('\n')),
      fileRead('a.js', [`const f = ${'= function '.repeat(20_000)}() => {`, '  a();', '}'].join('\n')),
      otherOutput(
        'text',
        [`\`\`\`${'a'.repeat(100_000)}\``, `~~~${' x'.repeat(50_000)}`, `<A${'a'.repeat(100_000)}`].join('\n'),
      ),
      fileRead('a.rs', ["'".repeat(100_000), 'r#'.repeat(50_000)].join('\n')),
      fileRead(
        'A.java',
        [
          'class A {',
          `  ${'@a(x) '.repeat(20_000)}${'x'.repeat(50_000)}>(int a) {`,
          '    a();',
          '    b();',
          '    c();',
          '  }',
          '}',
        ].join('\n'),
      ),
      fileRead(
        'a.cs',
        [
          'class A {',
          `  ${'[A] '.repeat(20_000)}public ${'T<'.repeat(20_000)} F(int a) {`,
          '    a();',
          '  }',
          '}',
        ].join('\n'),
      ),
      fileRead('a.php', ['<?php', `${'<<<'.repeat(30_000)}`, `$x = ${'"{$'.repeat(30_000)}`].join('\n')),
      fileRead(
        'a.ex',
        ['defmodule M do', `  def f(${'~s('.repeat(30_000)}) do`, `    ${'?#'.repeat(30_000)}`, '  end', 'end'].join(
          '\n',
        ),
      ),
      fileRead('a.tsx', [`const x = ${'<a '.repeat(30_000)}`, `${'</'.repeat(30_000)}`].join('\n')),
    ];
    for (const input of inputs) checkPlan(input, codeFilter(input, CFG), true);
  });

  it('never throws on random junk in any source language, and answers a valid plan or a skip', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 400 }),
        fc.constantFrom(
          'a.py',
          'a.ts',
          'a.tsx',
          'a.js',
          'a.rs',
          'a.go',
          'a.php',
          'A.java',
          'a.cs',
          'a.kt',
          'a.ex',
          'a.md',
        ),
        (junk, path) => {
          const output = fileRead(path, junk);
          checkPlan(output, codeFilter(output, CFG), true);
        },
      ),
      { numRuns: 600 },
    );
  });
});
