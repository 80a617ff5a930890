/**
 * Code filter, Python: raw source in, exact text out. Rows named after the original's bugs
 * (reference §14 B6) prove each one fixed.
 */
import { describe, expect, it } from 'vitest';
import { codeFilter } from '../../../src/strategies/single/code-filter/index.js';
import { CFG, fileRead, render } from './code-filter-helpers.js';

interface Row {
  name: string;
  input: string[];
  /** Expected output lines, or null when the filter must skip. */
  expected: string[] | null;
  preserve?: boolean;
}

const rows: Row[] = [
  {
    name: 'a function body becomes one honest marker at the body indentation; imports and constants stay',
    input: [
      'import os',
      'from x import y',
      '',
      'LIMIT = 10',
      '',
      'def f(a, b):',
      '    x = a',
      '    y = b',
      '    return x + y',
      '',
      'print(f(1, 2))',
    ],
    expected: [
      'import os',
      'from x import y',
      '',
      'LIMIT = 10',
      '',
      'def f(a, b):',
      '    # … 3 lines elided (7–9)',
      '',
      'print(f(1, 2))',
    ],
  },
  {
    name: 'B6: a multi-line signature keeps all its lines and the real body is elided, not leaked',
    input: ['def f(', '    a: int,', '    b: int,', ') -> int:', '    x = a', '    y = b', '    return x + y'],
    expected: ['def f(', '    a: int,', '    b: int,', ') -> int:', '    # … 3 lines elided (5–7)'],
  },
  {
    name: 'decorators and async def are kept, their bodies elided',
    input: [
      '@app.route("/x")',
      '@cached',
      'async def handler(req):',
      '    a = 1',
      '    b = 2',
      '    return await go(a, b)',
    ],
    expected: ['@app.route("/x")', '@cached', 'async def handler(req):', '    # … 3 lines elided (4–6)'],
  },
  {
    name: 'class attributes, nested classes and every method signature survive; method bodies are elided',
    input: [
      'class A(Base):',
      '    """Class doc."""',
      '    x: int = 1',
      '',
      '    class Meta:',
      '        ordering = ["x"]',
      '',
      '    def m(self):',
      '        a = 1',
      '        b = 2',
      '        return a + b',
      '',
      '    @property',
      '    def p(self) -> int:',
      '        """Doc of p."""',
      '        one = 1',
      '        two = 2',
      '        return one + two',
    ],
    expected: [
      'class A(Base):',
      '    """Class doc."""',
      '    x: int = 1',
      '',
      '    class Meta:',
      '        ordering = ["x"]',
      '',
      '    def m(self):',
      '        # … 3 lines elided (9–11)',
      '',
      '    @property',
      '    def p(self) -> int:',
      '        """Doc of p."""',
      '        # … 3 lines elided (16–18)',
    ],
  },
  {
    name: 'a nested def inside an elided body is elided with it',
    input: ['def outer():', '    def inner():', '        return 1', '    v = inner()', '    return v'],
    expected: ['def outer():', '    # … 4 lines elided (2–5)'],
  },
  {
    name: 'B6: a one-liner def stays as is with no spurious marker',
    input: [
      'class A:',
      '    def m(self): return 1',
      '    def n(self): return 2',
      '    y = 3',
      '    z = 4',
      'def g():',
      '    a = 1',
      '    b = 2',
      '    return a',
    ],
    expected: [
      'class A:',
      '    def m(self): return 1',
      '    def n(self): return 2',
      '    y = 3',
      '    z = 4',
      'def g():',
      '    # … 3 lines elided (7–9)',
    ],
  },
  {
    name: 'B6: a triple-quoted string at column 0 inside a body does not end the body',
    input: ['def f():', '    sql = """', 'SELECT *', 'FROM t', '"""', '    return sql', '', 'X = 1'],
    expected: ['def f():', '    # … 5 lines elided (2–6)', '', 'X = 1'],
  },
  {
    name: 'B6: lines starting with # inside a top-level string are code and are kept',
    input: [
      'HELP = """',
      '# not a comment',
      'usage: tool',
      '"""',
      'def f():',
      '    a = 1',
      '    b = 2',
      '    return a + b',
    ],
    expected: ['HELP = """', '# not a comment', 'usage: tool', '"""', 'def f():', '    # … 3 lines elided (6–8)'],
    preserve: false,
  },
  {
    name: 'B6: shebang and encoding lines are kept even when comments are dropped; a run of plain comments becomes a marker',
    input: [
      '#!/usr/bin/env python3',
      '# -*- coding: utf-8 -*-',
      '# a plain comment, long enough',
      '# that dropping it saves bytes',
      '# over three lines',
      'def f():',
      '    a = 1',
      '    b = 2',
      '    return a + b',
    ],
    expected: [
      '#!/usr/bin/env python3',
      '# -*- coding: utf-8 -*-',
      '# … 3 lines elided (3–5)',
      'def f():',
      '    # … 3 lines elided (7–9)',
    ],
    preserve: false,
  },
  {
    name: 'B6: docstrings with r, f and u prefixes are recognised and kept before the marker',
    input: [
      'def a():',
      '    r"""Raw \\d doc."""',
      '    x = 1',
      '    y = 2',
      '    return x',
      'def b():',
      "    u'''Unicode",
      "    doc.'''",
      '    x = 1',
      '    y = 2',
      '    return x',
    ],
    expected: [
      'def a():',
      '    r"""Raw \\d doc."""',
      '    # … 3 lines elided (3–5)',
      'def b():',
      "    u'''Unicode",
      "    doc.'''",
      '    # … 3 lines elided (9–11)',
    ],
  },
  {
    name: 'with preserve_docstrings off a function docstring is elided with the body',
    input: ['def a():', '    """Doc."""', '    x = 1', '    return x'],
    expected: ['def a():', '    # … 3 lines elided (2–4)'],
    preserve: false,
  },
  {
    name: 'bodies of fewer than 3 lines are kept whole (a marker would gain nothing)',
    input: [
      'def a():',
      '    return 1',
      '',
      'def b():',
      '    x = 1',
      '    return x',
      '',
      'def c():',
      '    x = 1',
      '    y = 2',
      '    return x + y',
    ],
    expected: [
      'def a():',
      '    return 1',
      '',
      'def b():',
      '    x = 1',
      '    return x',
      '',
      'def c():',
      '    # … 3 lines elided (9–11)',
    ],
  },
  {
    name: 'comments and strings inside brackets never end a body, and a dedented comment after it stays outside',
    input: [
      'def f():',
      '    x = call(',
      '"arg at column 0",',
      '# comment at column 0',
      '    )',
      '    return x',
      '# about g',
      'def g(): pass',
    ],
    expected: ['def f():', '    # … 5 lines elided (2–6)', '# about g', 'def g(): pass'],
  },
  {
    name: 'tab-indented bodies get a tab-indented marker',
    input: ['class A:', '\tdef m(self):', '\t\ta = compute(1)', '\t\tb = compute(2)', '\t\treturn a + b'],
    expected: ['class A:', '\tdef m(self):', '\t\t# … 3 lines elided (3–5)'],
  },
  {
    name: 'CRLF lines are kept byte for byte and the marker carries no CR',
    input: ['import os\r', 'def f():\r', '    a = 1\r', '    b = 2\r', '    return a\r', ''],
    expected: ['import os\r', 'def f():\r', '    # … 3 lines elided (3–5)', ''],
  },
  {
    name: 'CJK and emoji identifiers and strings pass through untouched',
    input: [
      '问候 = "你好 🌍"',
      'def 计算(数值):',
      '    """计算 ✨"""',
      '    结果 = 数值 * 2',
      '    print("🎉")',
      '    return 结果',
    ],
    expected: ['问候 = "你好 🌍"', 'def 计算(数值):', '    """计算 ✨"""', '    # … 3 lines elided (4–6)'],
  },
  {
    name: 'if/try blocks at top level are kept and defs inside them still have their bodies elided',
    input: [
      'if __name__ == "__main__":',
      '    main()',
      'try:',
      '    def f():',
      '        a = 1',
      '        b = 2',
      '        return a',
      'except ImportError:',
      '    f = None',
    ],
    expected: [
      'if __name__ == "__main__":',
      '    main()',
      'try:',
      '    def f():',
      '        # … 3 lines elided (5–7)',
      'except ImportError:',
      '    f = None',
    ],
  },
  {
    name: 'an unterminated triple-quoted string leaves the file whole',
    input: ['def f():', '    """never closed', '    a = 1', '    b = 2', '    return a'],
    expected: null,
  },
];

describe('code filter: Python', () => {
  for (const row of rows) {
    it(row.name, () => {
      const input = fileRead('src/mod.py', row.input.join('\n'));
      const out = render(input, codeFilter(input, { ...CFG, preserve_docstrings: row.preserve ?? true }));
      expect(out).toBe(row.expected === null ? null : row.expected.join('\n'));
    });
  }
});
