import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compose, planWeights } from '../../src/engine/turn/compress.js';
import type { LinePlanItem } from '../../src/core/strategy.js';

describe('planWeights', () => {
  it('gives a kept line 1 and a marker the lines between its kept neighbours', () => {
    const plan: LinePlanItem[] = [0, { marker: 'a' }, 5, 6, { marker: 'b' }];
    expect(planWeights(plan, 10)).toEqual([1, 4, 1, 1, 3]);
  });

  it('counts a gap once when two markers stand in it', () => {
    expect(planWeights([0, { marker: 'a' }, { marker: 'b' }, 4], 5)).toEqual([1, 3, 0, 1]);
  });

  it('weights always add up to the original line count (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 80 }), (keeps) => {
        // A plan keeping some lines of keeps.length, one marker per gap.
        const plan: LinePlanItem[] = [];
        keeps.forEach((keep, i) => {
          if (keep) plan.push(i);
          else if (typeof plan[plan.length - 1] !== 'object') plan.push({ marker: 'gap' });
        });
        expect(planWeights(plan, keeps.length).reduce((a, b) => a + b, 0)).toBe(keeps.length);
      }),
    );
  });

  it('lets a second plan over a planned output count original lines', () => {
    const first: LinePlanItem[] = [0, { marker: '# ... 8 lines elided' }, 9, 10];
    const weights = planWeights(first, 11);
    // A later strategy cuts view lines 1..2 (the marker and line 9): 9 original lines.
    expect((weights[1] ?? 0) + (weights[2] ?? 0)).toBe(9);
    expect(compose(first, [0, { marker: '... (9 lines omitted)' }, 3])).toEqual([
      0,
      { marker: '... (9 lines omitted)' },
      10,
    ]);
  });
});
