/**
 * Code filter, a property test (the examples are in code-filter.test.ts, under their own
 * describes): over random inputs, every plan is well-formed and every marker honest.
 */
import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeFilter } from '../../../src/strategies/single/code-filter/index.js';
import { CFG, checkPlan, fileRead } from './code-filter-helpers.js';

/** Body lines that keep a body balanced while exercising the scanners' hard cases. */
const PY_BODY = fc.constantFrom(
  ['x = 1'],
  ['s = "{ not a brace"'],
  ['# comment'],
  [''],
  ['y = f(', '1,', '    2)'],
  ['if x:', '    return 2'],
  ['q = """', '# not a comment', 'col0', '"""'],
  ["t = r'\\d'"],
  ['def inner():', '    return 3'],
  ['z = "你好 🎉"'],
);
const BRACE_BODY = fc.constantFrom(
  ['a();'],
  ['const s = "}";'],
  ["const c = '{';"],
  ['// }'],
  [''],
  ['if (x) {', '  y();', '}'],
  ['const r = /[{}]/g;'],
  ['const t = `${ {a: 1}.a } }`;'],
  ['/* {', '} */'],
  ['const u = "你好 🎉";'],
  ['return n / 2;'],
);
const PY_UNIT: Arbitrary<readonly string[]> = fc.oneof<Arbitrary<readonly string[]>[]>(
  fc.constantFrom(['import os'], ['LIMIT = 3'], ['@dec'], [''], ['class A:'], ['HELP = """', '# kept', '"""']),
  fc
    .tuple(
      fc.constantFrom('def f(a):', 'async def g(\n    a,\n):', '    def m(self):'),
      fc.array(PY_BODY, { minLength: 1, maxLength: 5 }),
    )
    .map(([sig, body]) => {
      const indent = /^\s*/.exec(sig)?.[0] ?? '';
      return [...sig.split('\n'), ...body.flat().map((l) => (l === '' ? l : `${indent}    ${l}`))];
    }),
);
const BRACE_UNIT: Arbitrary<readonly string[]> = fc.oneof<Arbitrary<readonly string[]>[]>(
  fc.constantFrom(['import x from "y";'], ['const LIMIT = 3;'], [''], ['const o = {', '  a: 1,', '};'], ['// note']),
  fc
    .tuple(
      fc.constantFrom('function f(a) {', 'const g = (\n  a,\n) => {', 'export async function h(): Promise<T> {'),
      fc.array(BRACE_BODY, { minLength: 1, maxLength: 5 }),
    )
    .map(([sig, body]) => [...sig.split('\n'), ...body.flat().map((l) => (l === '' ? l : `  ${l}`)), '}']),
);
/** Lines that may break anything: unbalanced braces, open strings, fences. */
const JUNK = fc.constantFrom('{', '}', '"', '`', '"""', "'''", '/*', '(', '```python', '```', '\r', "'a", 'r#"', '\\');

describe('code filter: property', () => {
  it('for random inputs every plan is well-formed, kept lines are input lines by index, and markers count exactly the lines they replace', () => {
    const input = fc.constantFrom('a.py', 'a.ts', 'a.js', 'notes.md').chain((path) => {
      const units = fc.array(path === 'a.py' ? PY_UNIT : BRACE_UNIT, { maxLength: 12 }).map((u) => u.flat());
      const body =
        path === 'notes.md'
          ? fc
              .tuple(fc.array(PY_UNIT, { maxLength: 6 }), fc.array(BRACE_UNIT, { maxLength: 6 }))
              .map(([p, b]) => ['Prose.', '```python', ...p.flat(), '```', 'More.', '```ts', ...b.flat(), '```'])
          : units;
      const mutated = fc.tuple(body, fc.array(fc.tuple(fc.nat(), JUNK), { maxLength: 2 })).map(([lines, junk]) => {
        const out = [...lines];
        for (const [at, j] of junk) out.splice(at % (out.length + 1), 0, j);
        return out;
      });
      return fc.tuple(fc.constant(path), fc.oneof(body, mutated), fc.boolean());
    });
    let applied = 0;
    fc.assert(
      fc.property(input, ([path, lines, preserve]) => {
        const output = fileRead(path, lines.join('\n'));
        const result = codeFilter(output, { ...CFG, preserve_docstrings: preserve });
        if (result.kind === 'lines') applied++;
        checkPlan(output, result, true);
      }),
      { numRuns: 1500 },
    );
    // The generator must exercise real plans, not only skips.
    expect(applied).toBeGreaterThan(300);
  });

  it('for well-formed random sources every top-level signature line is kept', () => {
    const input = fc.constantFrom('a.py', 'a.ts').chain((path) =>
      fc.tuple(
        fc.constant(path),
        fc.array(path === 'a.py' ? PY_UNIT : BRACE_UNIT, { maxLength: 12 }).map((u) => u.flat()),
      ),
    );
    fc.assert(
      fc.property(input, ([path, lines]) => {
        const output = fileRead(path, lines.join('\n'));
        const result = codeFilter(output, CFG);
        expect(result.kind === 'skipped' && /unbalanced|unterminated/.test(result.reason)).toBe(false);
        const kept = new Set(
          result.kind === 'lines' ? result.lines.filter((i) => typeof i === 'number') : lines.map((_, i) => i),
        );
        lines.forEach((line, i) => {
          if (/^(?:async def|def|class|function|const g|export async function)\b/.test(line))
            expect([i, kept.has(i)]).toEqual([i, true]);
        });
      }),
      { numRuns: 500 },
    );
  });
});
