/**
 * Where a compaction cuts (issue 16): the head and the latest user message stay, the recent tail
 * stays within its budget, no tool call is cut from its results, every summary's role repeats
 * neither neighbour, and a summary layer 1 already made is reused or extended, never redone.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseCompaction, type CompactionMessage } from '../../src/strategies/list-wide/compaction-range.js';

const U = (tokens = 50): CompactionMessage => ({ role: 'user', tokens });
const A = (tokens = 50): CompactionMessage => ({ role: 'assistant', tokens });
const T = (tokens = 1000): CompactionMessage => ({ role: 'tool', tokens });

/** `turns` user turns of `calls` tool calls each, then a final answer per turn. */
function session(turns: number, calls: number): CompactionMessage[] {
  const out: CompactionMessage[] = [];
  for (let t = 0; t < turns; t++) {
    out.push(U());
    for (let c = 0; c < calls; c++) out.push(A(), T());
    out.push(A());
  }
  return out;
}

describe('chooseCompaction', () => {
  it('summarises the earlier turns as one assistant message and keeps the head and the latest turn', () => {
    const m = session(4, 3);
    const ranges = chooseCompaction(m, [], { tailTokens: 3000, minTokens: 100 });
    expect(ranges).toHaveLength(1);
    const r = ranges[0]!;
    expect(r.from).toBe(1); // right after the first user message
    expect(m[r.to + 1]?.role).toBe('user'); // ends where a turn begins
    expect(r.role).toBe('assistant');
    expect(r.reuse).toBeUndefined();
  });

  it('keeps as many recent turns as the tail budget holds', () => {
    const m = session(6, 2);
    const tight = chooseCompaction(m, [], { tailTokens: 100, minTokens: 100 })[0]!;
    const roomy = chooseCompaction(m, [], { tailTokens: 5000, minTokens: 100 })[0]!;
    expect(roomy.to).toBeLessThan(tight.to);
    const lastUser = m.map((x) => x.role).lastIndexOf('user');
    expect(tight.to).toBe(lastUser - 1);
  });

  it('summarises the older calls of a long current loop after its first call, as a user message', () => {
    const m: CompactionMessage[] = [U(), A(), T(), A(), U()];
    for (let i = 0; i < 10; i++) m.push(A(), T());
    const ranges = chooseCompaction(m, [], { tailTokens: 2500, minTokens: 100 });
    const loop = ranges.find((r) => r.from > 4)!;
    expect(m[loop.from - 1]?.role).toBe('tool'); // the loop's first call and its result stay
    expect(m[loop.from]?.role).toBe('assistant');
    expect(m[loop.to + 1]?.role).toBe('assistant');
    expect(loop.role).toBe('user');
  });

  it('reuses a held summary that covers a range and extends one that covers its start', () => {
    const m = session(4, 3);
    const [r] = chooseCompaction(m, [], { tailTokens: 3000, minTokens: 100 });
    expect(
      chooseCompaction(m, [{ id: 7, from: r!.from, to: r!.to }], { tailTokens: 3000, minTokens: 100 })[0]?.reuse,
    ).toBe(7);
    const ext = chooseCompaction(m, [{ id: 3, from: r!.from, to: r!.from + 4 }], {
      tailTokens: 3000,
      minTokens: 100,
    })[0]!;
    expect(ext.extends).toBe(3);
    expect(ext.reuse).toBeUndefined();
  });

  it('leaves out what is too small to be worth a summary', () => {
    expect(
      chooseCompaction(
        session(3, 1).map((x) => ({ ...x, tokens: 1 })),
        [],
        { tailTokens: 10, minTokens: 100 },
      ),
    ).toEqual([]);
    expect(chooseCompaction([A(), T()], [], { tailTokens: 10, minTokens: 1 })).toEqual([]);
  });

  it('holds its invariants on any conversation', () => {
    const role = fc.constantFrom('user', 'assistant', 'tool');
    fc.assert(
      fc.property(
        fc.array(fc.record({ role, tokens: fc.integer({ min: 0, max: 3000 }) }), { maxLength: 80 }),
        fc.integer({ min: 0, max: 20000 }),
        (m, tail) => {
          const ranges = chooseCompaction(m, [], { tailTokens: tail, minTokens: 1 });
          const firstUser = m.findIndex((x) => x.role === 'user');
          const lastUser = m.map((x) => x.role).lastIndexOf('user');
          let previousEnd = -1;
          for (const r of ranges) {
            expect(r.from).toBeGreaterThan(previousEnd);
            previousEnd = r.to;
            expect(r.from).toBeGreaterThan(firstUser); // the head stays
            expect(r.from > lastUser || r.to < lastUser).toBe(true); // the latest user message stays
            expect(m[r.from]?.role).toBe('assistant'); // starts at a model call …
            expect(m[r.to + 1]?.role === 'user' || m[r.to + 1]?.role === 'assistant').toBe(true); // … and ends before one or a turn
            expect(m[r.from - 1]?.role).not.toBe(r.role);
            expect(m[r.to + 1]?.role).not.toBe(r.role);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
