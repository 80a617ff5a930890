/**
 * Code filter on partial reads and on error text: a page of a file read through (Codex's
 * `sed -n '200,400p'`, SWE-agent's 100-line window) is filtered even though it starts inside a
 * class it never shows; a short look at chosen lines is left whole; a read that stops early may
 * end inside a body; statements raising an error with a written message survive inside elided
 * bodies, and markers around them name exactly the lines they stand for.
 */
import { describe, expect, it } from 'vitest';
import { codeFilter, MIN_WINDOW_LINES } from '../../../src/strategies/single/code-filter/index.js';
import { CFG, fileRead, render } from './code-filter-helpers.js';

/** `n` TypeScript methods of a class body (2-space indent), each with a 5-line body. */
function methods(n: number, from = 0): string[] {
  const out: string[] = [];
  for (let k = from; k < from + n; k++)
    out.push(
      `  async method${k}(id: string): Promise<number> {`,
      '    const row = await db.find(id);',
      '    const total = row.a + row.b;',
      '    const tax = total * RATE;',
      '    log(total, tax);',
      '    return total + tax;',
      '  }',
      '',
    );
  return out;
}

describe('code filter: partial reads', () => {
  it('filters a page that starts inside a method of a class it never shows, from the first closing brace on', () => {
    // Lines 200.. of a file: the tail of one method, its closing brace, then whole methods.
    const page = ['    const leftover = compute();', '    return leftover;', '  }', '', ...methods(14)];
    const input = fileRead('src/service.ts', page.join('\n'), { first: 200, openEnd: true });
    expect(page.length).toBeGreaterThanOrEqual(MIN_WINDOW_LINES);
    const out = (render(input, codeFilter(input, CFG)) ?? '').split('\n');
    expect(out.slice(0, 6)).toEqual([
      '    const leftover = compute();',
      '    return leftover;',
      '  }',
      '',
      '  async method0(id: string): Promise<number> {',
      '    // … 5 lines elided (205–209)',
    ]);
    expect(out.filter((l) => l.includes('lines elided'))).toHaveLength(14);
  });

  it('leaves a short look at chosen lines whole (the agent asked for exactly those)', () => {
    const input = fileRead('src/service.ts', methods(4).join('\n'), { first: 120, openEnd: true });
    const result = codeFilter(input, CFG);
    expect(result.kind === 'skipped' && result.reason).toMatch(/window of fewer than 100 lines/);
  });

  it('a read that stops early may end inside a body, elided to the last line shown', () => {
    const page = [
      'export class S {',
      ...methods(2),
      '  method9(): void {',
      '    first();',
      '    second();',
      '    third();',
    ];
    const input = fileRead('src/s.ts', page.join('\n'), { openEnd: true });
    expect((render(input, codeFilter(input, CFG)) ?? '').split('\n').slice(-2)).toEqual([
      '  method9(): void {',
      '    // … 3 lines elided (19–21)',
    ]);
    // The same text read as a whole file is unbalanced: left whole.
    expect(codeFilter(fileRead('src/s.ts', page.join('\n')), CFG).kind).toBe('skipped');
  });

  it('a read that stops early inside a doc comment is still filtered', () => {
    const page = ['export class S {', ...methods(2), '  /**', '   * Doc of the next method, cut by the page.'];
    const input = fileRead('src/s.ts', page.join('\n'), { openEnd: true });
    expect(codeFilter(input, CFG).kind).toBe('lines');
  });

  it('a Python page that starts inside a string is left whole (it would read code as text)', () => {
    const page = [
      '    this docstring started before the page.',
      '    """',
      '    x = 1',
      'def g():',
      '    """Doc."""',
      '    a = 1',
      '    b = 2',
      '    return a + b',
      ...Array.from({ length: 100 }, (_, k) => `V${k} = ${k}`),
    ];
    const input = fileRead('m.py', page.join('\n'), { first: 50, openEnd: true });
    expect(codeFilter(input, CFG).kind).toBe('skipped');
  });
});

describe('code filter: error text survives', () => {
  const cases: { name: string; path: string; input: string[]; expected: string[] }[] = [
    {
      name: 'TypeScript: a throw with a message stays between two markers',
      path: 'a.ts',
      input: [
        'export function load(path: string): Config {',
        '  const raw = readFileSync(path, "utf8");',
        '  const parsed = JSON.parse(raw);',
        '  const checked = validate(parsed);',
        '  if (!checked.ok) {',
        '    throw new ConfigError(',
        '      `config ${path} is missing "port"`,',
        '    );',
        '  }',
        '  const merged = merge(DEFAULTS, checked.value);',
        '  const frozen = Object.freeze(merged);',
        '  return frozen;',
        '}',
      ],
      expected: [
        'export function load(path: string): Config {',
        '  // … 4 lines elided (2–5)',
        '    throw new ConfigError(',
        '      `config ${path} is missing "port"`,',
        '    );',
        '  // … 4 lines elided (9–12)',
        '}',
      ],
    },
    {
      name: 'Python: raise with a message stays; a bare re-raise does not',
      path: 'a.py',
      input: [
        'def parse(value):',
        '    """Parse it."""',
        '    text = value.strip()',
        '    if not text:',
        '        raise ValueError("empty value: expected a number")',
        '    try:',
        '        return int(text)',
        '    except OverflowError:',
        '        raise',
        '    finally:',
        '        cleanup()',
      ],
      expected: [
        'def parse(value):',
        '    """Parse it."""',
        '    text = value.strip()',
        '    if not text:',
        '        raise ValueError("empty value: expected a number")',
        '    # … 6 lines elided (6–11)',
      ],
    },
    {
      name: 'Go: fmt.Errorf and errors.New with messages stay',
      path: 'a.go',
      input: [
        'package main',
        'func open(p string) (*File, error) {',
        '\tf, err := os.Open(p)',
        '\tif err != nil {',
        '\t\treturn nil, fmt.Errorf("open %s: %w", p, err)',
        '\t}',
        '\tdefer f.Close()',
        '\tstat, _ := f.Stat()',
        '\tsize := stat.Size()',
        '\tlog(size)',
        '\treturn f, nil',
        '}',
      ],
      expected: [
        'package main',
        'func open(p string) (*File, error) {',
        '\tf, err := os.Open(p)',
        '\tif err != nil {',
        '\t\treturn nil, fmt.Errorf("open %s: %w", p, err)',
        '\t// … 6 lines elided (6–11)',
        '}',
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const input = fileRead(c.path, c.input.join('\n'));
      expect(render(input, codeFilter(input, CFG))).toBe(c.expected.join('\n'));
    });
  }
});
