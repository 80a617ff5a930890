/**
 * The house rules of src/ (issue 18), read from the code's own imports by scripts/import-graph.ts:
 * no circle of imports, no import from a folder to one on a higher or the same layer, and no
 * folder missing from the layer table (src/README.md gives the table and why).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyse, circlesOf, importsOf, LAYERS } from '../../scripts/import-graph.js';

const report = analyse(join(import.meta.dirname, '..', '..'));

describe('the import graph of src/', () => {
  it('has no circle', () => {
    expect(report.circles).toEqual([]);
  });

  it('has no import from a lower layer up to a higher one, or across one layer', () => {
    expect(report.upward.map(({ from, to }) => `${from} -> ${to}`)).toEqual([]);
  });

  it('ranks every folder of src/', () => {
    expect(report.unranked).toEqual([]);
    expect(LAYERS.flat()).toContain('core');
  });

  it('reads every kind of import and finds circles (the checker itself)', () => {
    const source =
      "import { a } from './a.js';\nimport type { B } from '../b.js';\nexport { c } from './c.js';\nimport './d.js';\nconst e = await import('./e.js');\nimport x from 'node:fs';";
    expect(importsOf(source)).toEqual(['./a.js', '../b.js', './c.js', './d.js', './e.js']);
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(circlesOf(graph)).toEqual([['a', 'b', 'c']]);
  });
});
