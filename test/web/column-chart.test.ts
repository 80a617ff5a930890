/**
 * The column chart's value axis (web/src/components/column-chart.ts): exact, distinct labels.
 * Regression, issue 9: an all-zero per-turn chart labelled its axis 1 / 1 / 0.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { axisTicks } from '../../web/src/components/column-chart.js';
import { fmtTokens } from '../../web/src/format.js';

const labels = (dataMax: number): string[] => axisTicks(dataMax).ticks.map(fmtTokens);

describe('axisTicks', () => {
  it('regression: an all-zero chart has one label, 0 (not 1 / 1 / 0)', () => {
    expect(labels(0)).toEqual(['0']);
  });

  it.each([
    [1, ['0', '1', '2']],
    [3, ['0', '2', '4']],
    [10, ['0', '5', '10']],
    [13_400, ['0', '10.0K', '20.0K']],
    [86_100, ['0', '50.0K', '100.0K']],
    [140_900, ['0', '100.0K', '200.0K']],
  ])('peak %d gives %j', (peak, expected) => {
    expect(labels(peak)).toEqual(expected);
  });

  it('always has a top at or above the peak and distinct, whole-number ticks', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000_000 }), (peak) => {
        const { top, ticks } = axisTicks(peak);
        expect(top).toBeGreaterThanOrEqual(peak);
        expect(ticks.every(Number.isInteger)).toBe(true);
        expect(new Set(ticks.map(fmtTokens)).size).toBe(ticks.length);
      }),
    );
  });
});
