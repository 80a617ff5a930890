import { describe, expect, it } from 'vitest';
import { findStaleErrors, type ErrorEntry } from '../../../src/strategies/list-wide/error-purge.js';

const e = (id: string, turn: number, isError = true, tool = 'terminal'): ErrorEntry => ({ id, tool, isError, turn });
const CFG = { turns: 4, protected: new Set<string>() };

describe('findStaleErrors', () => {
  const cases: Array<[string, ErrorEntry, number, boolean]> = [
    ['purges a failure exactly `turns` turns old', e('a', 1), 5, true],
    ['purges a failure older than `turns`', e('a', 1), 9, true],
    ['keeps a failure one turn too young', e('a', 2), 5, false],
    ['keeps a failure from the current turn', e('a', 5), 5, false],
    ['keeps a successful output however old', e('a', 1, false), 50, false],
    ['keeps a failure from a later turn than the current one', e('a', 9), 5, false],
    ['keeps a failure with a turn that is not a number', e('a', Number.NaN), 5, false],
  ];
  it.each(cases)('%s', (_name, entry, current, purged) => {
    expect(findStaleErrors([entry], current, CFG).has(entry.id)).toBe(purged);
  });

  it('never purges a protected tool', () => {
    expect(findStaleErrors([e('a', 0, true, 'deploy')], 10, { turns: 1, protected: new Set(['deploy']) }).size).toBe(0);
  });

  it('never purges the current turn even with a turns setting of 0', () => {
    expect([...findStaleErrors([e('a', 3), e('b', 2)], 3, { turns: 0, protected: new Set() })]).toEqual(['b']);
  });

  it('returns every stale failure and only those', () => {
    const entries = [e('a', 0), e('b', 1, false), e('c', 2), e('d', 6)];
    expect([...findStaleErrors(entries, 6, CFG)]).toEqual(['a', 'c']);
  });

  it('handles an empty list', () => {
    expect(findStaleErrors([], 3, CFG).size).toBe(0);
  });
});
