import { describe, expect, it } from 'vitest';
import { chooseRange, type RangeMessage } from '../../../src/strategies/list-wide/summary-range.js';

/** A conversation shape: S system, U user, A assistant (a model call), T tool result; 1,000 tokens each. */
const shape = (roles: string): RangeMessage[] =>
  [...roles].map((c) => ({ role: { S: 'system', U: 'user', A: 'assistant', T: 'tool' }[c] as string, tokens: 1000 }));
const opts = { protectTurns: 1, protectCalls: 3, minTokens: 2000 };

describe('the range layer 1 may summarise', () => {
  it('in one long tool loop: the calls before the last few, never the head or the task', () => {
    //               0123456789012345
    const m = shape('SUATATATATATATAT');
    // 7 calls after the task; the last 3 (from index 10) stay.
    expect(chooseRange(m, [], opts)).toEqual({ from: 2, to: 9, tokens: 8000 });
  });

  it('never cuts a call from its results, and never takes the latest user message', () => {
    const m = shape('SUATTATTUATATATATAT');
    const r = chooseRange(m, [], { ...opts, protectTurns: 1 });
    expect(r).not.toBeNull();
    const { from, to } = r as { from: number; to: number };
    expect(m[from]?.role).toBe('assistant');
    expect(m[to + 1]?.role === 'assistant' || m[to + 1]?.role === 'user').toBe(true);
    for (let i = from; i <= to; i++) expect(i).not.toBe(8);
  });

  it('keeps the last protect_recent_turns user turns', () => {
    const m = shape('SUATUATUATUAT');
    expect(chooseRange(m, [], { ...opts, protectTurns: 2, protectCalls: 100 })).toEqual({
      from: 2,
      to: 6,
      tokens: 5000,
    });
    expect(chooseRange(m, [], { ...opts, protectTurns: 4, protectCalls: 100 })).toBeNull();
  });

  it('extends the latest phase rather than summarising a range twice, and leaves it when nothing new finished', () => {
    const m = shape('SUATATATATATATATATAT');
    expect(chooseRange(m, [{ id: 1, from: 2, to: 9 }], opts)).toEqual({ from: 2, to: 13, tokens: 12000, extends: 1 });
    expect(chooseRange(m, [{ id: 1, from: 2, to: 13 }], opts)).toBeNull();
  });

  it('waits until enough new work finished', () => {
    const m = shape('SUATATATATAT');
    expect(chooseRange(m, [], { ...opts, minTokens: 50_000 })).toBeNull();
  });
});
