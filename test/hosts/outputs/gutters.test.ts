/**
 * The gutter pass over every line of a numbered read matches by hand (no match object per line):
 * it must agree with each gutter's pattern on any line, its length and its number alike.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GUTTERS, gutterAt, lastGutterNumber } from '../../../src/hosts/outputs/file-reads.js';

// The characters a gutter is made of, and a few it is not (other digits, letters, a wide arrow).
const piece = fc.constantFrom(
  ' ',
  ' ',
  '0',
  '1',
  '7',
  '9',
  '00012',
  '12345678901234567890',
  '|',
  '| ',
  ':',
  '\t',
  '\u2192',
  'a',
  '٣',
  '\u2190',
);
const line = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));

describe('gutterAt', () => {
  it('matches every line as the gutter pattern does', () => {
    fc.assert(
      fc.property(line, (text) => {
        for (const g of GUTTERS) {
          const m = g.re.exec(text);
          const width = gutterAt(text, g);
          expect(width).toBe(m ? m[0].length : 0);
          if (m) expect(lastGutterNumber()).toBe(Number(m[1]));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('reads the gutters of the tools it knows', () => {
    const cases: [string, number, number][] = [
      ['00012| code', 0, 12],
      ['  12|code', 1, 12],
      ['    12\u2192code', 2, 12],
      ['12:code', 3, 12],
      ['    12\tcode', 4, 12],
    ];
    for (const [text, k, n] of cases) {
      expect(gutterAt(text, GUTTERS[k] as (typeof GUTTERS)[number])).toBeGreaterThan(0);
      expect(lastGutterNumber()).toBe(n);
    }
  });
});
