import { describe, expect, it } from 'vitest';
import { planClearing, type ClearCandidate } from '../../../src/strategies/list-wide/clearing.js';
import { clearedPlaceholder } from '../../../src/strategies/list-wide/placeholders.js';

const results = (sizes: number[], locked: number[] = []): ClearCandidate[] =>
  sizes.map((tokens, i) => ({ id: `c${i}`, tokens, locked: locked.includes(i) }));
const opts = { trigger: 1000, target: 300, keep: 2, minTokens: 50 };

describe('clearing old outputs', () => {
  it('does nothing while the context is at or below the trigger', () => {
    expect(planClearing(results([400, 400, 200]), 1000, opts)).toEqual([]);
  });

  it('clears the oldest first, down to the target, and never the last `keep` results', () => {
    expect(planClearing(results([400, 400, 400, 400, 400]), 2000, opts)).toEqual(['c0', 'c1', 'c2']);
    expect(planClearing(results([400, 400, 400]), 1200, { ...opts, target: 0 })).toEqual(['c0']);
  });

  it('skips locked outputs (protected, excluded, already a placeholder) and ones too small for a marker', () => {
    expect(planClearing(results([400, 20, 400, 400, 100, 100], [0]), 1420, { ...opts, target: 0 })).toEqual([
      'c2',
      'c3',
    ]);
  });

  it('its marker says how to get the output back', () => {
    expect(clearedPlaceholder({ tool: 'terminal', recall: 'r0123456789' })).toBe(
      '[Output of terminal cleared to save context (recall id=r0123456789)]',
    );
    expect(clearedPlaceholder({ tool: 'read_file', read: { path: 'a.py', span: { first: 10, last: 40 } } })).toBe(
      '[Earlier read of a.py (lines 10-40) cleared to save context; read it again with read_file if needed]',
    );
    expect(
      clearedPlaceholder({
        tool: 'terminal',
        recall: 'r0123456789',
        failedText: 'Traceback (most recent call last):\nValueError: bad',
      }),
    ).toBe('[Error output of terminal cleared to save context: ValueError: bad (recall id=r0123456789)]');
  });
});
