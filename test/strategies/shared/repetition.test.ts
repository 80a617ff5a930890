import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lineScores } from '../../../src/strategies/shared/line-scores.js';
import { findRepetition, KEPT, REPEAT, SIMILAR } from '../../../src/strategies/shared/repetition.js';

const analyse = (lines: string[], similar = true) =>
  findRepetition(lines, lines.length, lineScores(lines, lines.length), similar);

describe('findRepetition', () => {
  it('leaves out exact repeats of the line before, blank lines aside', () => {
    const r = analyse(['wait', 'wait', 'wait', '', '', 'done']);
    expect([...r.hidden]).toEqual([KEPT, REPEAT, REPEAT, KEPT, KEPT, KEPT]);
  });

  it('keeps the first and last of a run of build chatter', () => {
    const lines = [
      '   Compiling a v1.0.0',
      '   Compiling b v2.1.0',
      '   Compiling c v0.3.0',
      '   Compiling d v1.1.1',
      '   Compiling e v9.0.0',
      '    Finished dev in 3s',
    ];
    expect([...analyse(lines).hidden]).toEqual([KEPT, SIMILAR, SIMILAR, SIMILAR, KEPT, KEPT]);
  });

  it('masks timestamps but never plain numbers', () => {
    const beats = Array.from({ length: 5 }, (_, i) => `2024-05-02T10:10:0${i}.000Z heartbeat ok`);
    expect([...analyse(beats).hidden]).toEqual([KEPT, SIMILAR, SIMILAR, SIMILAR, KEPT]);
    const statuses = [200, 200, 500, 200, 200].map((s, i) => `GET /health ${s} id=${i}`);
    expect([...analyse(statuses).hidden].every((h) => h === KEPT)).toBe(true);
    const rollout = [0, 1, 2, 2].map((n) => `Waiting: ${n} of 3 updated replicas are available...`);
    expect([...analyse(rollout).hidden]).toEqual([KEPT, KEPT, KEPT, REPEAT]);
  });

  it('never puts a line that matters into a similar run', () => {
    const lines = Array.from({ length: 6 }, (_, i) => `2024-05-02T10:10:0${i}.000Z error: disk full`);
    expect([...analyse(lines).hidden].every((h) => h === KEPT)).toBe(true);
  });

  it('finds no similar runs in a document, only exact repeats', () => {
    const lines = Array.from({ length: 5 }, (_, i) => `2024-05-0${i + 1},5.0`);
    expect([...analyse(lines, false).hidden].every((h) => h === KEPT)).toBe(true);
  });

  it('shows a carriage-return line by its final state, unless an overwritten state reported a failure', () => {
    const r = analyse(['10%\r50%\r100% done', 'x\rerror: reset\r100%', 'crlf line\r']);
    expect(r.progress.get(0)).toEqual({ text: '100% done', overwritten: 2 });
    expect(r.progress.has(1)).toBe(false);
    expect(r.progress.has(2)).toBe(false);
  });
});

describe('findRepetition without scores (truncation of a short log skips scoring)', () => {
  // Lines drawn from a few kinds, so that repeats and similar runs are common.
  const line = fc.oneof(
    fc.constantFrom(
      'wait',
      '',
      '   Compiling a v1.0.0',
      'error: disk full',
      'Traceback (most recent call last):',
      'ok',
      'done\rdone 2\rdone 3',
    ),
    fc.nat(99).map((n) => `2024-05-02T10:10:${String(n % 60).padStart(2, '0')}.000Z heartbeat ok`),
    fc.nat(9).map((n) => `   Compiling crate${n} v${n}.0.0`),
    fc.nat(9).map((n) => `GET /health ${n % 2 ? 200 : 500} took ${n} ms`),
  );

  it('a score only takes a line out of a similar run: with no run unscored, the scored result is the same', () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 40 }),
        fc.array(fc.constantFrom(0, 0, 0, 1, 2, 3), { maxLength: 40 }),
        (lines, raw) => {
          const scores = Uint8Array.from(lines.map((_, i) => raw[i] ?? 0));
          const unscored = findRepetition(lines, lines.length, new Uint8Array(0));
          const scored = findRepetition(lines, lines.length, scores);
          // Scored similar lines are a subset of the unscored ones, repeats and progress are the same.
          for (let i = 0; i < lines.length; i++) {
            if (scored.hidden[i] === SIMILAR) expect(unscored.hidden[i]).toBe(SIMILAR);
            expect(scored.hidden[i] === REPEAT).toBe(unscored.hidden[i] === REPEAT);
          }
          expect([...scored.progress]).toEqual([...unscored.progress]);
          if (!unscored.hidden.includes(SIMILAR)) expect([...scored.hidden]).toEqual([...unscored.hidden]);
        },
      ),
      { numRuns: 500 },
    );
  });
});
